package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"

	"manent.dev/manent/deploy"
)

// fakeService is a func-field fake of deploy.Service: a test sets the
// methods it needs; the others fail as an internal error would.
type fakeService struct {
	submit    func(ctx context.Context, descriptor []byte, opts deploy.SubmitOptions) (*deploy.Submission, error)
	cancel    func(ctx context.Context, id string) (*deploy.Deployment, error)
	get       func(ctx context.Context, id string) (*deploy.Deployment, error)
	list      func(ctx context.Context, f deploy.ListFilter) (deploy.Page, error)
	logs      func(ctx context.Context, id string, after int64, limit int) ([]deploy.LogLine, error)
	inventory func(ctx context.Context) ([]deploy.InventoryEntry, error)
	can       func(ctx context.Context, res deploy.Resource, perm string) bool
	hasRole   func(ctx context.Context, tenant, role string) bool
	approve   func(ctx context.Context, id, comment string) (*deploy.Deployment, error)
	reject    func(ctx context.Context, id, comment string) (*deploy.Deployment, error)
	pending   func(ctx context.Context) ([]deploy.Deployment, error)
	freezes   func(ctx context.Context, res deploy.Resource, from, to time.Time) ([]deploy.FreezeWindow, error)
	calendars func(ctx context.Context, envs []deploy.Resource, from, to time.Time) ([]deploy.EnvironmentFreezes, error)
	// rolloutFakes: pause, resume and abort (rollout_test.go).
	rolloutFakes
	// releaseFakes: the release methods (release_test.go).
	releaseFakes
	// scheduleFakes: the recurring schedule methods (schedule_test.go).
	scheduleFakes
	listAudit func(ctx context.Context, f deploy.AuditFilter) (deploy.AuditPage, error)
	// environment answers Environment (the approval context reads it).
	environment func(ctx context.Context, res deploy.Resource) (*deploy.InventoryEntry, error)
	replay      func(ctx context.Context, id, deliveryID string, disabled bool) ([]deploy.Delivery, error)
}

func (f *fakeService) ReplayCallbacks(ctx context.Context, id, deliveryID string, disabled bool) ([]deploy.Delivery, error) {
	if f.replay == nil {
		return nil, errNotFaked
	}
	return f.replay(ctx, id, deliveryID, disabled)
}

func (f *fakeService) ListAudit(ctx context.Context, filter deploy.AuditFilter) (deploy.AuditPage, error) {
	if f.listAudit == nil {
		return deploy.AuditPage{}, errNotFaked
	}
	return f.listAudit(ctx, filter)
}

var errNotFaked = errors.New("fake: method not set by the test")

func (f *fakeService) Submit(ctx context.Context, descriptor []byte, opts deploy.SubmitOptions) (*deploy.Submission, error) {
	if f.submit == nil {
		return nil, errNotFaked
	}
	return f.submit(ctx, descriptor, opts)
}

func (f *fakeService) Cancel(ctx context.Context, id string) (*deploy.Deployment, error) {
	if f.cancel == nil {
		return nil, errNotFaked
	}
	return f.cancel(ctx, id)
}

func (f *fakeService) Get(ctx context.Context, id string) (*deploy.Deployment, error) {
	if f.get == nil {
		return nil, errNotFaked
	}
	return f.get(ctx, id)
}

func (f *fakeService) List(ctx context.Context, lf deploy.ListFilter) (deploy.Page, error) {
	if f.list == nil {
		return deploy.Page{}, errNotFaked
	}
	return f.list(ctx, lf)
}

func (f *fakeService) Logs(ctx context.Context, id string, after int64, limit int) ([]deploy.LogLine, error) {
	if f.logs == nil {
		return nil, nil
	}
	return f.logs(ctx, id, after, limit)
}

func (f *fakeService) Inventory(ctx context.Context) ([]deploy.InventoryEntry, error) {
	if f.inventory == nil {
		return nil, errNotFaked
	}
	return f.inventory(ctx)
}

func (f *fakeService) Can(ctx context.Context, res deploy.Resource, perm string) bool {
	return f.can != nil && f.can(ctx, res, perm)
}

func (f *fakeService) HasRole(ctx context.Context, tenant, role string) bool {
	return f.hasRole != nil && f.hasRole(ctx, tenant, role)
}

func (f *fakeService) Approve(ctx context.Context, id, comment string) (*deploy.Deployment, error) {
	if f.approve == nil {
		return nil, errNotFaked
	}
	return f.approve(ctx, id, comment)
}

func (f *fakeService) Reject(ctx context.Context, id, comment string) (*deploy.Deployment, error) {
	if f.reject == nil {
		return nil, errNotFaked
	}
	return f.reject(ctx, id, comment)
}

func (f *fakeService) PendingApprovals(ctx context.Context) ([]deploy.Deployment, error) {
	if f.pending == nil {
		return nil, errNotFaked
	}
	return f.pending(ctx)
}

func (f *fakeService) FreezeCalendar(ctx context.Context, res deploy.Resource, from, to time.Time) ([]deploy.FreezeWindow, error) {
	if f.freezes == nil {
		return nil, errNotFaked
	}
	return f.freezes(ctx, res, from, to)
}

