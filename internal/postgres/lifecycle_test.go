package postgres_test

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"manent.dev/manent/deploy"
)

// The lifecycle is written twice, in deploy/lifecycle.go and in the
// migration that makes the database enforce it: the two must agree.
func TestLifecycleMatchesTheDatabase(t *testing.T) {
	f := newFixture(t)
	var transitions []string
	for _, s := range deploy.Initial {
		transitions = append(transitions, move("", s))
	}
	for _, m := range deploy.Transitions() {
		transitions = append(transitions, move(m[0], m[1]))
	}
	var states, kinds []string
	for _, s := range deploy.States {
		states = append(states, string(s))
	}
	for _, k := range deploy.StepKinds {
		kinds = append(kinds, string(k))
	}
	rollbacks := []string{"", deploy.RollbackCompleted, deploy.RollbackFailed, deploy.RollbackNotNeeded,
		deploy.RollbackDisabled, deploy.RollbackRunning}
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"states of manent.deployments", f.checkValues("manent.deployments", "deployments_state_check"), states},
		{"rows of manent.deployment_transitions", f.strings("SELECT from_state || '→' || to_state FROM manent.deployment_transitions"), transitions},
		{"kinds of manent.deployment_steps", f.checkValues("manent.deployment_steps", "deployment_steps_kind_check"), kinds},
		{"rollback outcomes of manent.deployments", f.checkValues("manent.deployments", "deployments_rollback_check"), rollbacks},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want := slices.Sorted(slices.Values(tt.got)), slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(got, want) {
				t.Errorf("database has\n%q\ndeploy has\n%q", got, want)
			}
		})
	}
}

func move(from, to deploy.State) string { return string(from) + "→" + string(to) }

var quoted = regexp.MustCompile(`'((?:[^']|'')*)'`)

// checkValues returns the literals of a CHECK (column IN (...)) constraint.
func (f *fixture) checkValues(table, constraint string) []string {
	f.t.Helper()
	var def string
	err := f.db.Bun().QueryRowContext(f.ctx, `SELECT pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conrelid = ?::regclass AND conname = ?`, table, constraint).Scan(&def)
	if err != nil {
		f.t.Fatalf("constraint %s of %s: %v", constraint, table, err)
	}
	var out []string
	for _, m := range quoted.FindAllStringSubmatch(def, -1) {
		out = append(out, m[1])
	}
	return out
}

func (f *fixture) strings(query string, args ...any) []string {
	f.t.Helper()
	var out []string
	if err := f.db.Bun().NewRaw(query, args...).Scan(f.ctx, &out); err != nil {
		f.t.Fatalf("%s: %v", query, err)
	}
	return out
}

// pathTo returns a shortest way through the lifecycle to s: an initial
// state, then the moves to s.
func pathTo(s deploy.State) []deploy.State {
	paths := map[deploy.State][]deploy.State{}
	var queue []deploy.State
	for _, i := range deploy.Initial {
		paths[i] = []deploy.State{i}
		queue = append(queue, i)
	}
	for len(queue) > 0 {
		from := queue[0]
		queue = queue[1:]
		for _, to := range deploy.States {
			if _, seen := paths[to]; !seen && deploy.CanTransition(from, to) {
				paths[to] = append(slices.Clone(paths[from]), to)
				queue = append(queue, to)
			}
		}
	}
	return paths[s]
}

// The trigger refuses every change of state the lifecycle does not list,
// with a check_violation, and changes nothing; it lets every listed one
// (and a state set to itself) through.
func TestTriggerEnforcesTheLifecycle(t *testing.T) {
	f := newFixture(t)
	insert := func(id string, state deploy.State) error {
		return f.exec(`INSERT INTO manent.deployments (id, application, environment, state) VALUES (?, 'app', 'env', ?)`, id, state)
	}
	update := func(id string, state deploy.State) error {
		return f.exec(`UPDATE manent.deployments SET state = ?, error = 'moved' WHERE id = ?`, state, id)
	}
	row := func(id string) string {
		var s string
		if err := f.db.Bun().QueryRowContext(f.ctx, `SELECT COALESCE((SELECT row_to_json(d)::text FROM manent.deployments AS d WHERE id = ?), '')`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	n := 0
	for _, to := range deploy.States {
		t.Run("create in "+string(to), func(t *testing.T) {
			n++
			id := fmt.Sprintf("c%d", n)
			err := insert(id, to)
			checkMove(t, err, slices.Contains(deploy.Initial, to))
			if exists := row(id) != ""; exists != slices.Contains(deploy.Initial, to) {
				t.Errorf("row stored: %v", exists)
			}
		})
	}
	for _, from := range deploy.States {
		path := pathTo(from)
		if path == nil {
			t.Errorf("%s cannot be reached from an initial state", from)
			continue
		}
		for _, to := range deploy.States {
			t.Run(move(from, to), func(t *testing.T) {
				n++
				id := fmt.Sprintf("u%d", n)
				if err := insert(id, path[0]); err != nil {
					t.Fatal(err)
				}
				for _, s := range path[1:] {
					if err := update(id, s); err != nil {
						t.Fatalf("walk to %s: %v", from, err)
					}
				}
				before := row(id)
				allowed := deploy.CanTransition(from, to) || from == to
				checkMove(t, update(id, to), allowed)
				if !allowed && row(id) != before {
					t.Errorf("a refused move changed the row:\nbefore %s\nafter  %s", before, row(id))
				}
			})
		}
	}
	// The store meets the same trigger: a deploy cannot be submitted in a
	// state it cannot start in, and nothing of the submission remains.
	d := deployment("done", "staging")
	d.State = deploy.StateSuccess
	_, _, err := f.store.CreateDeployment(f.ctx, d, func(any) error { return nil })
	checkMove(t, err, false)
	if row("done") != "" || f.audit("deployment.submit", "done") != 0 {
		t.Errorf("a refused submission left its row or its audit entry")
	}
}

// checkMove checks that err is nil for an allowed move and the trigger's
// check_violation for any other.
func checkMove(t *testing.T, err error, allowed bool) {
	t.Helper()
	var pgErr *pgconn.PgError
	switch {
	case allowed && err != nil:
		t.Errorf("allowed move refused: %v", err)
	case !allowed && (!errors.As(err, &pgErr) || pgErr.Code != "23514"):
		t.Errorf("move outside the lifecycle: %v, want a check_violation", err)
	}
}
