package gates

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/safehttp"
)

// maxPrometheusAnswer caps the query's answer read: a vector of a few
// thousand series fits, a runaway query does not fill the worker's memory.
const maxPrometheusAnswer = 4 << 20

// checkPrometheus runs g's query as an instant query at the time at and
// holds its value to g's bounds (inclusive). No series, or a value that is
// NaN or infinite, is no_data: a ratio over no traffic is 0/0, and treating
// missing data as a good value is how canaries pass while nothing is
// measured. Several series are each held to the bounds: one out of them
// fails the gate, and the value shown is the worst. Prometheus unreachable,
// an error status, a query error or an answer that is not Prometheus's
// leave the gate inconclusive.
func (c Checker) checkPrometheus(ctx context.Context, g deploy.PrometheusGate, at time.Time) Result {
	if strings.TrimSpace(g.Query) == "" {
		return inconclusive("the gate has no query")
	}
	timeout := timeoutOf(g.Timeout)
	endpoint, err := queryURL(g.URL, g.Query, at, timeout)
	if err != nil {
		return inconclusive(err.Error())
	}
	shown := deploy.RedactURL(g.URL)
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return inconclusive("prometheus " + shown + ": the query's request cannot be made")
	}
	if why := c.authenticate(rctx, req, g); why != "" {
		return inconclusive("prometheus " + shown + ": " + why)
	}
	client, done := c.client(timeout)
	defer done()
	resp, err := safehttp.Do(client, req, maxPrometheusAnswer)
	if err != nil {
		var redirect *safehttp.RedirectError
		if errors.As(err, &redirect) {
			return inconclusive(fmt.Sprintf("prometheus %s answered %d (redirects are not followed)", shown, redirect.Status))
		}
		return inconclusive("prometheus " + shown + ": " + reason(err, timeout))
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	switch {
	case errors.Is(err, safehttp.ErrTooLarge):
		return inconclusive(fmt.Sprintf("prometheus %s: answer larger than %d MiB", shown, maxPrometheusAnswer>>20))
	case err != nil:
		return inconclusive("prometheus " + shown + ": reading the answer: " + reason(err, timeout))
	}
	samples, err := parseAnswer(resp.StatusCode, body)
	if err != nil {
		return inconclusive("prometheus " + shown + ": " + err.Error())
	}
	return evaluate(samples, g.Min, g.Max)
}

// authenticate adds g's credentials to req, resolved now through c.Secret;
// it says why it cannot ("" when it did, or g needs none). The reason names
// the secret, never its value or its reference.
func (c Checker) authenticate(ctx context.Context, req *http.Request, g deploy.PrometheusGate) string {
	if g.BasicAuth == nil && g.BearerSecret == "" {
		return ""
	}
	name := g.BearerSecret
	if g.BasicAuth != nil {
		name = g.BasicAuth.PasswordSecret
	}
	if c.Secret == nil {
		return "secret " + name + " cannot be resolved here"
	}
	v, err := c.Secret(ctx, name)
	if err != nil {
		// Written for readers: which secret, never where it is kept.
		return err.Error()
	}
	if g.BasicAuth != nil {
		req.SetBasicAuth(g.BasicAuth.Username, v)
		return ""
	}
	if v == "" || deploy.UnsafeText(v, "") != "" {
		// It would break the header, or send none.
		return "secret " + name + " is not a token: empty, or with a control character"
	}
	req.Header.Set("Authorization", "Bearer "+v)
	return ""
}

// queryURL is the instant query endpoint under base (a Prometheus's root
// URL, or its /api/v1/query itself), the query as a query parameter. A
// base with user info is refused: credentials are secrets (basic_auth,
// bearer_secret), and a URL that holds them was stored in clear with the
// deploy (an effective deploy of an earlier version).
func queryURL(base, query string, at time.Time, timeout time.Duration) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", errors.New("prometheus url must be an absolute http:// or https:// URL")
	}
	if u.User != nil {
		return "", errors.New("prometheus url holds credentials (user:password@), which manent no longer sends: give basic_auth in the environment configuration")
	}
	if p := strings.TrimSuffix(u.Path, "/"); strings.HasSuffix(p, "/api/v1/query") {
		u.Path, u.RawPath = p, ""
	} else {
		u = u.JoinPath("api", "v1", "query")
	}
	q := u.Query()
	q.Set("query", query)
	q.Set("time", strconv.FormatFloat(float64(at.UnixMilli())/1e3, 'f', 3, 64))
	// Prometheus stops evaluating when the gate stops waiting.
	q.Set("timeout", strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64))
	u.RawQuery, u.Fragment, u.RawFragment = q.Encode(), "", ""
	return u.String(), nil
}

// sample is one value of the answer and the labels of its series ("" for a
// scalar).
type sample struct {
	series string
	value  float64
}

