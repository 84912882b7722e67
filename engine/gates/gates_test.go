package gates

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"manent.dev/manent/deploy"
)

func TestDecide(t *testing.T) {
	pass := Result{State: deploy.GatePass}
	fail := Result{State: deploy.GateFail}
	unknown := Result{State: deploy.GateInconclusive}
	empty := Result{State: deploy.GateNoData}
	tests := []struct {
		name    string
		results []Result
		noData  deploy.NoDataPolicy
		want    Verdict
	}{
		{"no gates: the rollout goes on", nil, "", VerdictPass},
		{"every gate passed", []Result{pass, pass}, "", VerdictPass},
		{"a failed gate fails the wave", []Result{pass, fail}, "", VerdictFail},
		{"an inconclusive gate pauses", []Result{pass, unknown}, "", VerdictPause},
		{"a failure outweighs an inconclusive gate", []Result{unknown, fail}, "", VerdictFail},
		{"no data fails by default", []Result{pass, empty}, "", VerdictFail},
		{"no data under no_data: fail", []Result{empty}, deploy.NoDataFail, VerdictFail},
		{"no data under no_data: pause", []Result{empty, pass}, deploy.NoDataPause, VerdictPause},
		{"no data under no_data: pass", []Result{empty, pass}, deploy.NoDataPass, VerdictPass},
		{"no data passed, a failure still fails", []Result{empty, fail}, deploy.NoDataPass, VerdictFail},
		{"an unknown policy never passes missing data", []Result{empty}, "skip", VerdictFail},
		{"an unknown state never passes", []Result{{State: "maybe"}}, "", VerdictFail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Decide(tt.results, tt.noData); got != tt.want {
				t.Fatalf("Decide = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestCheckMalformedGate(t *testing.T) {
	for _, g := range []deploy.GateSpec{
		{},
		{Name: "both", HTTP: &deploy.HTTPGate{URL: "http://h/"}, Prometheus: &deploy.PrometheusGate{URL: "http://p/", Query: "up"}},
	} {
		r := Check(context.Background(), g, WaveInput{})
		if r.State != deploy.GateInconclusive || r.Name != g.DisplayName() || r.Detail == "" {
			t.Errorf("%+v: %+v, want inconclusive with a detail", g, r)
		}
	}
}

func TestShort(t *testing.T) {
	long := strings.Repeat("é", 400)
	s := short(long)
	if len(s) > maxDetail || !utf8.ValidString(s) || !strings.HasSuffix(s, "…") {
		t.Errorf("short(long) = %d bytes, valid %v: %q", len(s), utf8.ValidString(s), s)
	}
	if got := short("a\nb\x1b[31m"); got != `a\nb\x1b[31m` {
		t.Errorf("short escapes to %q", got)
	}
}

// TestResultJSON: a result travels as a step's output; its names are
// durable, and a value-less result has no value.
func TestResultJSON(t *testing.T) {
	v := 0.25
	r := Result{Name: "errors", State: deploy.GateFail, Value: &v, Detail: "0.25 is above max 0.1",
		Targets: []TargetCheck{{Target: "web-1", State: deploy.GatePass, Status: 200, Detail: "answered 200"}}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"errors","state":"fail","value":0.25,"detail":"0.25 is above max 0.1",` +
		`"targets":[{"target":"web-1","state":"pass","status":200,"detail":"answered 200"}],"checked_at":"0001-01-01T00:00:00Z"}`
	if string(b) != want {
		t.Fatalf("JSON\n%s\nwant\n%s", b, want)
	}
	if r.ValueText() != "0.25" || (Result{}).ValueText() != "" {
		t.Errorf("ValueText %q", r.ValueText())
	}
}
