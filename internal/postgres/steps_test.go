package postgres_test

import (
	"fmt"
	"testing"

	"manent.dev/manent/deploy"
)

// CountRun counts one more process that starts an operation, on the record
// of that operation alone.
func TestCountRun(t *testing.T) {
	f := newFixture(t)
	f.pending("c", "staging")
	f.begin(*op("c", "checkpoint:deploy", ""))
	f.begin(*op("c", "deploy", ""))
	key := op("c", "deploy", "").Key()
	tests := []struct {
		name    string
		id      string
		key     deploy.StepKey
		want    int
		records []string
	}{
		{"a second process", "c", key, 2, []string{"checkpoint:deploy RUNNING 1", "deploy RUNNING 2"}},
		{"a third", "c", key, 3, []string{"checkpoint:deploy RUNNING 1", "deploy RUNNING 3"}},
		// A step begun before runs were recorded counts as the first run.
		{"no record", "c", op("c", "activation", "").Key(), 1, []string{"checkpoint:deploy RUNNING 1", "deploy RUNNING 3"}},
		{"unknown deploy", "nope", key, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := f.store.CountRun(f.ctx, tt.id, tt.key)
			if err != nil || n != tt.want {
				t.Fatalf("CountRun = %d, %v; want %d", n, err, tt.want)
			}
			if tt.id != "c" {
				return
			}
			if got := f.records("c"); fmt.Sprint(got) != fmt.Sprint(tt.records) {
				t.Errorf("records %q, want %q", got, tt.records)
			}
		})
	}
}
