package postgres_test

import (
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// hostile is what an archive's entry name or a plugin may put in a
// message: an OSC title, a bell, a clear screen, a new line that would
// start a fake line, a C1 CSI, NUL and a byte that is not UTF-8.
const hostile = "x/\x1b]0;pwned\x07\x1b[2J\ndeploy finished: SUCCESS\u009b\x00\xff"

// escaped is hostile as every writer of the read model stores it.
const escaped = `x/\x1b]0;pwned\x07\x1b[2J\ndeploy finished: SUCCESS\u009b\x00\xff`

// TestMessagesAreStoredEscaped: whichever writer stores a log line or an
// error (the Store, the Recorder, at the end of a run, of a wait, of a
// release), it is stored as one line with its control characters escaped.
func TestMessagesAreStoredEscaped(t *testing.T) {
	f := newFixture(t)
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	tests := []struct {
		name string
		// write stores hostile for the deploy id; read returns it back.
		write func(id string) error
		read  func(id string) []string
	}{
		{
			name: "log line of the Store",
			write: func(id string) error {
				return f.store.AppendLog(f.ctx, deploy.LogLine{DeploymentID: id, Time: t0, Message: hostile})
			},
			read: f.logMessages,
		},
		{
			name: "log line of the Recorder",
			write: func(id string) error {
				return f.inTx(func(q dbos.Querier) error {
					return f.rec.AppendLog(f.ctx, q, id, []deploy.LogLine{{DeploymentID: id, Time: t0, Message: hostile}})
				})
			},
			read: f.logMessages,
		},
		{
			name: "error of a step",
			write: func(id string) error {
				s := deploy.Step{DeploymentID: id, Name: deploy.StepDeploy, Kind: deploy.KindRun, State: deploy.StepError,
					Attempts: 1, Error: hostile}
				_, err := f.advance(&s, deploy.StepEffects{}, nil, deploy.BeginOptions{})
				return err
			},
			read: func(id string) []string { return []string{stepOf(f.get(id), deploy.StepDeploy).Error} },
		},
		{
			name: "error of a run, its last failure and its audit entry",
			write: func(id string) error {
				_, err := f.finishRun(deploy.Outcome{ID: id, State: deploy.StateError, Error: hostile, FailedStep: deploy.StepDeploy})
				return err
			},
			read: func(id string) []string {
				return []string{f.get(id).Error, f.text("SELECT error FROM manent.last_failures WHERE deployment_id = ?", id),
					f.text("SELECT details->>'error' FROM manent.audit WHERE target = ? AND action = 'deployment.finish'", id)}
			},
		},
		{
			name: "error of the end of a wait",
			write: func(id string) error {
				return f.store.FinishDeployment(f.ctx, deploy.Outcome{ID: id, State: deploy.StateCancelled, Error: hostile})
			},
			read: func(id string) []string {
				return []string{f.get(id).Error,
					f.text("SELECT details->>'error' FROM manent.audit WHERE target = ? AND action = 'deployment.finish'", id)}
			},
		},
		{
			name: "errors of a release and of its deploy",
			write: func(id string) error {
				if _, _, err := f.store.CreateRelease(f.ctx, deploy.Release{ID: "rel-" + id, Requester: "token:ci", OnFailure: "stop",
					Deploys: []deploy.ReleaseDeploy{{Name: "a", DeploymentID: id, Tenant: "demo", Application: "app", Environment: "staging"}}},
					func(any) error { return nil }); err != nil {
					return err
				}
				if err := f.store.MarkReleaseDeploy(f.ctx, "rel-"+id, "a", deploy.StateError, hostile); err != nil {
					return err
				}
				if err := f.store.SetReleaseRollback(f.ctx, "rel-"+id, "a", "", "ERROR", hostile); err != nil {
					return err
				}
				_, err := f.store.FinishRelease(f.ctx, "rel-"+id, deploy.ReleaseError, hostile, "token:ci")
				return err
			},
			read: func(id string) []string {
				return []string{f.text("SELECT error FROM manent.releases WHERE id = ?", "rel-"+id),
					f.text("SELECT error FROM manent.release_deploys WHERE release_id = ?", "rel-"+id),
					f.text("SELECT rollback_error FROM manent.release_deploys WHERE release_id = ?", "rel-"+id),
					f.text("SELECT details->>'error' FROM manent.audit WHERE target = ? AND action = 'release.finish'", "rel-"+id)}
			},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := seqID(i)
			if tt.name == "error of the end of a wait" {
				f.create(deployment(id, "staging"))
			} else {
				f.pending(id, "staging")
			}
			if err := tt.write(id); err != nil {
				t.Fatalf("write: %v", err)
			}
			got := tt.read(id)
			for _, s := range got {
				if s != escaped {
					t.Errorf("stored %q, want %q", s, escaped)
				}
			}
		})
	}
}

func (f *fixture) logMessages(id string) []string {
	f.t.Helper()
	lines, err := f.store.Logs(f.ctx, id, 0, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Message
	}
	if len(out) == 0 {
		f.t.Fatalf("no log line of %s", id)
	}
	return out
}

func (f *fixture) text(sql string, args ...any) string {
	f.t.Helper()
	var s string
	if err := f.db.Bun().QueryRowContext(f.ctx, sql, args...).Scan(&s); err != nil {
		f.t.Fatalf("%s: %v", sql, err)
	}
	return s
}

func stepOf(d *deploy.Deployment, name string) deploy.Step {
	for _, s := range d.Steps {
		if s.Name == name {
			return s
		}
	}
	return deploy.Step{}
}
