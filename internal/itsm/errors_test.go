package itsm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"manent.dev/manent/internal/safehttp"
)

// echoCredential answers like an ITSM that quotes the request in its error
// page: the test then checks the credential is redacted from the error.
func echoCredential(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(code)
		_, _ = io.WriteString(w, `{"error":{"message":"bad request","detail":"header `+r.Header.Get("Authorization")+
			` token `+strings.TrimPrefix(r.Header.Get("Authorization"), "Basic ")+` password `+secret+`"}}`)
	}
}

func answer(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

func TestErrorClasses(t *testing.T) {
	tests := []struct {
		name      string
		handler   http.HandlerFunc
		op        string // open, status or close
		permanent bool
		contains  string
	}{
		{name: "400 echoing the credential", handler: echoCredential(http.StatusBadRequest), op: "open", permanent: true, contains: "[redacted]"},
		{name: "403", handler: answer(http.StatusForbidden, `{}`), op: "open", permanent: true, contains: "403"},
		{name: "404 on status", handler: answer(http.StatusNotFound, `{"error":{"message":"No Record found"}}`), op: "status", permanent: true, contains: "No Record found"},
		{name: "422 on close", handler: answer(http.StatusUnprocessableEntity, `{}`), op: "close", permanent: true},
		{name: "500 echoing the credential", handler: echoCredential(http.StatusInternalServerError), op: "open", contains: "500"},
		{name: "502", handler: answer(http.StatusBadGateway, "<html>bad gateway</html>"), op: "status"},
		{name: "503 on close", handler: answer(http.StatusServiceUnavailable, ""), op: "close"},
		{name: "408", handler: answer(http.StatusRequestTimeout, ""), op: "open"},
		{name: "429", handler: answer(http.StatusTooManyRequests, ""), op: "status"},
		{name: "redirect", handler: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		}, op: "open", permanent: true, contains: "redirect refused"},
		{name: "not JSON", handler: answer(http.StatusCreated, "<html>login</html>"), op: "open", permanent: true, contains: "not JSON"},
		{name: "empty answer", handler: answer(http.StatusCreated, ""), op: "open", permanent: true, contains: "not JSON"},
		{name: "no id", handler: answer(http.StatusCreated, `{"result":{"number":"CHG1"}}`), op: "open", permanent: true, contains: "no ticket id at $.result.sys_id"},
		{name: "id not a scalar", handler: answer(http.StatusCreated, `{"result":{"sys_id":{"value":"x"}}}`), op: "open", permanent: true, contains: "no ticket id"},
		{name: "no state", handler: answer(http.StatusOK, `{"result":{}}`), op: "status", permanent: true, contains: "no state at $.result.approval"},
		{name: "too large", handler: answer(http.StatusCreated, `{"result":{"sys_id":"`+strings.Repeat("x", MaxResponseBytes)+`"}}`),
			op: "open", permanent: true, contains: "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var elsewhere atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/elsewhere" {
					elsewhere.Add(1)
					answer(http.StatusCreated, `{"result":{"sys_id":"followed"}}`)(w, r)
					return
				}
				tt.handler(w, r)
			}))
			defer srv.Close()
			c := connectorFor(t, srv.URL, 0)
			err := run(c, tt.op)
			checkErr(t, err, tt.permanent)
			if err != nil && !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("error %q does not contain %q", err, tt.contains)
			}
			if elsewhere.Load() != 0 {
				t.Error("a redirect was followed")
			}
		})
	}
}

func connectorFor(t *testing.T, baseURL string, timeout time.Duration) *Connector {
	t.Helper()
	cfg := docConfig(t)
	cfg.BaseURL = baseURL
	if timeout > 0 {
		cfg.Timeout = timeout
	}
	c, err := New(cfg, resolver(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func run(c *Connector, op string) error {
	ctx := context.Background()
	switch op {
	case "open":
		_, err := c.Open(ctx, change)
		return err
	case "status":
		_, err := c.Status(ctx, "abc")
		return err
	default:
		return c.Close(ctx, "d-42", "abc", OutcomeError)
	}
}

// TestSlowITSMTimesOut: an ITSM that does not answer within the timeout is a
// temporary failure, and the call returns instead of hanging.
func TestSlowITSMTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release) // before srv.Close, which waits for the handler
	c := connectorFor(t, srv.URL, 200*time.Millisecond)
	for _, op := range []string{"open", "status", "close"} {
		start := time.Now()
		err := run(c, op)
		checkErr(t, err, false)
		if !strings.Contains(err.Error(), "timeout") {
			t.Errorf("%s: error does not say timeout: %v", op, err)
		}
		// Generous bound for a loaded machine: far below the 30s default.
		if d := time.Since(start); d > 15*time.Second {
			t.Errorf("%s took %s with a 200ms timeout", op, d)
		}
	}
}

// TestCallerCancelKeepsCause: a cancelled step sees context.Canceled.
func TestCallerCancelKeepsCause(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := connectorFor(t, srv.URL, 0)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	_, err := c.Status(ctx, "abc")
	checkErr(t, err, false)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error does not wrap context.Canceled: %v", err)
	}
}