func (f *fakeService) FreezeCalendars(ctx context.Context, envs []deploy.Resource, from, to time.Time) ([]deploy.EnvironmentFreezes, error) {
	if f.calendars == nil {
		return nil, errNotFaked
	}
	return f.calendars(ctx, envs, from, to)
}

// fakeEvents is an in-process deploy.Events: Publish reaches every current
// subscriber of the deploy, without blocking, as the real fan-out does.
type fakeEvents struct {
	mu   sync.Mutex
	subs map[chan deploy.Event]string
}

func newFakeEvents() *fakeEvents {
	return &fakeEvents{subs: map[chan deploy.Event]string{}}
}

func (f *fakeEvents) Subscribe(ctx context.Context, id string) <-chan deploy.Event {
	ch := make(chan deploy.Event, 16)
	f.mu.Lock()
	f.subs[ch] = id
	f.mu.Unlock()
	go func() {
		<-ctx.Done()
		f.mu.Lock()
		delete(f.subs, ch)
		f.mu.Unlock()
		close(ch)
	}()
	return ch
}

func (f *fakeEvents) Publish(e deploy.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch, id := range f.subs {
		if id != "" && id != e.DeploymentID {
			continue
		}
		select {
		case ch <- e:
		default:
		}
	}
}

// testIdentities are the bearer tokens the test server accepts.
var testIdentities = map[string]deploy.Identity{
	"ci":     {Subject: "token:ci"},
	"viewer": {Subject: "token:viewer", Groups: []string{"viewers"}},
	"admin":  {Subject: "token:admin", Groups: []string{"admins"}},
	// demo-admin is an administrator of the default tenant alone.
	"demo-admin": {Subject: "token:demo-admin"},
}

func tokenIdentity(header string) (deploy.Identity, bool) {
	id, ok := testIdentities[strings.TrimPrefix(header, "Bearer ")]
	return id, ok
}

type testServer struct {
	*httptest.Server
	logs *syncBuffer
}

// newTestServer serves NewHandler with a minimal bearer authentication, the
// way the server package composes it.
func newTestServer(t *testing.T, svc deploy.Service, events deploy.Events, tweak ...func(*HandlerOptions)) *testServer {
	t.Helper()
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	opts := HandlerOptions{
		Resolver: &Resolver{Service: svc, Events: events, Logger: log},
		Logger:   log,
		InitFunc: func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			id, ok := tokenIdentity(p.Authorization())
			if !ok {
				ctx = transport.WithWebsocketCloseCode(ctx, 4403)
				return ctx, nil, errors.New("UNAUTHENTICATED")
			}
			return deploy.WithIdentity(ctx, id), nil, nil
		},
	}
	for _, f := range tweak {
		f(&opts)
	}
	h := NewHandler(opts)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id, ok := tokenIdentity(r.Header.Get("Authorization")); ok {
			r = r.WithContext(deploy.WithIdentity(r.Context(), id))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return &testServer{Server: srv, logs: logs}
}

type gqlResponse struct {
	Data   map[string]json.RawMessage `json:"data"`
	Errors []gqlError                 `json:"errors"`
}

type gqlError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

func (s *testServer) query(t *testing.T, token, query string, vars map[string]any) gqlResponse {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, s.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out gqlResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return out
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// The promotion methods, and the affordances the tests do not fake, answer
// as a service with nothing to offer.

func (f *fakeService) Environment(ctx context.Context, res deploy.Resource) (*deploy.InventoryEntry, error) {
	if f.environment == nil {
		return nil, errNotFaked
	}
	return f.environment(ctx, res)
}

func (f *fakeService) Holders(context.Context, deploy.Resource, string) []string { return nil }

func (f *fakeService) Promote(context.Context, deploy.PromoteRequest) (*deploy.Submission, error) {
	return nil, errNotFaked
}

func (f *fakeService) Redeploy(context.Context, deploy.RedeployRequest) (*deploy.Submission, error) {
	return nil, errNotFaked
}

func (f *fakeService) MayPromote(context.Context, *deploy.Deployment, string) error {
	return errNotFaked
}

func (f *fakeService) PromotionTargets(context.Context, *deploy.Deployment) ([]string, error) {
	return nil, errNotFaked
}

func (f *fakeService) MayRedeploy(context.Context, *deploy.Deployment) error { return errNotFaked }

func (f *fakeService) MayRollBackTo(context.Context, deploy.RollbackRequest) error {
	return errNotFaked
}

func (f *fakeService) Rollbacks(context.Context, deploy.Resource) deploy.RollbackChoice {
	return noRollbacks{}
}

// noRollbacks is an environment nothing can be rolled back to.
type noRollbacks struct{}

func (noRollbacks) Default() (string, error)    { return "", errNotFaked }
func (noRollbacks) To(*deploy.Deployment) error { return errNotFaked }

func (f *fakeService) MayCancelRelease(context.Context, string) error { return errNotFaked }

func (f *fakeService) MayDeleteSchedule(context.Context, string) error { return errNotFaked }
