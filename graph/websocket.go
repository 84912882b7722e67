package graph

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
)

// gorillaWebsocket runs gqlgen's websocket transport on gorilla/websocket
// (gqlgen's default is coder/websocket), whose Upgrader gives the origin
// check in one function.
type gorillaWebsocket struct {
	upgrader websocket.Upgrader
}

var _ transport.WebsocketImplementation = gorillaWebsocket{}

func (g gorillaWebsocket) Accept(w http.ResponseWriter, r *http.Request, o transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	u := g.upgrader
	for _, p := range o.Subprotocols {
		if !slices.Contains(u.Subprotocols, p) {
			u.Subprotocols = append(slices.Clone(u.Subprotocols), p)
		}
	}
	conn, err := u.Upgrade(w, r, o.ResponseHeader)
	if err != nil {
		return nil, err
	}
	return gorillaConn{conn}, nil
}

type gorillaConn struct{ c *websocket.Conn }

var (
	_ transport.WebsocketReadLimiter   = gorillaConn{}
	_ transport.WebsocketReadDeadliner = gorillaConn{}
)

func (g gorillaConn) NextReader() (int, io.Reader, error) {
	t, r, err := g.c.NextReader()
	if websocket.IsCloseError(err, websocket.CloseNormalClosure, websocket.CloseNoStatusReceived) {
		return t, nil, transport.ErrWebsocketClosed
	}
	return t, r, err
}

func (g gorillaConn) WriteJSON(v any) error { return g.c.WriteJSON(v) }

func (g gorillaConn) WriteClose(code int, message string) error {
	err := g.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, message), time.Now().Add(time.Second))
	if errors.Is(err, websocket.ErrCloseSent) {
		return nil
	}
	return err
}

func (g gorillaConn) Subprotocol() string               { return g.c.Subprotocol() }
func (g gorillaConn) Close() error                      { return g.c.Close() }
func (g gorillaConn) SetReadLimit(limit int64)          { g.c.SetReadLimit(limit) }
func (g gorillaConn) SetReadDeadline(t time.Time) error { return g.c.SetReadDeadline(t) }
