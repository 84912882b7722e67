package postgres_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// listFixture stores 30 deploys: d000 oldest, d029 newest, with groups of
// three sharing a creation time so that the id breaks ties.
func listFixture(t *testing.T) (*fixture, time.Time) {
	f := newFixture(t)
	base := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	envs := []string{"staging", "prod", "qa"}
	for i := range 30 {
		d := deployment(seqID(i), envs[i%3])
		d.CreatedAt = base.Add(time.Duration(i/3) * time.Minute)
		if i%5 == 0 {
			d.Requester = "token:bob"
		}
		if i%10 == 0 {
			d.Tenant = "other"
		}
		f.create(d)
		switch i % 4 {
		case 1:
			f.start(d.ID)
		case 2:
			if _, err := f.store.RequestCancel(f.ctx, d.ID, "token:ci"); err != nil {
				t.Fatal(err)
			}
		}
	}
	return f, base
}

// newest returns the IDs of the fixture's deploys that keep, newest first.
func newest(keep func(i int) bool) []string {
	var out []string
	for i := 29; i >= 0; i-- {
		if keep(i) {
			out = append(out, seqID(i))
		}
	}
	return out
}

func TestListFilters(t *testing.T) {
	f, base := listFixture(t)
	after, before := base.Add(2*time.Minute), base.Add(5*time.Minute)
	tests := []struct {
		name   string
		filter deploy.ListFilter
		want   []string
	}{
		{"all", deploy.ListFilter{}, newest(func(int) bool { return true })},
		{"tenant", deploy.ListFilter{Tenant: "other"}, newest(func(i int) bool { return i%10 == 0 })},
		{"environment", deploy.ListFilter{Application: "app", Environment: "prod"}, newest(func(i int) bool { return i%3 == 1 })},
		{"requester", deploy.ListFilter{Requester: "token:bob"}, newest(func(i int) bool { return i%5 == 0 })},
		{"states", deploy.ListFilter{States: []deploy.State{deploy.StatePending, deploy.StateCancelled}}, newest(func(i int) bool { return i%4 == 1 || i%4 == 2 })},
		{"active", deploy.ListFilter{ActiveOnly: true}, newest(func(i int) bool { return i%4 != 2 })},
		{"created window", deploy.ListFilter{CreatedAfter: &after, CreatedBefore: &before}, newest(func(i int) bool { return i/3 > 2 && i/3 < 5 })},
		{"readable", deploy.ListFilter{Readable: func(r deploy.Resource) bool { return r.Environment == "qa" }}, newest(func(i int) bool { return i%3 == 2 })},
		{"combined", deploy.ListFilter{Tenant: "demo", Environment: "staging", ActiveOnly: true}, newest(func(i int) bool { return i%3 == 0 && i%10 != 0 && i%4 != 2 })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := f.store.List(f.ctx, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(page.Items); !slices.Equal(got, tt.want) {
				t.Errorf("List = %v\nwant  %v", got, tt.want)
			}
			if page.HasNextPage {
				t.Errorf("HasNextPage on the only page")
			}
		})
	}
}

// Walking every page sees each deploy once, in order, with full pages
// (also when Readable hides most deploys) and ties on created_at broken by id.
func TestListPagination(t *testing.T) {
	f, _ := listFixture(t)
	tests := []struct {
		name     string
		first    int
		readable func(deploy.Resource) bool
		want     []string
	}{
		{"page of 7", 7, nil, newest(func(int) bool { return true })},
		{"page of 1", 1, nil, newest(func(int) bool { return true })},
		{"page of 30", 30, nil, newest(func(int) bool { return true })},
		{"readable page of 4", 4, func(r deploy.Resource) bool { return r.Environment == "prod" }, newest(func(i int) bool { return i%3 == 1 })},
		{"nothing readable", 5, func(deploy.Resource) bool { return false }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			cursor := ""
			for pages := 0; ; pages++ {
				if pages > 40 {
					t.Fatal("pagination does not end")
				}
				page, err := f.store.List(f.ctx, deploy.ListFilter{First: tt.first, After: cursor, Readable: tt.readable})
				if err != nil {
					t.Fatal(err)
				}
				if page.HasNextPage && len(page.Items) != tt.first {
					t.Errorf("page %d has %d items and a next page; want full pages of %d", pages, len(page.Items), tt.first)
				}
				for _, d := range page.Items {
					if len(d.Steps) != 0 || d.Plan.Steps == nil {
						t.Errorf("item %s: steps %v plan %v", d.ID, d.Steps, d.Plan)
					}
				}
				if n := len(page.Items); n > 0 && (len(page.Cursors) != n || page.Cursors[n-1] != page.EndCursor) {
					t.Errorf("page %d: %d cursors for %d items, last %q, end %q", pages, len(page.Cursors), n, page.Cursor(n-1), page.EndCursor)
				}
				got = append(got, ids(page.Items)...)
				if !page.HasNextPage {
					break
				}
				cursor = page.EndCursor
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("pages = %v\nwant    %v", got, tt.want)
			}
		})
	}
}

func TestListIncludesSteps(t *testing.T) {
	f := newFixture(t)
	f.pending("a", "staging")
	f.pending("b", "prod")
	f.begin(deploy.Step{DeploymentID: "b", Name: deploy.StepConfig})
	page, err := f.store.List(f.ctx, deploy.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string]int{}
	for _, d := range page.Items {
		steps[d.ID] = len(d.Steps)
	}
	if want := map[string]int{"a": 0, "b": 1}; !reflect.DeepEqual(steps, want) {
		t.Errorf("steps per deploy %v, want %v", steps, want)
	}
}

