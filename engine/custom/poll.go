package custom

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/jsonpath"
)

// poll waits, inside the step, for the operation the first request
// started: GET poll.url (rendered with .Response, the first answer) right
// away and then every interval, with the run's headers and credential,
// until an answer matches until (the wait is over: its document is
// returned) or fail (a permanent error). A 5xx, 408 or 429, or a request
// without an answer, is waited through; any other status outside 2xx is
// permanent. Not done after poll.timeout (default the step's) is a
// temporary error: the next attempt sends the first request again with the
// same Idempotency-Key, and waits again.
func (h httpKind) poll(ctx context.Context, cl *call, first any) (any, error) {
	p := cl.run.Poll
	step := cl.c.Key.Step
	until, err := compileMatch(p.Until)
	if err != nil {
		return nil, deploy.Permanent(fmt.Errorf("step %s: poll.until: %w", step, err))
	}
	fail, err := compileMatch(p.Fail)
	if err != nil {
		return nil, deploy.Permanent(fmt.Errorf("step %s: poll.fail: %w", step, err))
	}
	v := cl.values
	v.Response = first
	u, err := h.url(cl, p.URL, v)
	if err != nil {
		return nil, err
	}
	interval := cmp.Or(p.Interval, DefaultPollInterval)
	timeout := cmp.Or(p.Timeout, cl.spec.Timeout, cl.c.Step.Timeout)
	pctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	what := http.MethodGet + " " + shownURL(u)
	for n := 1; ; n++ {
		a, err := h.do(pctx, cl, http.MethodGet, u, nil, true, nil)
		switch {
		case err == nil && fail.matches(a.doc):
			return nil, deploy.Permanentf("%s: the operation failed: %s is %s", what, fail.path, fail.found(a.doc))
		case err == nil && until.matches(a.doc):
			cl.logf("info", "%s: done after %d poll(s) (%s is %s)", what, n, until.path, until.found(a.doc))
			return a.doc, nil
		case err == nil && until == nil:
			return a.doc, nil
		case err != nil && (deploy.IsPermanent(err) || ctx.Err() != nil):
			return nil, err
		case err != nil && pctx.Err() == nil:
			cl.logf("warn", "poll %d: %v: polling goes on", n, err)
		}
		select {
		case <-time.After(interval):
		case <-pctx.Done():
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if pctx.Err() != nil {
			return nil, fmt.Errorf("%s: the operation is not done after %s (poll.timeout): the next attempt sends the request again", what, timeout)
		}
	}
}

// match is a compiled until or fail: the value at path is one of in.
type match struct {
	path jsonpath.Path
	in   []string
}

func compileMatch(m *deploy.PollMatch) (*match, error) {
	if m == nil {
		return nil, nil
	}
	p, err := jsonpath.Parse(m.Path)
	if err != nil {
		return nil, fmt.Errorf("path: %w", err)
	}
	return &match{path: p, in: m.In}, nil
}

func (m *match) matches(doc any) bool {
	if m == nil {
		return false
	}
	v, ok := m.path.Lookup(doc)
	if !ok {
		return false
	}
	s, ok := scalar(v)
	return ok && slices.Contains(m.in, s)
}

// found is the value the path names, quoted, for a message: it is one of
// the values the configuration wrote.
func (m *match) found(doc any) string {
	v, _ := m.path.Lookup(doc)
	s, _ := scalar(v)
	return strconv.Quote(s)
}

// scalar is the text of a scalar of a JSON answer: a string as it is, a
// number or a boolean as its JSON text; false for null, an object or a
// list, which stand for no one value.
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	}
	return "", false
}

// readOutputs reads the declared outputs at their paths: in the last
// answer of the poll, else in the first answer (the first holds the id of
// an operation, the last its result). Every declared output must be found,
// be a string, a number or a boolean, and match its pattern; the messages
// never show a value.
func readOutputs(step string, outputs map[string]deploy.OutputSpec, first, last any) (map[string]string, error) {
	if len(outputs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(outputs))
	var errs []error
	for _, key := range sortedKeys(outputs) {
		o := outputs[key]
		if o.Path == "" {
			errs = append(errs, fmt.Errorf("output %s has no path: an HTTP step reads its outputs in the JSON answer", key))
			continue
		}
		p, err := jsonpath.Parse(o.Path)
		if err != nil {
			errs = append(errs, fmt.Errorf("output %s: path %w", key, err))
			continue
		}
		v, ok := p.Lookup(last)
		if !ok && last != nil {
			v, ok = p.Lookup(first)
		}
		if !ok {
			errs = append(errs, fmt.Errorf("output %s: the answer has nothing at %s", key, o.Path))
			continue
		}
		s, ok := scalar(v)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("output %s: the value at %s is not a string, a number or a boolean", key, o.Path))
		case !o.Matches(s):
			errs = append(errs, fmt.Errorf("output %s: the value at %s does not match its pattern", key, o.Path))
		default:
			out[key] = s
		}
	}
	if len(errs) > 0 {
		return nil, deploy.Permanent(fmt.Errorf("step %s: %w", step, errors.Join(errs...)))
	}
	return out, nil
}
