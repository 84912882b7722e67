package graph

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"manent.dev/manent/deploy"
)

// wait bounds every read of a test: generous, since the machine is shared.
const wait = 20 * time.Second

// deployBoard is the state a fake Service reads: tests change it and then
// publish the event, as the store does in one transaction.
type deployBoard struct {
	mu       sync.Mutex
	d        deploy.Deployment
	lines    []deploy.LogLine
	readable bool
}

func newDeployBoard() *deployBoard {
	now := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	return &deployBoard{readable: true, d: deploy.Deployment{
		ID: "hello-1", Tenant: "demo", Application: "hello", Environment: "dev",
		State: deploy.StatePending, Requester: "token:ci", CreatedAt: now, UpdatedAt: now,
		Artifact: deploy.Artifact{Type: "tarball", Name: "hello", Version: "1.0.0", Source: "file:///a.tgz"},
		Plan: deploy.Plan{Steps: []deploy.PlannedStep{
			{Name: "config", Type: "standard"}, {Name: "deploy", Type: "standard"},
		}},
	}}
}

func (b *deployBoard) service() *fakeService {
	return &fakeService{
		get: func(_ context.Context, id string) (*deploy.Deployment, error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			if id != b.d.ID || !b.readable {
				return nil, deploy.Errorf(deploy.ENOTFOUND, "deployment %s not found", id)
			}
			d := b.d
			d.Steps = append([]deploy.Step(nil), b.d.Steps...)
			return &d, nil
		},
		logs: func(_ context.Context, id string, after int64, limit int) ([]deploy.LogLine, error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			var out []deploy.LogLine
			for _, l := range b.lines {
				if l.Seq > after && len(out) < limit {
					out = append(out, l)
				}
			}
			return out, nil
		},
	}
}

func (b *deployBoard) change(f func(d *deploy.Deployment)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(&b.d)
}

func (b *deployBoard) log(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lines = append(b.lines, deploy.LogLine{
		DeploymentID: b.d.ID, Seq: int64(len(b.lines) + 1), Time: time.Now(), Step: "deploy", Level: "info", Message: msg,
	})
}

// wsClient speaks graphql-transport-ws.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
}

type wsMessage struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

func dialWS(t *testing.T, srv *testServer, initPayload map[string]any) (*wsClient, error) {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: wait}
	conn, resp, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if resp != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	c := &wsClient{t: t, conn: conn}
	c.send(wsMessage{Type: "connection_init", Payload: mustJSON(initPayload)})
	m, err := c.read()
	if err != nil {
		return c, err
	}
	if m.Type != "connection_ack" {
		t.Fatalf("got %+v, want connection_ack", m)
	}
	return c, nil
}

func (c *wsClient) send(m wsMessage) {
	c.t.Helper()
	if err := c.conn.WriteJSON(m); err != nil {
		c.t.Fatal(err)
	}
}

func (c *wsClient) read() (wsMessage, error) {
	_ = c.conn.SetReadDeadline(time.Now().Add(wait))
	var m wsMessage
	err := c.conn.ReadJSON(&m)
	return m, err
}

