package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/Khan/genqlient/graphql"
	"github.com/gorilla/websocket"

	"manent.dev/manent/deploy"
)

// Close codes a server uses to refuse connection_init (graphql-transport-ws
// uses 4403; 4401 is the common spelling of "no or bad credentials").
const (
	closeUnauthorized = 4401
	closeForbidden    = 4403
)

// wsDialer gives genqlient's websocket client a gorilla connection wrapped
// in wsConn, and keeps it so the session can close it: genqlient's own
// Close does not survive a subscription the server already completed.
type wsDialer struct {
	c    *Client
	conn *wsConn
}

func (d *wsDialer) DialContext(ctx context.Context, urlStr string, header http.Header) (graphql.WSConn, error) {
	if d.c.userAgent != "" {
		header.Set("User-Agent", d.c.userAgent)
	}
	conn, resp, err := d.c.dialer.DialContext(ctx, urlStr, header)
	if resp != nil {
		// gorilla has already read what it keeps of the handshake's body;
		// closing it frees nothing today, and keeps it so if that changes.
		_ = resp.Body.Close()
	}
	if err != nil {
		if resp != nil {
			return nil, d.c.httpStatusError(resp.StatusCode, nil)
		}
		return nil, d.c.mapError(ctx, err)
	}
	w := &wsConn{conn: conn, keepAlive: d.c.keepAlive, done: make(chan struct{})}
	w.extendDeadline()
	// Reads have no context: closing the connection is what unblocks them
	// when the caller gives up. The session's context always ends, so the
	// registration never outlives it.
	context.AfterFunc(ctx, func() { _ = w.Close() })
	d.conn = w
	return w, nil
}

// wsConn adapts graphql-transport-ws to what genqlient v0.8 understands: it
// answers pings, drops pongs, turns an "error" message (which ends a
// subscription) into a "next" carrying the errors followed by a "complete",
// and pings the server so a dead peer is noticed.
type wsConn struct {
	conn      *websocket.Conn
	keepAlive time.Duration

	writeMu sync.Mutex
	// pending holds messages to hand genqlient before reading the socket;
	// only the single reader goroutine touches it.
	pending [][]byte
	// acked is set once connection_ack arrived; a close before it is a
	// refusal of connection_init, not a network failure.
	acked     bool
	closeOnce sync.Once
	done      chan struct{}
}

type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

func (w *wsConn) extendDeadline() {
	_ = w.conn.SetReadDeadline(time.Now().Add(3 * w.keepAlive))
}

func (w *wsConn) ReadMessage() (int, []byte, error) {
	if len(w.pending) > 0 {
		m := w.pending[0]
		w.pending = w.pending[1:]
		return websocket.TextMessage, m, nil
	}
	for {
		t, data, err := w.conn.ReadMessage()
		if err != nil {
			return t, data, err
		}
		w.extendDeadline()
		var m wsMessage
		if json.Unmarshal(data, &m) != nil {
			return t, data, nil
		}
		switch m.Type {
		case "ping":
			if err := w.write(wsMessage{Type: "pong", Payload: m.Payload}); err != nil {
				return 0, nil, err
			}
		case "pong", "ka":
		case "connection_ack":
			if !w.acked {
				w.acked = true
				go w.pinger()
			}
			return t, data, nil
		case "error":
			next, _ := json.Marshal(map[string]any{"type": "next", "id": m.ID,
				"payload": map[string]json.RawMessage{"errors": m.Payload}})
			done, _ := json.Marshal(wsMessage{Type: "complete", ID: m.ID})
			w.pending = append(w.pending, done)
			return websocket.TextMessage, next, nil
		default:
			return t, data, nil
		}
	}
}

func (w *wsConn) pinger() {
	t := time.NewTicker(w.keepAlive)
	defer t.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-t.C:
			if w.write(wsMessage{Type: "ping"}) != nil {
				return
			}
		}
	}
}

func (w *wsConn) write(m wsMessage) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return w.WriteMessage(websocket.TextMessage, b)
}

func (w *wsConn) WriteMessage(messageType int, data []byte) error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	_ = w.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return w.conn.WriteMessage(messageType, data)
}

// Close sends a normal closure and closes the socket; it may be called
// more than once and from any goroutine.
func (w *wsConn) Close() error {
	w.closeOnce.Do(func() {
		close(w.done)
		w.writeMu.Lock()
		_ = w.conn.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		w.writeMu.Unlock()
		_ = w.conn.Close()
	})
	return nil
}

// initRefusal maps the close frame of a refused connection_init to an
// APIError; nil when err is not such a refusal.
func initRefusal(err error) *APIError {
	var ce *websocket.CloseError
	if !errors.As(err, &ce) {
		return nil
	}
	reason := strings.TrimSpace(ce.Text)
	refusals := []struct {
		code     deploy.Code
		close    int
		fallback string
	}{
		{deploy.EUNAUTHENTICATED, closeUnauthorized, "the server refused the credentials"},
		{deploy.EFORBIDDEN, closeForbidden, "the server refused the subscription"},
	}
	// A reason that starts with a code says more than the close code:
	// manent's server closes every refusal with 4403 and names the code.
	for _, r := range refusals {
		if strings.HasPrefix(strings.ToUpper(reason), string(r.code)) {
			msg := strings.TrimSpace(strings.TrimLeft(reason[len(r.code):], ":- "))
			return &APIError{Code: r.code, Message: nonEmpty(msg, r.fallback)}
		}
	}
	for _, r := range refusals {
		if ce.Code == r.close {
			return &APIError{Code: r.code, Message: nonEmpty(reason, r.fallback)}
		}
	}
	return &APIError{Message: fmt.Sprintf("the server closed the subscription (%d %s)", ce.Code, reason)}
}

func nonEmpty(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
