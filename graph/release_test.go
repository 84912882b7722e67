package graph

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// releaseFakes are the release methods of fakeService.
type releaseFakes struct {
	submitRelease func(ctx context.Context, raw []byte) (*deploy.ReleaseSubmission, error)
	getRelease    func(ctx context.Context, id string) (*deploy.Release, error)
	listReleases  func(ctx context.Context, f deploy.ReleaseFilter) (deploy.ReleasePage, error)
	cancelRelease func(ctx context.Context, id string) (*deploy.Release, error)
	rollbackTo    func(ctx context.Context, r deploy.RollbackRequest) (*deploy.Submission, error)
}

func (f *releaseFakes) SubmitRelease(ctx context.Context, raw []byte) (*deploy.ReleaseSubmission, error) {
	if f.submitRelease == nil {
		return nil, errNotFaked
	}
	return f.submitRelease(ctx, raw)
}

func (f *releaseFakes) GetRelease(ctx context.Context, id string) (*deploy.Release, error) {
	if f.getRelease == nil {
		return nil, errNotFaked
	}
	return f.getRelease(ctx, id)
}

func (f *releaseFakes) ListReleases(ctx context.Context, lf deploy.ReleaseFilter) (deploy.ReleasePage, error) {
	if f.listReleases == nil {
		return deploy.ReleasePage{}, errNotFaked
	}
	return f.listReleases(ctx, lf)
}

func (f *releaseFakes) CancelRelease(ctx context.Context, id string) (*deploy.Release, error) {
	if f.cancelRelease == nil {
		return nil, errNotFaked
	}
	return f.cancelRelease(ctx, id)
}

func (f *releaseFakes) RollbackTo(ctx context.Context, r deploy.RollbackRequest) (*deploy.Submission, error) {
	if f.rollbackTo == nil {
		return nil, errNotFaked
	}
	return f.rollbackTo(ctx, r)
}

var releaseT0 = time.Date(2026, 10, 12, 9, 0, 0, 0, time.UTC)

func shopRelease() *deploy.Release {
	return &deploy.Release{
		ID: "shop-2026-10", Requester: "token:ci", OnFailure: "rollback", State: deploy.ReleaseError,
		CreatedAt: releaseT0, Error: "deploys did not succeed: api ended ERROR",
		Deploys: []deploy.ReleaseDeploy{
			{Name: "db", DeploymentID: "shop-2026-10.db", State: deploy.StateSuccess, After: nil,
				RollbackDeploymentID: "shop-2026-10.rollback.db", RollbackState: "SUCCESS"},
			{Name: "api", DeploymentID: "shop-2026-10.api", State: deploy.StateError, Error: "step deploy failed", After: []string{"db"}},
			{Name: "web", DeploymentID: "shop-2026-10.web", After: []string{"api"}},
		},
	}
}

func TestReleaseQuery(t *testing.T) {
	var gotID string
	svc := &fakeService{}
	svc.getRelease = func(_ context.Context, id string) (*deploy.Release, error) {
		gotID = id
		if id != "shop-2026-10" {
			return nil, deploy.Errorf(deploy.ENOTFOUND, "release %q not found", id)
		}
		return shopRelease(), nil
	}
	srv := newTestServer(t, svc, newFakeEvents())
	resp := srv.query(t, "ci", `{ release(id: "shop-2026-10") { id state onFailure requester createdAt finishedAt error
	  deploys { name deploymentId state error after rollbackState rollbackDeploymentId }
	  edges { from to } } }`, nil)
	if len(resp.Errors) > 0 || gotID != "shop-2026-10" {
		t.Fatalf("errors: %+v", resp.Errors)
	}
	want := `{"id":"shop-2026-10","state":"ERROR","onFailure":"rollback","requester":"token:ci","createdAt":"2026-10-12T09:00:00Z",` +
		`"finishedAt":null,"error":"deploys did not succeed: api ended ERROR","deploys":[` +
		`{"name":"db","deploymentId":"shop-2026-10.db","state":"SUCCESS","error":null,"after":[],"rollbackState":"SUCCESS","rollbackDeploymentId":"shop-2026-10.rollback.db"},` +
		`{"name":"api","deploymentId":"shop-2026-10.api","state":"ERROR","error":"step deploy failed","after":["db"],"rollbackState":null,"rollbackDeploymentId":null},` +
		`{"name":"web","deploymentId":"shop-2026-10.web","state":null,"error":null,"after":["api"],"rollbackState":null,"rollbackDeploymentId":null}],` +
		`"edges":[{"from":"db","to":"api"},{"from":"api","to":"web"}]}`
	if got := string(resp.Data["release"]); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// Not readable: null, as a deploy.
	resp = srv.query(t, "ci", `{ release(id: "other") { id } }`, nil)
	if got := string(resp.Data["release"]); got != "null" || len(resp.Errors) > 0 {
		t.Errorf("unreadable: %s %+v", got, resp.Errors)
	}
}