// next returns the next "next" payload of subscription 1, or nil on
// "complete".
func (c *wsClient) next() *gqlResponse {
	c.t.Helper()
	m, err := c.read()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	switch m.Type {
	case "complete":
		return nil
	case "next":
		var r gqlResponse
		if err := json.Unmarshal(m.Payload, &r); err != nil {
			c.t.Fatal(err)
		}
		return &r
	default:
		c.t.Fatalf("unexpected message %s %s", m.Type, m.Payload)
		return nil
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

type eventData struct {
	DeploymentEvents struct {
		Kind       string `json:"kind"`
		Deployment struct {
			State  string `json:"state"`
			Status struct {
				State string `json:"state"`
				Steps []struct {
					Name, State string
				} `json:"steps"`
			} `json:"status"`
			Steps []struct {
				Name, State string
			} `json:"steps"`
		} `json:"deployment"`
		LogLines []struct {
			Seq     int    `json:"seq"`
			Message string `json:"message"`
		} `json:"logLines"`
	} `json:"deploymentEvents"`
}

func decodeEvent(t *testing.T, r *gqlResponse) eventData {
	t.Helper()
	if r == nil {
		t.Fatal("subscription completed early")
	}
	if len(r.Errors) > 0 {
		t.Fatalf("errors: %+v", r.Errors)
	}
	raw, _ := json.Marshal(r.Data)
	var ev eventData
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

const followQuery = `subscription($id: ID!, $after: Int) {
  deploymentEvents(id: $id, logsAfter: $after) {
    kind
    deployment { state steps { name state } status }
    logLines { seq message }
  }
}`

func TestDeploymentEventsSubscription(t *testing.T) {
	board := newDeployBoard()
	board.log("line one")
	board.log("line two")
	events := newFakeEvents()
	srv := newTestServer(t, board.service(), events)
	c, err := dialWS(t, srv, map[string]any{"Authorization": "Bearer ci"})
	if err != nil {
		t.Fatal(err)
	}
	c.send(wsMessage{Type: "subscribe", ID: "1", Payload: mustJSON(map[string]any{
		"query": followQuery, "variables": map[string]any{"id": "hello-1", "after": 1},
	})})

	ev := decodeEvent(t, c.next()).DeploymentEvents
	if ev.Kind != "snapshot" || ev.Deployment.State != "PENDING" {
		t.Fatalf("first event = %+v, want a PENDING snapshot", ev)
	}
	if len(ev.LogLines) != 1 || ev.LogLines[0].Message != "line two" {
		t.Errorf("snapshot lines = %+v, want the lines after 1", ev.LogLines)
	}
	if len(ev.Deployment.Steps) != 2 || ev.Deployment.Status.State != "PENDING" {
		t.Errorf("snapshot deployment = %+v", ev.Deployment)
	}

	started := time.Now()
	board.change(func(d *deploy.Deployment) {
		d.CurrentStep = "deploy"
		d.Steps = []deploy.Step{{Name: "config", Position: 0, State: deploy.StepSuccess, Attempts: 1},
			{Name: "deploy", Position: 1, State: deploy.StepRunning, Attempts: 1, StartedAt: &started}}
	})
	events.Publish(deploy.Event{Kind: deploy.EventStep, DeploymentID: "hello-1"})
	ev = decodeEvent(t, c.next()).DeploymentEvents
	if ev.Kind != "step" || ev.Deployment.Steps[1].State != "RUNNING" || len(ev.LogLines) != 0 {
		t.Fatalf("step event = %+v", ev)
	}

	board.log("unpacking")
	events.Publish(deploy.Event{Kind: deploy.EventLog, DeploymentID: "hello-1"})
	ev = decodeEvent(t, c.next()).DeploymentEvents
	if ev.Kind != "log" || len(ev.LogLines) != 1 || ev.LogLines[0].Seq != 3 {
		t.Fatalf("log event = %+v", ev)
	}

	// An event of another deploy reaches nobody here.
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "other"})

	board.change(func(d *deploy.Deployment) {
		d.State = deploy.StateSuccess
		d.Steps[1].State = deploy.StepSuccess
	})
	board.log("done")
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "hello-1"})
	ev = decodeEvent(t, c.next()).DeploymentEvents
	if ev.Kind != "state" || ev.Deployment.State != "SUCCESS" || ev.Deployment.Status.State != "SUCCESS" {
		t.Fatalf("final event = %+v", ev)
	}
	if len(ev.LogLines) != 1 || ev.LogLines[0].Message != "done" {
		t.Errorf("final lines = %+v", ev.LogLines)
	}
	if r := c.next(); r != nil {
		t.Fatalf("got %+v after SUCCESS, want complete", r)
	}
}

func TestDeploymentEventsEndsWhenReadAccessIsLost(t *testing.T) {
	board := newDeployBoard()
	events := newFakeEvents()
	srv := newTestServer(t, board.service(), events)
	c, err := dialWS(t, srv, map[string]any{"token": "ci", "Authorization": "Bearer ci"})
	if err != nil {
		t.Fatal(err)
	}
	c.send(wsMessage{Type: "subscribe", ID: "1", Payload: mustJSON(map[string]any{
		"query": followQuery, "variables": map[string]any{"id": "hello-1"},
	})})
	if ev := decodeEvent(t, c.next()).DeploymentEvents; ev.Kind != "snapshot" {
		t.Fatalf("first event = %+v", ev)
	}
	board.mu.Lock()
	board.readable = false
	board.mu.Unlock()
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "hello-1"})
	if r := c.next(); r != nil {
		t.Fatalf("got %+v, want complete", r)
	}
}

func TestDeploymentEventsUnknownDeploy(t *testing.T) {
	board := newDeployBoard()
	srv := newTestServer(t, board.service(), newFakeEvents())
	c, err := dialWS(t, srv, map[string]any{"Authorization": "Bearer ci"})
	if err != nil {
		t.Fatal(err)
	}
	c.send(wsMessage{Type: "subscribe", ID: "1", Payload: mustJSON(map[string]any{
		"query": followQuery, "variables": map[string]any{"id": "nope"},
	})})
	// gqlgen sends a resolver's error as a "next" with errors, then completes.
	r := c.next()
	if r == nil || len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != "NOT_FOUND" {
		t.Fatalf("got %+v, want an error with code NOT_FOUND", r)
	}
	if r := c.next(); r != nil {
		t.Fatalf("got %+v, want complete", r)
	}
}

func TestWebsocketRefusesAConnectionWithoutIdentity(t *testing.T) {
	srv := newTestServer(t, newDeployBoard().service(), newFakeEvents())
	_, err := dialWS(t, srv, map[string]any{"Authorization": "Bearer wrong"})
	if !websocket.IsCloseError(err, 4403) {
		t.Fatalf("err = %v, want close 4403", err)
	}
}
