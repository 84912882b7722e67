package clienttest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Request is one operation as the server received it.
type Request struct {
	OpName        string
	Query         string
	Variables     map[string]any
	Authorization string
}

// Error is a GraphQL error with manent's extensions.
type Error struct {
	Message string
	// Code is extensions.code; Fields go to extensions.errors.
	Code    string
	Fields  []Field
	ErrorID string
}

// Field is one entry of extensions.errors.
type Field struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Message }

// MarshalJSON writes the GraphQL error shape.
func (e *Error) MarshalJSON() ([]byte, error) {
	ext := map[string]any{}
	if e.Code != "" {
		ext["code"] = e.Code
	}
	if len(e.Fields) > 0 {
		ext["errors"] = e.Fields
	}
	if e.ErrorID != "" {
		ext["errorId"] = e.ErrorID
	}
	m := map[string]any{"message": e.Message}
	if len(ext) > 0 {
		m["extensions"] = ext
	}
	return json.Marshal(m)
}

// OpFunc answers a query or mutation: data becomes the "data" member; a
// non-nil error is sent in "errors" (with "data": null).
type OpFunc func(r Request) (data any, err *Error)

// SubFunc runs one subscription until it returns: nil completes it, an
// *Error ends it with an "error" message, ErrDrop cuts the connection.
type SubFunc func(ctx context.Context, r Request, s *Stream) error

// ErrDrop, returned by a SubFunc, makes the server close the TCP connection
// without a close frame, as a crashed server would.
var ErrDrop = errors.New("drop the connection")

// Server is the test server. Set its fields before the first request.
type Server struct {
	*httptest.Server
	// Token, when set, is the only bearer token accepted: other requests get
	// UNAUTHENTICATED, other connection_init payloads a close with InitClose.
	Token string
	// InitClose is the close code and reason of a refused connection_init
	// (default 4403 "Forbidden").
	InitCloseCode   int
	InitCloseReason string
	// PingAfterAck makes the server ping every connection once acknowledged;
	// each pong received is sent on Pongs.
	PingAfterAck bool
	Pongs        chan struct{}

	mu          sync.Mutex
	ops         map[string]OpFunc
	subs        map[string]SubFunc
	requests    []Request
	connections int
}