func TestReleaseMutations(t *testing.T) {
	svc := &fakeService{}
	var submitted string
	svc.submitRelease = func(_ context.Context, raw []byte) (*deploy.ReleaseSubmission, error) {
		submitted = string(raw)
		if strings.Contains(submitted, "bad") {
			return nil, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "release refused",
				Fields: []deploy.FieldError{{Path: "deploys[1]", Message: "no environment configuration"}}}
		}
		r := shopRelease()
		r.State = deploy.ReleasePending
		return &deploy.ReleaseSubmission{Release: *r, Created: true}, nil
	}
	var rb deploy.RollbackRequest
	svc.rollbackTo = func(_ context.Context, r deploy.RollbackRequest) (*deploy.Submission, error) {
		rb = r
		d := newDeployBoard().d
		d.ID = "hello-rb"
		return &deploy.Submission{Deployment: d, Created: true}, nil
	}
	srv := newTestServer(t, svc, newFakeEvents())
	resp := srv.query(t, "ci", `mutation($d: String!) { submitRelease(descriptor: $d) { id state } }`, map[string]any{"d": "kind: Release"})
	if got := string(resp.Data["submitRelease"]); got != `{"id":"shop-2026-10","state":"PENDING"}` || submitted != "kind: Release" {
		t.Fatalf("submit: %s %+v", got, resp.Errors)
	}
	resp = srv.query(t, "ci", `mutation { submitRelease(descriptor: "bad") { id } }`, nil)
	if len(resp.Errors) != 1 {
		t.Fatalf("refusal: %+v", resp.Errors)
	}
	ext, _ := json.Marshal(resp.Errors[0])
	if !strings.Contains(string(ext), "UNPROCESSABLE") || !strings.Contains(string(ext), "deploys[1]") {
		t.Fatalf("refusal error = %s", ext)
	}
	resp = srv.query(t, "ci", `mutation { rollback(application: "hello", environment: "prod", to: "hello-1") { id } }`, nil)
	if got := string(resp.Data["rollback"]); got != `{"id":"hello-rb"}` ||
		rb != (deploy.RollbackRequest{Application: "hello", Environment: "prod", To: "hello-1"}) {
		t.Fatalf("rollback: %s %+v %+v", got, rb, resp.Errors)
	}
}

// TestReleaseMemberFieldsAreTheMembersOwn: a member's deployment and its
// failed step come from the deploy of the member's ID only when a release
// created it; another deploy that took the ID (the release refused it as
// in use) is not the member, and its failure is not the release's.
func TestReleaseMemberFieldsAreTheMembersOwn(t *testing.T) {
	for _, tt := range []struct {
		name, release, want string
	}{
		{"the release's deploy", "shop-2026-10", `{"name":"api","failedStep":"deploy","deployment":{"id":"shop-2026-10.api"}}`},
		{"a deploy no release created", "", `{"name":"api","failedStep":null,"deployment":null}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			svc := &fakeService{}
			svc.getRelease = func(context.Context, string) (*deploy.Release, error) { return shopRelease(), nil }
			svc.get = func(_ context.Context, id string) (*deploy.Deployment, error) {
				if id != "shop-2026-10.api" {
					return nil, deploy.DeploymentNotFound(id)
				}
				d := newDeployBoard().d
				d.ID, d.State, d.Release = id, deploy.StateError, tt.release
				d.Steps = []deploy.Step{{DeploymentID: id, Name: deploy.StepDeploy, Kind: deploy.KindRun, Position: 1,
					Type: deploy.StepTypeStandard, State: deploy.StepError, Error: "boom"}}
				return &d, nil
			}
			srv := newTestServer(t, svc, newFakeEvents())
			resp := srv.query(t, "ci", `{ release(id: "shop-2026-10") { deploys { name failedStep deployment { id } } } }`, nil)
			if len(resp.Errors) > 0 {
				t.Fatalf("errors: %+v", resp.Errors)
			}
			var r struct{ Deploys []json.RawMessage }
			if err := json.Unmarshal(resp.Data["release"], &r); err != nil || len(r.Deploys) != 3 {
				t.Fatalf("release = %s", resp.Data["release"])
			}
			if got := string(r.Deploys[1]); got != tt.want {
				t.Errorf("api: got %s, want %s", got, tt.want)
			}
		})
	}
}
