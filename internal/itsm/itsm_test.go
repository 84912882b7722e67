package itsm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/secrets"
	"manent.dev/manent/internal/yamltree"
)

// The credential of the tests: quotes and slashes check that it is redacted
// in every form an ITSM might echo it (raw, JSON-escaped, base64).
const (
	secretEnv = "MANENT_SECRET_ITSM"
	secret    = `s3cr3t/"T0ken+`
	username  = "manent.integration"
)

// docConfig is the ServiceNow example of docs/governance-itsm.md, so the
// tests also prove the documented configuration is valid and works.
func docConfig(t *testing.T) Config {
	t.Helper()
	md, err := os.ReadFile("../../docs/governance-itsm.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(md), "```yaml\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no yaml block in docs/governance-itsm.md")
	}
	root, fields := yamltree.Parse([]byte(block), 1<<20)
	if len(fields) > 0 {
		t.Fatalf("documented example: %v", fields)
	}
	var doc struct {
		Governance struct {
			Connectors map[string]Config `yaml:"connectors"`
		} `yaml:"governance"`
	}
	var errs yamltree.Errors
	yamltree.Decode(root, "", &doc, &errs)
	if errs.Len() > 0 {
		t.Fatalf("documented example: %v", errs.List())
	}
	cfg, ok := doc.Governance.Connectors["servicenow"]
	if !ok {
		t.Fatal("documented example has no servicenow connector")
	}
	if fe := cfg.Validate(); len(fe) > 0 {
		t.Fatalf("documented example is invalid: %v", fe)
	}
	return cfg
}

func resolver(t *testing.T) func(context.Context, string) (string, error) {
	t.Setenv(secretEnv, secret)
	return secrets.Resolver{"env": secrets.Env{Prefix: "MANENT_SECRET_"}}.Resolve
}

// fakeITSM behaves like ServiceNow's Table API for change_request: it creates
// tickets (once per Idempotency-Key), answers "requested" for the first
// pendingPolls reads and then decision, and records closes.
type fakeITSM struct {
	t            *testing.T
	wantAuth     string
	pendingPolls int
	decision     string

	mu      sync.Mutex
	next    int
	tickets map[string]*ticket
	byKey   map[string]string
	keys    []string
}

type ticket struct {
	number   string
	body     map[string]any
	polls    int
	closeKey string
	closed   map[string]any
}

const table = "/api/now/table/change_request"

func newFakeITSM(t *testing.T, wantAuth, decision string) *fakeITSM {
	return &fakeITSM{t: t, wantAuth: wantAuth, pendingPolls: 1, decision: decision,
		tickets: map[string]*ticket{}, byKey: map[string]string{}}
}

func (f *fakeITSM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != f.wantAuth {
		http.Error(w, `{"error":{"message":"User Not Authenticated"}}`, http.StatusUnauthorized)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	key := r.Header.Get("Idempotency-Key")
	if key != "" {
		f.keys = append(f.keys, r.Method+" "+key)
	}
	path := r.URL.EscapedPath()
	switch {
	case r.Method == http.MethodPost && path == table:
		f.create(w, r, key)
	case strings.HasPrefix(path, table+"/"):
		id, err := url.PathUnescape(strings.TrimPrefix(path, table+"/"))
		tk := f.tickets[id]
		if err != nil || strings.Contains(strings.TrimPrefix(path, table+"/"), "/") || tk == nil {
			http.Error(w, `{"error":{"message":"No Record found"}}`, http.StatusNotFound)
			return
		}
		switch r.Method {
		case http.MethodGet:
			tk.polls++
			approval := "requested"
			if tk.polls > f.pendingPolls {
				approval = f.decision
			}
			writeJSON(w, http.StatusOK, map[string]any{"result": map[string]any{"approval": approval, "state": -4}})
		case http.MethodPatch:
			if r.Header.Get("Content-Type") != "application/json" {
				http.Error(w, "json only", http.StatusUnsupportedMediaType)
				return
			}
			tk.closeKey = key
			if err := json.NewDecoder(r.Body).Decode(&tk.closed); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"result": map[string]any{"sys_id": id, "state": "3"}})
		default:
			http.Error(w, "method", http.StatusMethodNotAllowed)
		}
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeITSM) create(w http.ResponseWriter, r *http.Request, key string) {
	if id, ok := f.byKey[key]; ok && key != "" {
		writeJSON(w, http.StatusCreated, map[string]any{"result": map[string]any{"sys_id": id, "number": f.tickets[id].number}})
		return
	}
	var body map[string]any
	if r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&body) != nil {
		http.Error(w, `{"error":{"message":"Invalid body"}}`, http.StatusBadRequest)
		return
	}
	f.next++
	// Characters that must be percent-encoded check the status and close paths.
	id := fmt.Sprintf("sys %d/é?", f.next)
	f.tickets[id] = &ticket{number: fmt.Sprintf("CHG%07d", f.next), body: body}
	f.byKey[key] = id
	writeJSON(w, http.StatusCreated, map[string]any{"result": map[string]any{"sys_id": id, "number": f.tickets[id].number, "approval": "requested"}})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeITSM) snapshot(id string) ticket {
	f.mu.Lock()
	defer f.mu.Unlock()
	if tk := f.tickets[id]; tk != nil {
		return *tk
	}
	return ticket{}
}

var change = Change{
	DeploymentID: "d-42",
	Application:  "hello",
	Environment:  "prod",
	Version:      "1.4.0",
	Requester:    "demo-ci",
	Description:  "Release \"1.4.0\" <fast> & safe\nsecond line",
}

func base64Of(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func basicAuth() string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(username+":"+secret))
}

func TestOpenStatusClose(t *testing.T) {
	tests := []struct {
		name     string
		auth     Auth
		wantAuth string
		decision string
		want     State
	}{
		{name: "basic approved", auth: Auth{Type: AuthBasic, Username: username, Secret: "env:" + secretEnv},
			wantAuth: basicAuth(), decision: "approved", want: StateApproved},
		{name: "bearer approved", auth: Auth{Type: AuthBearer, Secret: "env:" + secretEnv},
			wantAuth: "Bearer " + secret, decision: "approved", want: StateApproved},
		{name: "rejected", auth: Auth{Type: AuthBasic, Username: username, Secret: "env:" + secretEnv},
			wantAuth: basicAuth(), decision: "rejected", want: StateRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			itsm := newFakeITSM(t, tt.wantAuth, tt.decision)
			srv := httptest.NewServer(itsm)
			defer srv.Close()
			cfg := docConfig(t)
			cfg.BaseURL = srv.URL
			cfg.Auth = tt.auth
			c, err := New(cfg, resolver(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()

			tk, err := c.Open(ctx, change)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			if tk.ID != "sys 1/é?" || tk.Number != "CHG0000001" {
				t.Fatalf("ticket = %+v", tk)
			}
			body := itsm.snapshot(tk.ID).body
			wantBody := map[string]any{
				"type":                "normal",
				"short_description":   "Deploy hello 1.4.0 to prod",
				"description":         change.Description + "\n\nRequested by demo-ci through manent (deploy d-42).",
				"correlation_id":      "d-42",
				"correlation_display": "manent",
			}
			if fmt.Sprint(body) != fmt.Sprint(wantBody) {
				t.Errorf("ticket body:\n got %v\nwant %v", body, wantBody)
			}

			// A retried open (the step ran again after a crash) reuses the key.
			again, err := c.Open(ctx, change)
			if err != nil || again != tk {
				t.Fatalf("second open: %+v, %v", again, err)
			}

			if st, err := c.Status(ctx, tk.ID); err != nil || st != StatePending {
				t.Fatalf("first status: %q, %v", st, err)
			}
			if st, err := c.Status(ctx, tk.ID); err != nil || st != tt.want {
				t.Fatalf("second status: %q, %v (want %q)", st, err, tt.want)
			}

			outcome, code := OutcomeSuccess, "successful"
			if tt.want == StateRejected {
				outcome, code = OutcomeCancelled, "unsuccessful"
			}
			if err := c.Close(ctx, change.DeploymentID, tk.ID, outcome); err != nil {
				t.Fatalf("close: %v", err)
			}
			closed := itsm.snapshot(tk.ID)
			wantClose := map[string]any{"state": "3", "close_code": code,
				"close_notes": "manent deploy d-42 finished: " + outcome}
			if fmt.Sprint(closed.closed) != fmt.Sprint(wantClose) {
				t.Errorf("close body:\n got %v\nwant %v", closed.closed, wantClose)
			}
			itsm.mu.Lock()
			keys := strings.Join(itsm.keys, ",")
			itsm.mu.Unlock()
			if want := "POST d-42:change:open,POST d-42:change:open,PATCH d-42:change:close"; keys != want {
				t.Errorf("idempotency keys = %s, want %s", keys, want)
			}
		})
	}
}

func TestWrongCredentialIsPermanent(t *testing.T) {
	srv := httptest.NewServer(newFakeITSM(t, "Bearer something-else", "approved"))
	defer srv.Close()
	cfg := docConfig(t)
	cfg.BaseURL = srv.URL
	c, err := New(cfg, resolver(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Open(context.Background(), change)
	checkErr(t, err, true)
	if !strings.Contains(err.Error(), "401") {
		t.Errorf("error does not say 401: %v", err)
	}
}

// checkErr asserts err's class and that no form of the credential leaks.
func checkErr(t *testing.T, err error, permanent bool) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if got := deploy.IsPermanent(err); got != permanent {
		t.Errorf("permanent = %v, want %v: %v", got, permanent, err)
	}
	quoted, _ := json.Marshal(secret)
	for _, form := range []string{secret, string(quoted[1 : len(quoted)-1]), basicAuth()[len("Basic "):], "s3cr3t"} {
		if strings.Contains(err.Error(), form) {
			t.Errorf("error leaks the credential (%q): %v", form, err)
		}
	}
}
