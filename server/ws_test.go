package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

type wsMessage struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

func dial(t *testing.T, srv *Server, header http.Header, init map[string]any) (*websocket.Conn, error) {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: time.Minute}
	conn, resp, err := d.Dial("ws"+strings.TrimPrefix(srv.URL(), "http")+"/graphql", header)
	if resp != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("dial: %w (status %d)", err, resp.StatusCode)
		}
		return nil, err
	}
	t.Cleanup(func() { _ = conn.Close() })
	payload, _ := json.Marshal(init)
	if err := conn.WriteJSON(wsMessage{Type: "connection_init", Payload: payload}); err != nil {
		t.Fatal(err)
	}
	var ack wsMessage
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	if err := conn.ReadJSON(&ack); err != nil {
		return nil, err
	}
	if ack.Type != "connection_ack" {
		t.Fatalf("got %+v, want connection_ack", ack)
	}
	return conn, nil
}

func TestGraphQLSubscriptionFollowsADeploy(t *testing.T) {
	configPath, _ := demoConfig(t)
	srv := startServer(t, configPath)
	resp, body := request(t, "POST", srv.URL()+"/api/v1/deployments", demoTokens["ci"], fmt.Sprintf(helloDescriptor, "hello-ws-1"))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: %d %s", resp.StatusCode, body)
	}
	conn, err := dial(t, srv, nil, map[string]any{"token": demoTokens["viewer"]})
	if err != nil {
		t.Fatal(err)
	}
	sub, _ := json.Marshal(map[string]any{"query": `subscription { deploymentEvents(id: "hello-ws-1") { kind deployment { state } logLines { seq } } }`})
	if err := conn.WriteJSON(wsMessage{Type: "subscribe", ID: "1", Payload: sub}); err != nil {
		t.Fatal(err)
	}
	var kinds, states []string
	for {
		var m wsMessage
		_ = conn.SetReadDeadline(time.Now().Add(2 * time.Minute))
		if err := conn.ReadJSON(&m); err != nil {
			t.Fatalf("read: %v (states so far %v)", err, states)
		}
		if m.Type == "complete" {
			break
		}
		var ev struct {
			Data struct {
				DeploymentEvents struct {
					Kind       string
					Deployment struct{ State string }
				}
			}
			Errors []any
		}
		if m.Type != "next" || json.Unmarshal(m.Payload, &ev) != nil || len(ev.Errors) > 0 {
			t.Fatalf("unexpected message %s %s", m.Type, m.Payload)
		}
		kinds = append(kinds, ev.Data.DeploymentEvents.Kind)
		states = append(states, ev.Data.DeploymentEvents.Deployment.State)
	}
	if len(kinds) == 0 || kinds[0] != "snapshot" || states[len(states)-1] != "SUCCESS" {
		t.Fatalf("kinds %v states %v, want a snapshot first and SUCCESS last", kinds, states)
	}
}

func TestWebsocketRefusals(t *testing.T) {
	configPath, _ := demoConfig(t)
	srv := startServer(t, configPath)
	if _, err := dial(t, srv, nil, map[string]any{"Authorization": "Bearer nope"}); !websocket.IsCloseError(err, closeForbidden) {
		t.Errorf("unknown token: %v, want close %d", err, closeForbidden)
	}
	if _, err := dial(t, srv, nil, nil); !websocket.IsCloseError(err, closeForbidden) {
		t.Errorf("no credentials: %v, want close %d", err, closeForbidden)
	}
	_, err := dial(t, srv, http.Header{"Origin": {"https://evil.example.com"}}, map[string]any{"token": demoTokens["ci"]})
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("foreign origin: %v, want a 403", err)
	}
	// The identity may also come from the upgrade request's header.
	if _, err := dial(t, srv, http.Header{"Authorization": {"Bearer " + demoTokens["ci"]}}, map[string]any{}); err != nil {
		t.Errorf("header authentication: %v", err)
	}
}