// New starts a server; it is closed at the end of the test by t.Cleanup.
func New(t interface{ Cleanup(func()) }) *Server {
	s := &Server{
		ops:   map[string]OpFunc{},
		subs:  map[string]SubFunc{},
		Pongs: make(chan struct{}, 16),
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Handle answers the operation named op.
func (s *Server) Handle(op string, f OpFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops[op] = f
}

// HandleSubscription runs f for each subscription named op.
func (s *Server) HandleSubscription(op string, f SubFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs[op] = f
}

// Requests returns the operations received so far, subscriptions included.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Connections returns how many websocket connections were accepted.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connections
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

type rawRequest struct {
	Query         string         `json:"query"`
	OperationName string         `json:"operationName"`
	Variables     map[string]any `json:"variables"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/graphql" {
		http.NotFound(w, r)
		return
	}
	if websocket.IsWebSocketUpgrade(r) {
		s.serveWS(w, r)
		return
	}
	var raw rawRequest
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{OpName: raw.OperationName, Query: raw.Query, Variables: raw.Variables,
		Authorization: r.Header.Get("Authorization")}
	s.record(req)
	w.Header().Set("Content-Type", "application/json")
	if s.Token != "" && req.Authorization != "Bearer "+s.Token {
		writeJSON(w, map[string]any{"data": nil, "errors": []*Error{{Message: "unknown token", Code: "UNAUTHENTICATED"}}})
		return
	}
	s.mu.Lock()
	f := s.ops[raw.OperationName]
	s.mu.Unlock()
	if f == nil {
		writeJSON(w, map[string]any{"data": nil, "errors": []*Error{{Message: "clienttest: no handler for " + raw.OperationName}}})
		return
	}
	data, gqlErr := f(req)
	if gqlErr != nil {
		writeJSON(w, map[string]any{"data": nil, "errors": []*Error{gqlErr}})
		return
	}
	writeJSON(w, map[string]any{"data": data})
}

func writeJSON(w http.ResponseWriter, v any) {
	_ = json.NewEncoder(w).Encode(v)
}

type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// Stream sends the results of one subscription.
type Stream struct {
	conn *wsConn
	id   string
}

// Next sends {"data": data}.
func (st *Stream) Next(data any) error {
	return st.conn.send(st.id, "next", map[string]any{"data": data})
}

// Errors sends a "next" carrying errors, as gqlgen does for a resolver error.
func (st *Stream) Errors(errs ...*Error) error {
	return st.conn.send(st.id, "next", map[string]any{"data": nil, "errors": errs})
}

type wsConn struct {
	c  *websocket.Conn
	mu sync.Mutex
}

func (w *wsConn) send(id, typ string, payload any) error {
	m := wsMessage{ID: id, Type: typ}
	if payload != nil {
		b, err := json.Marshal(payload)
		if err != nil {
			return err
		}
		m.Payload = b
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.c.WriteJSON(m)
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	up := websocket.Upgrader{Subprotocols: []string{"graphql-transport-ws"}}
	c, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.connections++
	s.mu.Unlock()
	conn := &wsConn{c: c}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	// The peer is a test's client: a failed close has no one to report to.
	defer func() { _ = c.Close() }()

	var init wsMessage
	if err := c.ReadJSON(&init); err != nil || init.Type != "connection_init" {
		return
	}
	var params map[string]any
	_ = json.Unmarshal(init.Payload, &params)
	auth, _ := params["Authorization"].(string)
	if s.Token != "" && auth != "Bearer "+s.Token {
		code, reason := s.InitCloseCode, s.InitCloseReason
		if code == 0 {
			code, reason = 4403, "Forbidden"
		}
		conn.mu.Lock()
		_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
		conn.mu.Unlock()
		return
	}
	if err := conn.send("", "connection_ack", nil); err != nil {
		return
	}
	if s.PingAfterAck {
		if err := conn.send("", "ping", nil); err != nil {
			return
		}
	}
	active := map[string]context.CancelFunc{}
	var wg sync.WaitGroup
	defer wg.Wait()
	// Runs before the Wait: the subscriptions end with the connection.
	defer cancel()
	for {
		var m wsMessage
		if err := c.ReadJSON(&m); err != nil {
			return
		}
		switch m.Type {
		case "ping":
			_ = conn.send("", "pong", nil)
		case "pong":
			select {
			case s.Pongs <- struct{}{}:
			default:
			}
		case "complete":
			if stop := active[m.ID]; stop != nil {
				stop()
			}
		case "subscribe":
			var raw rawRequest
			_ = json.Unmarshal(m.Payload, &raw)
			req := Request{OpName: raw.OperationName, Query: raw.Query, Variables: raw.Variables, Authorization: auth}
			s.record(req)
			s.mu.Lock()
			f := s.subs[raw.OperationName]
			s.mu.Unlock()
			sctx, stop := context.WithCancel(ctx)
			active[m.ID] = stop
			wg.Add(1)
			go func(id string) {
				defer wg.Done()
				defer stop()
				s.runSubscription(sctx, conn, id, req, f)
			}(m.ID)
		}
	}
}

func (s *Server) runSubscription(ctx context.Context, conn *wsConn, id string, req Request, f SubFunc) {
	if f == nil {
		_ = conn.send(id, "error", []*Error{{Message: "clienttest: no subscription " + req.OpName}})
		return
	}
	err := f(ctx, req, &Stream{conn: conn, id: id})
	var gqlErr *Error
	switch {
	case errors.Is(err, ErrDrop):
		// Closing the raw connection sends no close frame: the client sees
		// an abnormal closure, like a SIGKILLed server.
		_ = conn.c.UnderlyingConn().Close()
	case errors.As(err, &gqlErr):
		_ = conn.send(id, "error", []*Error{gqlErr})
	case err != nil:
		_ = conn.send(id, "error", []*Error{{Message: err.Error()}})
	default:
		_ = conn.send(id, "complete", nil)
	}
}

// Int reads an integer variable (JSON numbers decode as float64).
func Int(v any) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case int:
		return n
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	}
	return 0
}