// answer is Prometheus's JSON envelope (/api/v1/query).
type answer struct {
	Status    string          `json:"status"`
	Data      json.RawMessage `json:"data"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
}

type answerData struct {
	ResultType string          `json:"resultType"`
	Result     json.RawMessage `json:"result"`
}

type vectorSample struct {
	Metric map[string]string `json:"metric"`
	Value  json.RawMessage   `json:"value"`
}

// parseAnswer reads the samples of an instant query's answer, or says why
// it holds none that can be read.
func parseAnswer(status int, body []byte) ([]sample, error) {
	var a answer
	jsonErr := json.Unmarshal(body, &a)
	switch {
	case jsonErr == nil && a.Status == "error":
		return nil, fmt.Errorf("query refused: %s: %s", a.ErrorType, a.Error)
	case status < 200 || status > 299:
		return nil, fmt.Errorf("answered HTTP %d", status)
	case jsonErr != nil || a.Status != "success" || len(a.Data) == 0:
		return nil, errors.New("the answer is not Prometheus's query API JSON")
	}
	var d answerData
	if err := json.Unmarshal(a.Data, &d); err != nil {
		return nil, errors.New("the answer is not Prometheus's query API JSON")
	}
	switch d.ResultType {
	case "vector":
		var vs []vectorSample
		if err := json.Unmarshal(d.Result, &vs); err != nil {
			return nil, errors.New("the answer's vector cannot be read")
		}
		out := make([]sample, len(vs))
		for i, v := range vs {
			f, err := parsePoint(v.Value)
			if err != nil {
				return nil, err
			}
			out[i] = sample{series: seriesName(v.Metric), value: f}
		}
		return out, nil
	case "scalar":
		f, err := parsePoint(d.Result)
		if err != nil {
			return nil, err
		}
		return []sample{{value: f}}, nil
	case "matrix":
		return nil, errors.New("the query gives a range vector: write an instant query (no [range] at its end)")
	case "string":
		return nil, errors.New("the query gives a string, not a number")
	}
	return nil, fmt.Errorf("unknown result type %q", d.ResultType)
}

// parsePoint reads a [time, "value"] pair.
func parsePoint(raw json.RawMessage) (float64, error) {
	var pair []json.RawMessage
	var s string
	if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 || json.Unmarshal(pair[1], &s) != nil {
		return 0, errors.New("a sample of the answer is not a [time, value] pair")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("a sample's value %q is not a number", s)
	}
	return f, nil
}

// seriesName is a series as PromQL writes it: name{label="value",...},
// labels sorted.
func seriesName(metric map[string]string) string {
	keys := make([]string, 0, len(metric))
	for k := range metric {
		if k != "__name__" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(metric["__name__"])
	if len(keys) > 0 {
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k + "=" + strconv.Quote(metric[k]))
		}
		b.WriteByte('}')
	}
	return b.String()
}

// evaluate holds the samples to [lo, hi] (the gate's min and max). The worst sample is the one
// with the least margin to a bound (negative outside them); a failure
// outweighs missing data, which outweighs a pass.
func evaluate(samples []sample, lo, hi *float64) Result {
	if len(samples) == 0 {
		return Result{State: deploy.GateNoData, Detail: "the query gives no series"}
	}
	var worst *sample
	var worstMargin float64
	var missing []string
	var outside int
	for i := range samples {
		s := &samples[i]
		if math.IsNaN(s.value) || math.IsInf(s.value, 0) {
			missing = append(missing, strings.TrimSpace(formatValue(s.value)+" "+s.series))
			continue
		}
		m := margin(s.value, lo, hi)
		if m < 0 {
			outside++
		}
		if worst == nil || m < worstMargin || (m == worstMargin && s.series < worst.series) {
			worst, worstMargin = s, m
		}
	}
	of := ""
	if len(samples) > 1 {
		of = fmt.Sprintf(" (%d of %s)", outside, seriesCount(len(samples)))
	}
	switch {
	case worst != nil && worstMargin < 0:
		v := worst.value
		return Result{State: deploy.GateFail, Value: &v,
			Detail: short(strings.TrimSpace(formatValue(v)+" "+worst.series) + " is " + outOf(v, lo, hi) + of)}
	case len(missing) > 0:
		return Result{State: deploy.GateNoData, Detail: short(joinDetail(missing, len(samples)) + ": no value")}
	}
	v := worst.value
	detail := strings.TrimSpace(formatValue(v) + " " + worst.series)
	if len(samples) > 1 {
		detail = "worst of " + seriesCount(len(samples)) + ": " + detail
	}
	return Result{State: deploy.GatePass, Value: &v, Detail: short(detail + " " + boundsText(lo, hi))}
}

func seriesCount(n int) string { return strconv.Itoa(n) + " series" }

// margin is how far v is inside [lo, hi] (negative outside): the distance
// to the nearer bound given, 0 without bounds.
func margin(v float64, lo, hi *float64) float64 {
	m := math.Inf(1)
	if lo != nil {
		m = v - *lo
	}
	if hi != nil {
		m = math.Min(m, *hi-v)
	}
	if math.IsInf(m, 1) {
		return 0
	}
	return m
}

func outOf(v float64, lo, hi *float64) string {
	if hi != nil && v > *hi {
		return "above max " + formatValue(*hi)
	}
	return "below min " + formatValue(*lo)
}

func boundsText(lo, hi *float64) string {
	switch {
	case lo != nil && hi != nil:
		return "(within " + formatValue(*lo) + ".." + formatValue(*hi) + ")"
	case hi != nil:
		return "(max " + formatValue(*hi) + ")"
	case lo != nil:
		return "(min " + formatValue(*lo) + ")"
	}
	return "(no bounds)"
}
