package democdn

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"sync"
)

// Token is the bearer token the demo CDN accepts: the demo's secret
// cdn-token (examples/secrets/cdn-token). It guards a demo that only
// manent-server dev serves, on loopback, and is no secret of anyone's.
const Token = "demo-cdn-token-4f7a2c9e1b6d"

// Limits of the API: what a request may hold, and how many purges it
// remembers (the oldest are forgotten first).
const (
	maxBody   = 64 << 10
	maxTags   = 100
	maxTagLen = 256
	maxPurges = 1024
	// donePolls is the poll at which a purge is done: the first poll finds
	// it pending, so the demo's step shows a wait.
	donePolls = 2
)

// Statuses of a purge.
const (
	statusPending = "pending"
	statusDone    = "done"
)

var zonePattern = regexp.MustCompile(`^[a-f0-9]{32}$`)

// purge is one operation of the API.
type purge struct {
	ID     string   `json:"id"`
	Zone   string   `json:"zone"`
	Tags   []string `json:"tags"`
	Status string   `json:"status"`
	polls  int
}

// api is the purge API: its operations, by ID and by idempotency key.
type api struct {
	log   *slog.Logger
	mu    sync.Mutex
	byID  map[string]*purge
	order []string
}

func newAPI(log *slog.Logger) *api {
	return &api{log: log, byID: map[string]*purge{}}
}

// Handler is the purge API, without TLS: POST /zones/{zone}/purge starts a
// purge of the zone's cached objects that carry the body's tags and
// answers 202 with {"result": {"id", "status": "pending"}}; GET
// /purges/{id} answers the purge, pending at its first poll and done from
// the second. Both need Authorization: Bearer Token.
func Handler(log *slog.Logger) http.Handler {
	return newAPI(log).routes()
}

func (a *api) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /zones/{zone}/purge", a.authorized(a.start))
	mux.HandleFunc("GET /purges/{id}", a.authorized(a.status))
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		answer(w, http.StatusNotFound, problem("no such endpoint: POST /zones/{zone}/purge, GET /purges/{id}"))
	})
	return mux
}

// authorized lets a request through with the demo's bearer token only.
func (a *api) authorized(next http.HandlerFunc) http.HandlerFunc {
	want := []byte("Bearer " + Token)
	return func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="manent demo CDN"`)
			answer(w, http.StatusUnauthorized, problem("a bearer token of the demo CDN is required"))
			return
		}
		next(w, r)
	}
}

type startRequest struct {
	Tags []string `json:"tags"`
}

func (a *api) start(w http.ResponseWriter, r *http.Request) {
	zone := r.PathValue("zone")
	if !zonePattern.MatchString(zone) {
		answer(w, http.StatusNotFound, problem("no such zone: a zone is 32 hexadecimal digits"))
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if key == "" || len(key) > 256 {
		answer(w, http.StatusBadRequest, problem("an Idempotency-Key header (at most 256 bytes) is required"))
		return
	}
	var req startRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		answer(w, http.StatusBadRequest, problem(`the body must be {"tags": ["..."]}`))
		return
	}
	if msg := checkTags(req.Tags); msg != "" {
		answer(w, http.StatusBadRequest, problem(msg))
		return
	}
	p, created, conflict := a.create(key, zone, req.Tags)
	if conflict {
		answer(w, http.StatusUnprocessableEntity, problem("this Idempotency-Key started another purge"))
		return
	}
	if created {
		a.log.Info("demo CDN: purge started", "id", p.ID, "zone", p.Zone, "tags", p.Tags)
	}
	answer(w, http.StatusAccepted, map[string]any{"result": p})
}

func checkTags(tags []string) string {
	if len(tags) == 0 || len(tags) > maxTags {
		return fmt.Sprintf("tags: 1 to %d tags", maxTags)
	}
	for _, t := range tags {
		if t == "" || len(t) > maxTagLen {
			return fmt.Sprintf("tags: each of 1 to %d bytes", maxTagLen)
		}
	}
	return ""
}

// create starts the purge of key, or finds the one it started: the same
// key with another zone or other tags is a conflict.
func (a *api) create(key, zone string, tags []string) (p purge, created, conflict bool) {
	sum := sha256.Sum256([]byte(key))
	id := "purge-" + hex.EncodeToString(sum[:8])
	a.mu.Lock()
	defer a.mu.Unlock()
	if old, ok := a.byID[id]; ok {
		if old.Zone != zone || !slices.Equal(old.Tags, tags) {
			return purge{}, false, true
		}
		return old.view(), false, false
	}
	np := &purge{ID: id, Zone: zone, Tags: append([]string(nil), tags...), Status: statusPending}
	a.byID[id] = np
	a.order = append(a.order, id)
	if len(a.order) > maxPurges {
		delete(a.byID, a.order[0])
		a.order = a.order[1:]
	}
	return np.view(), true, false
}

func (a *api) status(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	p, ok := a.byID[r.PathValue("id")]
	var v purge
	if ok {
		p.polls++
		if p.polls >= donePolls && p.Status == statusPending {
			p.Status = statusDone
			a.log.Info("demo CDN: purge done", "id", p.ID, "zone", p.Zone)
		}
		v = p.view()
	}
	a.mu.Unlock()
	if !ok {
		answer(w, http.StatusNotFound, problem("no such purge"))
		return
	}
	answer(w, http.StatusOK, v)
}

// view is a copy of p that the lock no longer guards.
func (p *purge) view() purge {
	v := *p
	v.Tags = append([]string(nil), p.Tags...)
	return v
}

func problem(msg string) map[string]string { return map[string]string{"error": msg} }

func answer(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body) // the client went away: nothing to do
}
