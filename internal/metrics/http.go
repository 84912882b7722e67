package metrics

import (
	"bufio"
	"net"
	"net/http"
	"strconv"
)

// Transports of live connections (manent_live_connections).
const (
	TransportWebsocket = "websocket"
	TransportSSE       = "sse"
)

// Routes counts the requests next answers by the pattern of the route that
// matched and the class of the status. next must be the http.ServeMux that
// routes them: it records the pattern on the request it is given.
func (m *Metrics) Routes(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		route := r.Pattern
		if route == "" {
			// No route matched (a 404 or 405 of the router itself): one
			// series, whatever the path, so a scan of URLs adds none.
			route = "unmatched"
		}
		m.httpRequests.WithLabelValues(route, statusClass(rec.status())).Inc()
	})
}

// Live counts one more open live connection of transport; call the
// function it returns when the connection ends. The fan-out of
// subscriptions may call it per subscriber as well.
func (m *Metrics) Live(transport string) (done func()) {
	g := m.live.WithLabelValues(transport)
	g.Inc()
	return g.Dec
}

func statusClass(code int) string {
	if code < 100 || code > 599 {
		return "other"
	}
	return strconv.Itoa(code/100) + "xx"
}

// statusRecorder remembers the status a handler wrote. It keeps the
// writer's other abilities within reach of http.ResponseController
// (Unwrap) and of the handlers that assert them: SSE flushes, websockets
// hijack the connection.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) status() int {
	if s.code == 0 {
		return http.StatusOK
	}
	return s.code
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		if s.code == 0 {
			s.code = http.StatusOK
		}
		f.Flush()
	}
}

// Hijack hands the connection over (a websocket upgrade): the status is
// the switch of protocols.
func (s *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := s.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, http.ErrNotSupported
	}
	conn, rw, err := h.Hijack()
	if err == nil && s.code == 0 {
		s.code = http.StatusSwitchingProtocols
	}
	return conn, rw, err
}
