package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
)

func (a *app) deploymentSubmitCmd() *cobra.Command {
	var (
		file    string
		dryRun  bool
		noWait  bool
		timeout time.Duration
		after   []string
		imports []string
	)
	cmd := &cobra.Command{
		Use:   "deploy -f FILE",
		Short: "Submit a deploy and follow it to its end",
		Long: `Submit the descriptor in FILE ("-" reads stdin), print the deploy ID, then follow
the deploy step by step until it ends.

Exit codes: 0 SUCCESS, 1 any other final state, 2 refused (invalid descriptor,
422, policy), 3 authentication or permission, 4 server unreachable,
124 --timeout elapsed (the deploy goes on).

With -o json|yaml the final status goes to stdout and the progress to stderr.
Under GitHub Actions ($GITHUB_OUTPUT set) the state, the deploy ID and the
exports (export_<name>) are written as step outputs.

--after ID (repeatable) adds ID to the descriptor's after: the deploy waits
(WAITING_DEPENDENCY) until ID succeeds. --import NAME=ID (repeatable) binds
the import NAME to the exports of the deploy ID and adds ID to after, so
deploy.targetsFrom and deploy.paramsFrom can read NAME without declaring it.`,
		Example: `  manent deploy -f deploy.yml
  manent deploy -f deploy.yml --dry-run
  ID=$(manent deploy -f deploy.yml --no-wait)
  manent deploy -f deploy.yml -o json --timeout 15m > status.json
  manent deploy -f api.yml --after shop-db-42-prod
  manent deploy -f os-config.yml --import infra=$INFRA_DEPLOYMENT_ID`,
		Args: noArgs,
		RunE: a.runE(func(cmd *cobra.Command, _ []string) error {
			edits, err := newDescriptorEdits(dryRun, after, imports)
			if err != nil {
				return err
			}
			doc, err := a.readDescriptor(file)
			if err != nil {
				return err
			}
			if doc, err = editDescriptor(doc, edits); err != nil {
				return err
			}
			ctx := cmd.Context()
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			return a.submitAndFollow(ctx, doc, noWait, timeout)
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&file, "file", "f", "", "descriptor file (YAML or JSON), - for stdin")
	f.BoolVar(&dryRun, "dry-run", false, "run the pipeline without changing the targets (sets dryRun: true)")
	f.BoolVar(&noWait, "no-wait", false, "return once the deploy is accepted")
	f.StringArrayVar(&after, "after", nil, "run after the deploy ID has succeeded (adds it to after; repeatable)")
	f.StringArrayVar(&imports, "import", nil, "bind the import NAME to the exports of the deploy ID and run after it: NAME=ID (repeatable)")
	f.DurationVar(&timeout, "timeout", 0, "stop following after this long and exit 124 (e.g. 15m; 0: no limit)")
	_ = cmd.MarkFlagRequired("file")
	return cmd
}

func (a *app) submitAndFollow(ctx context.Context, doc []byte, noWait bool, timeout time.Duration) error {
	c := a.client()
	res, err := c.Submit(ctx, doc, false)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return &exitError{code: exitTimeout, msg: fmt.Sprintf("timed out after %s waiting for the server to accept the deploy", timeout)}
		}
		return err
	}
	if res.Schedule != nil {
		return a.scheduled(res)
	}
	d := res.Deployment.DeploymentDetail
	// stdout carries only data: the ID in table format, the status JSON
	// otherwise, so $(manent deploy ...) and `-o json > file` both work.
	if a.format == formatTable {
		if _, err := fmt.Fprintln(a.stdout, d.Id); err != nil {
			return err
		}
	}
	if res.Created {
		a.progressf("submitted deployment %s (%s/%s/%s)", d.Id, d.Tenant, d.Application, d.Environment)
	} else {
		a.progressf("deployment %s already exists (%s): following it", d.Id, d.State)
	}
	if noWait {
		a.publish(d.Id, string(d.State), d.Status)
		if a.format != formatTable {
			return a.emit(d.Status, nil)
		}
		return nil
	}
	last, err := a.followDeploy(ctx, c, d.Id, &d, scheduledAt(doc))
	timedOut := errors.Is(err, context.DeadlineExceeded)
	if last != nil && (err == nil || timedOut) {
		a.publish(last.Id, string(last.State), last.Status)
		// The final status, or the last one seen before the --timeout.
		if a.format != formatTable {
			if eerr := a.emit(last.Status, nil); eerr != nil {
				return eerr
			}
		}
	}
	return followOutcome(d.Id, last, err, timeout)
}

// scheduled reports a schedule.cron submission: there is no deploy to
// follow, the ticks start deploys of their own. stdout has the schedule's
// name (or the schedule as JSON or YAML), like the ID of a deploy.
func (a *app) scheduled(res *client.SubmitResult) error {
	s := res.Schedule
	a.progressf("schedule %s %s (cron %s, next tick %s)", s.Name, pick(res.Created, "created", "updated"), scheduleWhen(s), nextTick(s))
	if path := a.getenv(envGitHubOutput); path != "" {
		if err := writeGitHubOutputs(path, []output{{"state", string(client.DeploymentStateScheduled)}, {"schedule", s.Name}}); err != nil {
			a.progressf("manent: %v", err)
		}
	}
	return a.emit(toScheduleView(s), func(w io.Writer) error {
		_, err := fmt.Fprintln(w, s.Name)
		return err
	})
}
