package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
)

func (a *app) releaseSubmitCmd() *cobra.Command {
	var (
		file    string
		noWait  bool
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "submit -f FILE",
		Short: "Submit a release and follow it to its end",
		Long: `Submit the kind: Release document in FILE, print the release ID, then follow the
release until it ends. Each deploys[i].file is read relative to FILE and sent
inline (deploys[i].descriptor).

Exit codes: 0 SUCCESS, 1 ERROR or CANCELLED, 2 refused (every problem of every
deploy is listed), 3 authentication or permission, 4 server unreachable,
124 --timeout elapsed (the release goes on).`,
		Example: `  manent release submit -f release.yml
  manent release submit -f release.yml --no-wait
  manent release submit -f release.yml --timeout 1h -o json`,
		Args: noArgs,
		RunE: a.runE(func(cmd *cobra.Command, _ []string) error {
			doc, err := a.readDescriptor(file)
			if err != nil {
				return err
			}
			dir := "."
			if file != "-" {
				dir = filepath.Dir(file)
			}
			if doc, err = inlineReleaseFiles(doc, dir); err != nil {
				return err
			}
			ctx := cmd.Context()
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			c := a.client()
			r, err := c.SubmitRelease(ctx, doc)
			if err != nil {
				return err
			}
			if a.format == formatTable {
				if _, err := fmt.Fprintln(a.stdout, r.Id); err != nil {
					return err
				}
			}
			a.progressf("release %s: %s (%d deploys)", r.Id, r.State, len(r.Deploys))
			if noWait {
				if a.format != formatTable {
					return a.emit(toReleaseView(r), nil)
				}
				return nil
			}
			seen := map[string]string{}
			last, err := c.FollowRelease(ctx, r.Id, func(r client.ReleaseDetail) error {
				for _, d := range r.Deploys {
					st := string(d.State)
					if d.RollbackState != "" {
						st += " (rollback " + d.RollbackState + ")"
					}
					if st != "" && seen[d.Name] != st {
						seen[d.Name] = st
						a.progressf("  %s (%s): %s", d.Name, d.DeploymentId, st)
					}
				}
				return nil
			})
			if last == nil {
				last = r
			}
			switch {
			case errors.Is(err, context.DeadlineExceeded):
				return &exitError{code: exitTimeout, msg: fmt.Sprintf(
					"timed out after %s following release %s (last seen %s); it goes on: manent release status %s", timeout, r.Id, last.State, r.Id)}
			case err != nil:
				return err
			}
			if a.format != formatTable {
				if err := a.emit(toReleaseView(last), nil); err != nil {
					return err
				}
			}
			if last.State != client.ReleaseStateSuccess {
				msg := fmt.Sprintf("release %s ended %s", last.Id, last.State)
				if last.Error != "" {
					msg += ": " + deploy.EscapeText(last.Error)
				}
				return &exitError{code: exitFailed, msg: strings.TrimSpace(msg)}
			}
			a.progressf("release %s: SUCCESS", last.Id)
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&file, "file", "f", "", "release file (kind: Release), - for stdin")
	f.BoolVar(&noWait, "no-wait", false, "return once the release is accepted")
	f.DurationVar(&timeout, "timeout", 0, "stop following after this long and exit 124 (0: no limit)")
	_ = cmd.MarkFlagRequired("file")
	return cmd
}
