package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
)

func (a *app) releaseCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "release",
		Short: "Submit and follow composite releases (kind: Release)",
		Long: `A release groups several deploys with the dependencies between them: independent
deploys run in parallel, the others after their predecessors, and onFailure
(stop, continue, rollback) says what happens when one does not succeed.`,
	}
	cmd.AddCommand(a.releaseSubmitCmd(), a.releaseStatusCmd(), a.releaseListCmd(), a.releaseCancelCmd())
	return cmd
}

// inlineReleaseFiles replaces every deploys[i].file of a release document by
// the content of that file (relative to dir) as deploys[i].descriptor: the
// API takes the descriptors inline.
func inlineReleaseFiles(doc []byte, dir string) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		// The server reports syntax errors with their line.
		return doc, nil
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return doc, nil
	}
	top := root.Content[0]
	changed := false
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value != "deploys" || top.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		for j, m := range top.Content[i+1].Content {
			if m.Kind != yaml.MappingNode {
				continue
			}
			for k := 0; k+1 < len(m.Content); k += 2 {
				if m.Content[k].Value != "file" || m.Content[k+1].Kind != yaml.ScalarNode {
					continue
				}
				name := m.Content[k+1].Value
				if filepath.IsAbs(name) || strings.HasPrefix(filepath.Clean(name), "..") {
					return nil, &usageError{err: fmt.Errorf("deploys[%d].file %s: must be relative to the release file, inside its directory", j, name)}
				}
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					return nil, &usageError{err: fmt.Errorf("deploys[%d].file: %w", j, err)}
				}
				if len(b) > maxDescriptor {
					return nil, &usageError{err: fmt.Errorf("deploys[%d].file %s is larger than %d bytes", j, name, maxDescriptor)}
				}
				m.Content[k].Value = "descriptor"
				m.Content[k+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.LiteralStyle, Value: string(b)}
				changed = true
			}
		}
	}
	if !changed {
		return doc, nil
	}
	return yaml.Marshal(&root)
}

// writeRelease prints a release and its deploys as a table.
func writeRelease(w io.Writer, r *client.ReleaseDetail) error {
	head := fmt.Sprintf("release %s: %s (onFailure %s, by %s)", r.Id, r.State, r.OnFailure, r.Requester)
	if _, err := fmt.Fprintln(w, deploy.EscapeText(head)); err != nil {
		return err
	}
	if r.Error != "" {
		if _, err := fmt.Fprintf(w, "error: %s\n", deploy.EscapeText(r.Error)); err != nil {
			return err
		}
	}
	tw := newTable(w)
	row(tw, "NAME", "DEPLOYMENT", "STATE", "AFTER", "ROLLBACK", "ROLLBACK DEPLOYMENT")
	for _, d := range r.Deploys {
		row(tw, d.Name, d.DeploymentId, string(d.State), strings.Join(d.After, ","), d.RollbackState, d.RollbackDeploymentId)
	}
	return tw.Flush()
}
