package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
	"manent.dev/manent/deploy"
)

func event(kind string, d client.DeploymentDetail, lines ...client.LogLineDetail) map[string]any {
	return map[string]any{"deploymentEvents": map[string]any{"kind": kind, "deployment": d, "logLines": lines}}
}

func line(seq int, msg string) client.LogLineDetail {
	return client.LogLineDetail{Seq: seq, Time: time.Unix(int64(seq), 0).UTC(), Step: "deploy", Level: "info", Message: msg}
}

// recorder collects what Follow delivers.
type recorder struct {
	mu     sync.Mutex
	states []client.DeploymentState
	lines  []int
}

func (r *recorder) onEvent(e client.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states = append(r.states, e.Deployment.State)
	for _, l := range e.LogLines {
		r.lines = append(r.lines, l.Seq)
	}
	return nil
}

func TestFollowUntilTerminal(t *testing.T) {
	srv := clienttest.New(t)
	srv.Token = "tok"
	srv.HandleSubscription("DeploymentEvents", func(ctx context.Context, r clienttest.Request, s *clienttest.Stream) error {
		steps := []client.StepDetail{{Name: "deploy", State: client.StepStateRunning, Attempts: 1}}
		for _, ev := range []map[string]any{
			event("deployment", detail("d1", client.DeploymentStatePending, steps...)),
			event("log", detail("d1", client.DeploymentStatePending, steps...), line(1, "a"), line(2, "b")),
			event("step", detail("d1", client.DeploymentStateSuccess), line(2, "b"), line(3, "c")),
		} {
			if err := s.Next(ev); err != nil {
				return err
			}
		}
		return nil
	})
	var rec recorder
	final, err := client.New(srv.URL, "tok").Follow(testContext(t), "d1", rec.onEvent)
	if err != nil {
		t.Fatal(err)
	}
	if final.State != client.DeploymentStateSuccess {
		t.Fatalf("final state %s", final.State)
	}
	if want := []int{1, 2, 3}; !equal(rec.lines, want) {
		t.Fatalf("lines %v, want %v (each once)", rec.lines, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Authorization != "Bearer tok" || reqs[0].Variables["id"] != "d1" {
		t.Fatalf("subscriptions %+v", reqs)
	}
}

func TestFollowReconnectsWithLogsAfter(t *testing.T) {
	srv := clienttest.New(t)
	srv.HandleSubscription("DeploymentEvents", func(ctx context.Context, r clienttest.Request, s *clienttest.Stream) error {
		after := clienttest.Int(r.Variables["logsAfter"])
		if after == 0 {
			// The first connection dies in the middle of the deploy.
			if err := s.Next(event("log", detail("d1", client.DeploymentStatePending), line(1, "a"), line(2, "b"))); err != nil {
				return err
			}
			return clienttest.ErrDrop
		}
		// A server may resend what it is unsure the client saw.
		return s.Next(event("deployment", detail("d1", client.DeploymentStateError), line(2, "b"), line(3, "c")))
	})
	var rec recorder
	var reconnects []error
	final, err := client.New(srv.URL, "").Follow(testContext(t), "d1", rec.onEvent,
		client.OnReconnect(func(_ int, err error) { reconnects = append(reconnects, err) }))
	if err != nil {
		t.Fatal(err)
	}
	if final.State != client.DeploymentStateError {
		t.Fatalf("final state %s", final.State)
	}
	var u *client.UnreachableError
	if len(reconnects) != 1 || !errors.As(reconnects[0], &u) || u.Reason() != "the connection was closed by the server" {
		t.Fatalf("reconnects %v, want one after an UnreachableError", reconnects)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || clienttest.Int(reqs[1].Variables["logsAfter"]) != 2 {
		t.Fatalf("subscriptions %+v, want the second with logsAfter 2", reqs)
	}
	if want := []int{1, 2, 3}; !equal(rec.lines, want) {
		t.Fatalf("lines %v, want %v", rec.lines, want)
	}
}

func TestFollowStartsAfterLogsAfter(t *testing.T) {
	srv := clienttest.New(t)
	srv.HandleSubscription("DeploymentEvents", func(ctx context.Context, r clienttest.Request, s *clienttest.Stream) error {
		return s.Next(event("log", detail("d1", client.DeploymentStateSuccess), line(4, "x"), line(5, "y")))
	})
	var rec recorder
	if _, err := client.New(srv.URL, "").Follow(testContext(t), "d1", rec.onEvent, client.LogsAfter(4)); err != nil {
		t.Fatal(err)
	}
	if clienttest.Int(srv.Requests()[0].Variables["logsAfter"]) != 4 || !equal(rec.lines, []int{5}) {
		t.Fatalf("lines %v", rec.lines)
	}
}

func TestFollowErrors(t *testing.T) {
	tests := []struct {
		name      string
		token     string
		closeCode int
		closeText string
		sub       clienttest.SubFunc
		want      deploy.Code
	}{
		{
			name: "error message",
			sub: func(context.Context, clienttest.Request, *clienttest.Stream) error {
				return &clienttest.Error{Message: "deployment d1 not found", Code: "NOT_FOUND"}
			},
			want: deploy.ENOTFOUND,
		},
		{
			name: "next with errors",
			sub: func(_ context.Context, _ clienttest.Request, s *clienttest.Stream) error {
				return s.Errors(&clienttest.Error{Message: "no", Code: "FORBIDDEN"})
			},
			want: deploy.EFORBIDDEN,
		},
		{name: "init refused with 4403", token: "wrong", want: deploy.EFORBIDDEN},
		{name: "init refused with 4401", token: "wrong", closeCode: 4401, closeText: "bad token", want: deploy.EUNAUTHENTICATED},
		{name: "init refused with a code in the reason", token: "wrong", closeCode: 4400, closeText: "UNAUTHENTICATED: unknown token", want: deploy.EUNAUTHENTICATED},
		// A close that says nothing: the client asks over HTTP why.
		{name: "init refused silently", token: "wrong", closeCode: 1000, closeText: "terminated", want: deploy.EUNAUTHENTICATED},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t)
			srv.Token = "right"
			srv.InitCloseCode, srv.InitCloseReason = tt.closeCode, tt.closeText
			srv.Handle("GetViewer", func(clienttest.Request) (any, *clienttest.Error) {
				return map[string]any{"viewer": map[string]any{"subject": "token:x", "groups": []string{}}}, nil
			})
			if tt.sub != nil {
				srv.HandleSubscription("DeploymentEvents", tt.sub)
			}
			token := tt.token
			if token == "" {
				token = "right"
			}
			var rec recorder
			_, err := client.New(srv.URL, token).Follow(testContext(t), "d1", rec.onEvent,
				client.OnReconnect(func(_ int, err error) { t.Errorf("reconnect after a final error: %v", err) }))
			if client.Code(err) != tt.want {
				t.Fatalf("err = %T %v, want code %s", err, err, tt.want)
			}
		})
	}
}