func TestConnectionRefusedIsTemporary(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close()
	checkErr(t, run(connectorFor(t, addr, 0), "open"), false)
}

// TestUnavailableThenOpens: a 503 is temporary; the retry (same key) opens
// the ticket once.
func TestUnavailableThenOpens(t *testing.T) {
	itsm := newFakeITSM(t, "Basic "+basicAuth()[len("Basic "):], "approved")
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
			return
		}
		itsm.ServeHTTP(w, r)
	}))
	defer srv.Close()
	c := connectorFor(t, srv.URL, 0)
	_, err := c.Open(context.Background(), change)
	checkErr(t, err, false)
	tk, err := c.Open(context.Background(), change)
	if err != nil || tk.ID == "" {
		t.Fatalf("retry: %+v, %v", tk, err)
	}
	itsm.mu.Lock()
	defer itsm.mu.Unlock()
	if len(itsm.tickets) != 1 {
		t.Errorf("%d tickets, want 1", len(itsm.tickets))
	}
}

func TestMetadataAddressRefused(t *testing.T) {
	c := connectorFor(t, "http://169.254.169.254", 0)
	err := run(c, "open")
	checkErr(t, err, true)
	if !errors.Is(err, safehttp.ErrAddressRefused) {
		t.Errorf("error is not ErrAddressRefused: %v", err)
	}
}

// TestSecretResolvedPerRequest: a rotated secret is used at the next call,
// and an empty or missing one fails permanently, saying which credential
// without naming its reference (configuration the deploy's readers are
// not shown).
func TestSecretResolvedPerRequest(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("Authorization"))
		answer(http.StatusOK, `{"result":{"approval":"requested"}}`)(w, r)
	}))
	defer srv.Close()
	c := connectorFor(t, srv.URL, 0)
	if _, err := c.Status(context.Background(), "abc"); err != nil {
		t.Fatal(err)
	}
	t.Setenv(secretEnv, "rotated")
	if _, err := c.Status(context.Background(), "abc"); err != nil {
		t.Fatal(err)
	}
	if want := "Basic " + base64Of(username+":rotated"); got.Load() != want {
		t.Errorf("Authorization = %v, want %s", got.Load(), want)
	}
	for _, tt := range []struct {
		name string
		set  func()
		want string
	}{
		{"empty", func() { t.Setenv(secretEnv, "") }, "a secret of the server configuration is empty: the credential of the change connector"},
		{"missing", func() { t.Setenv(secretEnv, ""); _ = os.Unsetenv(secretEnv) },
			"a secret of the server configuration is missing: the credential of the change connector"},
	} {
		tt.set()
		_, err := c.Status(context.Background(), "abc")
		checkErr(t, err, true)
		if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), secretEnv) {
			t.Errorf("%s: error %q, want %q without the reference", tt.name, err, tt.want)
		}
	}
}

// TestCallerClientNeverRedirects: a client given by the caller that would
// follow redirects does not, for the connector.
func TestCallerClientNeverRedirects(t *testing.T) {
	var elsewhere atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/elsewhere" {
			elsewhere.Add(1)
			answer(http.StatusCreated, `{"result":{"sys_id":"followed"}}`)(w, r)
			return
		}
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	cfg := docConfig(t)
	cfg.BaseURL = srv.URL
	follows := &http.Client{}
	c, err := New(cfg, resolver(t), follows)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Open(context.Background(), change)
	checkErr(t, err, true)
	if elsewhere.Load() != 0 {
		t.Error("the redirect was followed")
	}
	if follows.CheckRedirect != nil {
		t.Error("the caller's client was modified")
	}
}

// TestErrorHidesTheQuery: an ITSM's path may carry a token in its query;
// an error says which call failed without it.
func TestErrorHidesTheQuery(t *testing.T) {
	srv := httptest.NewServer(answer(http.StatusInternalServerError, `{"error":"down"}`))
	defer srv.Close()
	cfg := docConfig(t)
	cfg.BaseURL = srv.URL
	cfg.Open.Path += "?api_token=s3cret-query"
	c, err := New(cfg, resolver(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = run(c, "open")
	checkErr(t, err, false)
	if strings.Contains(err.Error(), "s3cret-query") || !strings.Contains(err.Error(), "POST "+srv.URL) {
		t.Errorf("error %q shows the query, or not the call", err)
	}
}