func TestListRejectsABadCursor(t *testing.T) {
	f := newFixture(t)
	for _, c := range []string{"%%%", "bm90LWEtY3Vyc29y"} {
		_, err := f.store.List(f.ctx, deploy.ListFilter{After: c})
		wantCode(t, err, deploy.EUNPROCESSABLE)
	}
}

// A page of the list carries what the status of each of its deploys shows
// (approvals, the states of dependencies), read in one query per kind for
// the whole page: the list and the deploy never disagree.
func TestListShowsWhatGetShows(t *testing.T) {
	f := newFixture(t)
	f.pending("db", "prod")
	f.ended(deployment("old", "qa"), deploy.Outcome{State: deploy.StateSuccess})
	waits := deployment("api", "prod")
	waits.State = deploy.StateWaitingDependency
	waits.Descriptor.After = []string{"db", "old", "gone"}
	f.create(waits)
	both := deployment("web", "prod")
	both.State = deploy.StateWaitingDependency
	both.Descriptor.After = []string{"old"}
	f.create(both)
	approval := deployment("gated", "prod")
	approval.State = deploy.StateAwaitingApproval
	approval.Decision.Approvals = &deploy.ApprovalRequirement{Count: 2}
	f.create(approval)
	if err := f.store.AddApproval(f.ctx, deploy.Approval{DeploymentID: "gated", Identity: "token:ops", Approved: true, Time: time.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	f.run(rolledOut("waves", "prod"))
	f.begin(deploy.Step{DeploymentID: "waves", Name: deploy.StepApproval, Pass: 2, Kind: deploy.KindRun, Type: "approval"})
	if err := f.exec(`INSERT INTO manent.approvals (deployment_id, pass, identity, approved, comment) VALUES ('waves', 2, 'token:ops', true, '')`); err != nil {
		t.Fatal(err)
	}
	page, err := f.store.List(f.ctx, deploy.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 6 {
		t.Fatalf("listed %v, want 6 deploys", ids(page.Items))
	}
	for i := range page.Items {
		listed := deploy.NewStatus(&page.Items[i])
		got := deploy.NewStatus(f.get(page.Items[i].ID))
		if !reflect.DeepEqual(listed, got) {
			t.Errorf("%s: the list shows\n%+v\nthe deploy\n%+v", got.ID, listed, got)
		}
	}
	for _, d := range page.Items {
		switch st := deploy.NewStatus(&d); d.ID {
		case "api":
			if st.After == nil || st.After.Status != "waiting" || len(st.After.Dependencies) != 3 ||
				st.After.Dependencies[0].State != deploy.StatePending || st.After.Dependencies[2].State != "" {
				t.Errorf("api after = %+v, want waiting on db PENDING, old SUCCESS, gone removed", st.After)
			}
		case "gated":
			if st.Approval == nil || len(st.Approval.Approvals) != 1 {
				t.Errorf("gated approval = %+v, want the one answer", st.Approval)
			}
		case "waves":
			if len(d.WaveApprovals) != 1 || d.WaveApprovals[0].Identity != "token:ops" {
				t.Errorf("the answers to the waves of waves = %+v, want ops's", d.WaveApprovals)
			}
		}
	}
}

// rolledOut is a deploy of app to env whose targets are rolled out in waves.
func rolledOut(id, env string) deploy.Deployment {
	d := deployment(id, env)
	d.Effective.Rollout = &deploy.RolloutSpec{}
	return d
}

// AwaitingApproval lists the deploys that await an approval now, their own
// or a wave's of their rollout, and none of those that run, wait for
// something else or asked one before.
func TestListAwaitingApproval(t *testing.T) {
	f := newFixture(t)
	own := deployment("own", "prod")
	own.State = deploy.StateAwaitingApproval
	own.Decision.Approvals = &deploy.ApprovalRequirement{Count: 1}
	f.create(own)
	f.run(rolledOut("wave", "qa"))
	f.begin(deploy.Step{DeploymentID: "wave", Name: deploy.StepApproval, Pass: 2, Kind: deploy.KindRun, Type: "approval"})
	f.run(rolledOut("passed", "staging"))
	f.begin(deploy.Step{DeploymentID: "passed", Name: deploy.StepApproval, Pass: 2, Kind: deploy.KindRun, Type: "approval"})
	if err := f.exec(`UPDATE manent.deployment_steps SET state = 'SUCCESS' WHERE deployment_id = 'passed'`); err != nil {
		t.Fatal(err)
	}
	f.pending("running", "dev")
	f.create(deployment("enqueued", "prod"))
	waits := deployment("waits", "prod")
	waits.State = deploy.StateWaitingDependency
	f.create(waits)

	page, err := f.store.List(f.ctx, deploy.ListFilter{AwaitingApproval: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(page.Items); !slices.Equal(got, []string{"wave", "own"}) {
		t.Errorf("List(AwaitingApproval) = %v, want [wave own]", got)
	}
	for _, d := range page.Items {
		if pass := d.WaveAwaitingApproval(); (d.ID == "wave") != (pass == 2) {
			t.Errorf("%s listed, its wave awaiting approval %d", d.ID, pass)
		}
	}
}