func TestFollowCallbackErrorStops(t *testing.T) {
	srv := clienttest.New(t)
	srv.HandleSubscription("DeploymentEvents", func(ctx context.Context, _ clienttest.Request, s *clienttest.Stream) error {
		if err := s.Next(event("deployment", detail("d1", client.DeploymentStatePending))); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	})
	stop := errors.New("stop")
	_, err := client.New(srv.URL, "").Follow(testContext(t), "d1", func(client.Event) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the callback's", err)
	}
}

func TestFollowContextEnds(t *testing.T) {
	srv := clienttest.New(t)
	started := make(chan struct{})
	srv.HandleSubscription("DeploymentEvents", func(ctx context.Context, _ clienttest.Request, s *clienttest.Stream) error {
		if err := s.Next(event("deployment", detail("d1", client.DeploymentStatePending))); err != nil {
			return err
		}
		close(started)
		<-ctx.Done()
		return nil
	})
	ctx, cancel := context.WithCancel(testContext(t))
	go func() { <-started; cancel() }()
	_, err := client.New(srv.URL, "").Follow(ctx, "d1", func(client.Event) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestFollowAnswersPings(t *testing.T) {
	srv := clienttest.New(t)
	srv.PingAfterAck = true
	srv.HandleSubscription("DeploymentEvents", func(ctx context.Context, _ clienttest.Request, s *clienttest.Stream) error {
		select {
		case <-srv.Pongs:
		case <-ctx.Done():
			return ctx.Err()
		}
		return s.Next(event("deployment", detail("d1", client.DeploymentStateSuccess)))
	})
	if _, err := client.New(srv.URL, "").Follow(testContext(t), "d1", func(client.Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

func TestFollowGivesUpAfterTheWindow(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	addr := dead.URL
	dead.Close()
	c := client.New(addr, "", client.WithReconnectWindow(300*time.Millisecond))
	_, err := c.Follow(testContext(t), "d1", func(client.Event) error { return nil })
	var u *client.UnreachableError
	if !errors.As(err, &u) {
		t.Fatalf("err = %T %v, want *UnreachableError", err, err)
	}
}

// A server that acknowledges and then goes silent (a half-open connection)
// is noticed by the keep-alive, not waited on forever.
func TestFollowDetectsASilentServer(t *testing.T) {
	up := websocket.Upgrader{Subprotocols: []string{"graphql-transport-ws"}}
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer func() { _ = c.Close() }()
		var init map[string]any
		if c.ReadJSON(&init) != nil {
			return
		}
		_ = c.WriteJSON(map[string]string{"type": "connection_ack"})
		<-hold // never reads again, so never answers a ping
	}))
	t.Cleanup(func() { close(hold); srv.Close() })
	c := client.New(srv.URL, "", client.WithKeepAlive(50*time.Millisecond), client.WithReconnectWindow(0))
	_, err := c.Follow(testContext(t), "d1", func(client.Event) error { return nil })
	var u *client.UnreachableError
	var ne net.Error
	if !errors.As(err, &u) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("err = %T %v, want an UnreachableError from a read timeout", err, err)
	}
}

func TestWatchActivity(t *testing.T) {
	srv := clienttest.New(t)
	srv.HandleSubscription("ActivityEvents", func(ctx context.Context, _ clienttest.Request, s *clienttest.Stream) error {
		for _, st := range []string{"ENQUEUED", "PENDING"} {
			err := s.Next(map[string]any{"activity": map[string]any{"kind": "deployment",
				"deployment": map[string]any{"id": "d1", "state": st}}})
			if err != nil {
				return err
			}
		}
		<-ctx.Done()
		return nil
	})
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	var got []client.DeploymentState
	err := client.New(srv.URL, "").WatchActivity(ctx, func(e client.ActivityEvent) error {
		got = append(got, e.Deployment.State)
		if len(got) == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || len(got) != 2 || got[1] != client.DeploymentStatePending {
		t.Fatalf("err = %v, got %v", err, got)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// manent's server sends the final state with the first page of a long log,
// then the rest of the log, then completes: all of it is delivered.
func TestFollowReadsTheLogAfterTheFinalState(t *testing.T) {
	srv := clienttest.New(t)
	srv.HandleSubscription("DeploymentEvents", func(ctx context.Context, _ clienttest.Request, s *clienttest.Stream) error {
		final := detail("d1", client.DeploymentStateSuccess)
		if err := s.Next(event("state", final, line(1, "a"))); err != nil {
			return err
		}
		return s.Next(event("log", final, line(2, "b"), line(3, "c")))
	})
	var rec recorder
	if _, err := client.New(srv.URL, "").Follow(testContext(t), "d1", rec.onEvent); err != nil {
		t.Fatal(err)
	}
	if !equal(rec.lines, []int{1, 2, 3}) {
		t.Fatalf("lines %v", rec.lines)
	}
}

func TestEndpoints(t *testing.T) {
	srv := clienttest.New(t)
	srv.Handle("GetViewer", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"viewer": map[string]any{"subject": "token:x", "groups": []string{}}}, nil
	})
	host := srv.Listener.Addr().String()
	// Every spelling of the address reaches /graphql; Server() is what the
	// user typed, normalised.
	for addr, want := range map[string]string{
		srv.URL:              srv.URL,
		srv.URL + "/":        srv.URL,
		srv.URL + "/graphql": srv.URL + "/graphql",
		host:                 srv.URL,
		" " + srv.URL + " ":  srv.URL,
	} {
		c := client.New(addr, "")
		if _, err := c.Viewer(testContext(t)); err != nil {
			t.Errorf("%q: %v", addr, err)
		}
		if c.Server() != want {
			t.Errorf("%q: Server() = %q, want %q", addr, c.Server(), want)
		}
	}
	if got := client.New("http://user:pw@example.test:1", "").Server(); got != "http://example.test:1" {
		t.Errorf("userinfo kept: %q", got)
	}
}
