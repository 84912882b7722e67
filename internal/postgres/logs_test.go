package postgres_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// The Recorder appends lines in the transaction of a step, numbered after
// those the Store appended, with the same defaults.
func TestRecorderAppendLog(t *testing.T) {
	f := newFixture(t)
	f.pending("l", "staging")
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 789123000, time.UTC)
	if err := f.store.AppendLog(f.ctx, deploy.LogLine{DeploymentID: "l", Time: t0, Message: "by the store"}); err != nil {
		t.Fatal(err)
	}
	appendLog := func(id string, lines ...deploy.LogLine) error {
		return f.inTx(func(q dbos.Querier) error { return f.rec.AppendLog(f.ctx, q, id, lines) })
	}
	tests := []struct {
		name  string
		id    string
		lines []deploy.LogLine
		want  []string // the log of l after: seq, time, step, level, message
	}{
		{"nothing", "l", nil, []string{"1 " + t0.Format(time.RFC3339Nano) + " - info by the store"}},
		{"lines", "l", []deploy.LogLine{
			{DeploymentID: "l", Time: t0.Add(time.Second), Step: "deploy", Level: "warn", Message: "one"},
			{DeploymentID: "l", Time: t0.Add(2 * time.Second), Step: "deploy", Message: "two"},
		}, []string{
			"1 " + t0.Format(time.RFC3339Nano) + " - info by the store",
			"2 " + t0.Add(time.Second).Format(time.RFC3339Nano) + " deploy warn one",
			"3 " + t0.Add(2*time.Second).Format(time.RFC3339Nano) + " deploy info two",
		}},
		{"a deploy that is gone", "gone", []deploy.LogLine{{DeploymentID: "gone", Time: t0, Message: "lost"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := appendLog(tt.id, tt.lines...); err != nil {
				t.Fatalf("AppendLog: %v", err)
			}
			if tt.want == nil {
				if n := f.count("SELECT count(*) FROM manent.deployment_logs WHERE deployment_id = ?", tt.id); n != 0 {
					t.Errorf("%d lines of a deploy that is gone", n)
				}
				return
			}
			lines, err := f.store.Logs(f.ctx, "l", 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range lines {
				step := l.Step
				if step == "" {
					step = "-"
				}
				got = append(got, fmt.Sprintf("%d %s %s %s %s", l.Seq, l.Time.Format(time.RFC3339Nano), step, l.Level, l.Message))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("log\n got %q\nwant %q", got, tt.want)
			}
		})
	}
	// Both writers take their numbers from the deploy's row.
	if err := f.store.AppendLog(f.ctx, deploy.LogLine{DeploymentID: "l", Message: "after"}); err != nil {
		t.Fatal(err)
	}
	lines, err := f.store.Logs(f.ctx, "l", 3, 0)
	if err != nil || len(lines) != 1 || lines[0].Seq != 4 {
		t.Errorf("next line = %+v, %v; want seq 4", lines, err)
	}
}
