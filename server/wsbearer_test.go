package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gorilla/websocket"

	"manent.dev/manent/deploy"
)

// expiring authenticates its token until refused is set: an OIDC token
// past its expiry, as the verifier then answers.
type expiring struct {
	refused atomic.Bool
	checks  chan struct{}
}

func (e *expiring) Authenticate(_ context.Context, token string) (deploy.Identity, error) {
	select {
	case e.checks <- struct{}{}:
	default:
	}
	if token != "good" || e.refused.Load() {
		return deploy.Identity{}, deploy.Errorf(deploy.EUNAUTHENTICATED, "the token has expired")
	}
	return deploy.Identity{Subject: "oidc:alice"}, nil
}

// TestWebsocketEndsWithItsToken: a websocket signed in with a bearer token
// closes once that token no longer authenticates, and stays open while it
// does.
func TestWebsocketEndsWithItsToken(t *testing.T) {
	auth := &expiring{checks: make(chan struct{}, 16)}
	a := &api{
		service: &fakeService{}, events: &fakeEvents{}, auth: auth,
		log:            slog.New(slog.NewTextHandler(io.Discard, nil)),
		spa:            fstest.MapFS{"index.html": {Data: []byte("<p>spa</p>")}},
		heartbeat:      time.Hour,
		sessionRecheck: 20 * time.Millisecond,
	}
	srv := httptest.NewServer(a.routes())
	t.Cleanup(srv.Close)
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: time.Minute}
	conn, resp, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", nil)
	if resp != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if err := conn.WriteJSON(wsMessage{Type: "connection_init", Payload: json.RawMessage(`{"token":"good"}`)}); err != nil {
		t.Fatal(err)
	}
	var ack wsMessage
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	if err := conn.ReadJSON(&ack); err != nil || ack.Type != "connection_ack" {
		t.Fatalf("connection_init: %+v %v", ack, err)
	}
	// Still open after several checks: a ping is answered.
	for range 4 { // connection_init's, then three checks
		select {
		case <-auth.checks:
		case <-time.After(time.Minute):
			t.Fatal("the token is not checked again")
		}
	}
	if err := conn.WriteJSON(wsMessage{Type: "ping"}); err != nil {
		t.Fatal(err)
	}
	var pong wsMessage
	if err := conn.ReadJSON(&pong); err != nil || pong.Type != "pong" {
		t.Fatalf("the socket of a valid token: %+v %v", pong, err)
	}
	auth.refused.Store(true)
	// The socket closes by itself; the deadline only bounds a failure.
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	for {
		var m wsMessage
		if err := conn.ReadJSON(&m); err != nil {
			var ne interface{ Timeout() bool }
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("the websocket of a refused token stayed open")
			}
			break
		}
	}
}
