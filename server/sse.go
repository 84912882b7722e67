package server

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph"
	"manent.dev/manent/internal/metrics"
)

// sseLine is the data of an SSE log event.
type sseLine struct {
	Seq     int64     `json:"seq"`
	Time    time.Time `json:"time"`
	Step    string    `json:"step,omitempty"`
	Level   string    `json:"level"`
	Message string    `json:"message"`
}

// stream handles GET /api/v1/deployments/{id}/events: the deploy as
// Server-Sent Events. "state" carries the status JSON (the first event is
// one), "step" one step of it that changed, "log" one log line with its
// sequence number as the event ID, so that a reconnecting EventSource
// resumes the log after Last-Event-ID. The lines of a change are sent
// before its state, so the final state is the last event; then the stream
// ends.
func (a *api) stream(w http.ResponseWriter, r *http.Request) {
	after, err := logsAfter(r)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	updates, err := a.live().Follow(r.Context(), r.PathValue("id"), after)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	defer a.liveConnection(metrics.TransportSSE)()
	rc := http.NewResponseController(w)
	s := sseWriter{w: w}
	heartbeat := time.NewTicker(a.heartbeat)
	defer heartbeat.Stop()
	var prev *deploy.Status
	for {
		select {
		case u, ok := <-updates:
			if !ok {
				return
			}
			prev = s.update(u, prev)
		case <-heartbeat.C:
			s.comment("heartbeat")
		case <-r.Context().Done():
			return
		}
		if s.err != nil || rc.Flush() != nil {
			return // the client went away; Follow stops with the request context
		}
	}
}

// logsAfter reads where the log resumes: Last-Event-ID (set by a
// reconnecting EventSource) or ?after=.
func logsAfter(r *http.Request) (int64, error) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("after")
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "invalid request",
			Fields: []deploy.FieldError{{Path: "Last-Event-ID", Message: "must be a log sequence number"}}}
	}
	return n, nil
}

type sseWriter struct {
	w   io.Writer
	err error
}

// update writes the events of one update and returns the status it sent.
// The update's kind is only a hint (events of a burst are merged): what is
// sent follows from comparing with the previous status.
func (s *sseWriter) update(u graph.Update, prev *deploy.Status) *deploy.Status {
	st := deploy.NewStatus(u.Deployment)
	if prev == nil {
		// The first event is the snapshot, whatever lines came with it;
		// a deploy that already ended gets its state again after them, so
		// that the final state stays the last event.
		s.event("", graph.KindState, st)
		s.logs(u.Logs)
		if len(u.Logs) > 0 && st.State.Terminal() {
			s.event("", graph.KindState, st)
		}
		return &st
	}
	s.logs(u.Logs)
	if !sameDeployState(prev, &st) {
		s.event("", graph.KindState, st)
		return &st
	}
	for _, step := range changedSteps(prev, &st) {
		s.event("", graph.KindStep, step)
	}
	return &st
}

func (s *sseWriter) logs(lines []deploy.LogLine) {
	for _, l := range lines {
		s.event(strconv.FormatInt(l.Seq, 10), graph.KindLog,
			sseLine{Seq: l.Seq, Time: l.Time.UTC(), Step: l.Step, Level: l.Level, Message: l.Message})
	}
}

func (s *sseWriter) event(id, name string, v any) {
	if s.err != nil {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		s.err = err
		return
	}
	if id != "" {
		_, s.err = fmt.Fprintf(s.w, "id: %s\n", id)
	}
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, data)
	}
}

func (s *sseWriter) comment(text string) {
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, ": %s\n\n", text)
	}
}

// changedSteps returns the steps of cur that differ from prev.
func changedSteps(prev, cur *deploy.Status) []deploy.StatusStep {
	before := map[string]deploy.StatusStep{}
	if prev != nil {
		for _, s := range prev.Steps {
			before[s.Name] = s
		}
	}
	var out []deploy.StatusStep
	for _, s := range cur.Steps {
		if b, ok := before[s.Name]; !ok || !sameStep(b, s) {
			out = append(out, s)
		}
	}
	return out
}

func sameStep(a, b deploy.StatusStep) bool {
	return a.State == b.State && a.Attempts == b.Attempts && eqTime(a.StartedAt, b.StartedAt) &&
		eqTime(a.FinishedAt, b.FinishedAt) && eqString(a.Error, b.Error) && maps.Equal(a.Output, b.Output)
}

// sameDeployState reports whether nothing but the steps changed (the
// current step moves with them).
func sameDeployState(prev, cur *deploy.Status) bool {
	p, c := *prev, *cur
	p.Steps, c.Steps = nil, nil
	p.CurrentStep, c.CurrentStep = nil, nil
	return reflect.DeepEqual(p, c)
}

func eqTime(a, b *time.Time) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Equal(*b))
}

func eqString(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
