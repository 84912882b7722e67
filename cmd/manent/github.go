package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

const envGitHubOutput = "GITHUB_OUTPUT"

// output is one name=value line of $GITHUB_OUTPUT.
type output struct{ name, value string }

// githubOutputs lists what a CI step exposes: the state, the deploy ID and
// one export_<name> per export of the status JSON.
func githubOutputs(id, state string, status json.RawMessage) []output {
	outs := []output{{"state", state}, {"deployment_id", id}}
	var st struct {
		Exports map[string]any `json:"exports"`
	}
	if len(status) > 0 && json.Unmarshal(status, &st) == nil {
		names := make([]string, 0, len(st.Exports))
		for n := range st.Exports {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			v, ok := st.Exports[n].(string)
			if !ok {
				b, _ := json.Marshal(st.Exports[n])
				v = string(b)
			}
			outs = append(outs, output{"export_" + n, v})
		}
	}
	return outs
}

// writeGitHubOutputs appends outs to the file GitHub Actions reads the
// step's outputs from; multi-line values use its heredoc form.
func writeGitHubOutputs(path string, outs []output) error {
	var b strings.Builder
	for _, o := range outs {
		if !strings.ContainsAny(o.value, "\r\n") {
			fmt.Fprintf(&b, "%s=%s\n", o.name, o.value)
			continue
		}
		var r [8]byte
		_, _ = rand.Read(r[:])
		delim := "ghadelimiter_" + hex.EncodeToString(r[:])
		fmt.Fprintf(&b, "%s<<%s\n%s\n%s\n", o.name, delim, o.value, delim)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", envGitHubOutput, err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		_ = f.Close() // the write error is the one to report
		return fmt.Errorf("write %s: %w", envGitHubOutput, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", envGitHubOutput, err)
	}
	return nil
}

// publish writes the GitHub Actions outputs when running under Actions; a
// failure to write them is reported but does not change the exit code of
// the deploy.
func (a *app) publish(id, state string, status json.RawMessage) {
	path := a.getenv(envGitHubOutput)
	if path == "" {
		return
	}
	if err := writeGitHubOutputs(path, githubOutputs(id, state, status)); err != nil {
		a.progressf("manent: %v", err)
	}
}
