package main

import (
	"reflect"
	"testing"

	"manent.dev/manent/client/clienttest"
)

func doraFiguresJSON(deploys int, band any, lead any, leadBand any) map[string]any {
	rate := func(count, of int, enough bool, band any, ids []string) map[string]any {
		r := 0.0
		if of > 0 {
			r = float64(count) / float64(of)
		}
		return map[string]any{"count": count, "of": of, "rate": r, "enoughData": enough, "band": band, "deploymentIds": ids}
	}
	ids := []string{}
	if deploys > 0 {
		ids = []string{"a", "b", "c", "d", "e", "f"}[:deploys]
	}
	return map[string]any{
		"deploymentFrequency": map[string]any{"deploys": deploys, "perWeek": float64(deploys), "band": band, "deploymentIds": ids},
		"leadTime":            map[string]any{"seconds": lead, "samples": deploys, "enoughData": deploys >= 5, "band": leadBand, "deploymentIds": ids},
		"changeFailRate":      rate(min(deploys, 1), deploys, deploys >= 5, map[bool]any{true: "MEDIUM", false: nil}[deploys >= 5], ids[:min(deploys, 1)]),
		"recoveryTime": map[string]any{"seconds": nil, "samples": 0, "enoughData": false, "band": nil, "deploymentIds": []string{},
			"recoveries": []any{}, "unrecoveredIds": ids[:min(deploys, 1)]},
		"reworkRate": rate(0, deploys, deploys >= 5, nil, []string{}),
	}
}

// doraServer answers GetDoraMetrics with two weeks: an empty one and one
// with enough data, and records the variables it was asked with.
func doraServer(t *testing.T, asked *map[string]any) *clienttest.Server {
	srv := clienttest.New(t)
	srv.Handle("GetDoraMetrics", func(r clienttest.Request) (any, *clienttest.Error) {
		*asked = r.Variables
		return map[string]any{"doraMetrics": map[string]any{
			"from": "2026-01-05T00:00:00Z", "to": "2026-01-19T00:00:00Z",
			"weeks": []any{
				map[string]any{"year": 2026, "week": 2, "start": "2026-01-05T00:00:00Z", "figures": doraFiguresJSON(0, "LOW", nil, nil)},
				map[string]any{"year": 2026, "week": 3, "start": "2026-01-12T00:00:00Z", "figures": doraFiguresJSON(5, "HIGH", 5400.0, "ELITE")},
			},
			"total": doraFiguresJSON(5, "HIGH", 5400.0, "ELITE"),
		}}, nil
	})
	return srv
}

func TestDoraTable(t *testing.T) {
	var asked map[string]any
	srv := doraServer(t, &asked)
	r := runCLI(t, map[string]string{envServer: srv.URL}, "", "dora", "--environment", "prod",
		"--from", "2026-01-05", "--to", "2026-01-19T00:00:00Z", "--window", "12h")
	want := `WEEK      DEPLOYS   LEAD TIME      CHANGE FAIL RATE      RECOVERY TIME  UNRECOVERED  REWORK RATE
2026-W02  0 (low)   -              -                     -              0            -
2026-W03  5 (high)  1h30m (elite)  20.0% (1/5) (medium)  -              1            0.0% (0/5)
total     5 (high)  1h30m (elite)  20.0% (1/5) (medium)  -              1            0.0% (0/5)
`
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d, got:\n%s\nwant:\n%s%s", r.code, r.stdout, want, r.stderr)
	}
	wantVars := map[string]any{"environment": "prod", "from": "2026-01-05T00:00:00Z", "to": "2026-01-19T00:00:00Z",
		"failureWindowHours": float64(12)}
	if !reflect.DeepEqual(asked, wantVars) {
		t.Errorf("asked %v, want %v", asked, wantVars)
	}
}

func TestDoraJSON(t *testing.T) {
	var asked map[string]any
	srv := doraServer(t, &asked)
	r := runCLI(t, map[string]string{envServer: srv.URL}, "", "dora", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if len(asked) != 0 {
		t.Errorf("asked %v: the defaults are the server's", asked)
	}
	empty := `{"deployment_frequency":{"deploys":0,"per_week":0,"band":"low","deployment_ids":[]},` +
		`"lead_time":{"seconds":null,"samples":0,"enough_data":false,"band":null,"deployment_ids":[]},` +
		`"change_fail_rate":{"count":0,"of":0,"rate":0,"enough_data":false,"band":null,"deployment_ids":[]},` +
		`"failed_deployment_recovery_time":{"seconds":null,"samples":0,"enough_data":false,"band":null,"deployment_ids":[],` +
		`"recoveries":[],"unrecovered_ids":[]},` +
		`"deployment_rework_rate":{"count":0,"of":0,"rate":0,"enough_data":false,"band":null,"deployment_ids":[]}}`
	full := `{"deployment_frequency":{"deploys":5,"per_week":5,"band":"high","deployment_ids":["a","b","c","d","e"]},` +
		`"lead_time":{"seconds":5400,"samples":5,"enough_data":true,"band":"elite","deployment_ids":["a","b","c","d","e"]},` +
		`"change_fail_rate":{"count":1,"of":5,"rate":0.2,"enough_data":true,"band":"medium","deployment_ids":["a"]},` +
		`"failed_deployment_recovery_time":{"seconds":null,"samples":0,"enough_data":false,"band":null,"deployment_ids":[],` +
		`"recoveries":[],"unrecovered_ids":["a"]},` +
		`"deployment_rework_rate":{"count":0,"of":5,"rate":0,"enough_data":true,"band":null,"deployment_ids":[]}}`
	want := `{"from":"2026-01-05T00:00:00Z","to":"2026-01-19T00:00:00Z","weeks":[` +
		`{"week":"2026-W02","start":"2026-01-05T00:00:00Z",` + empty[1:] + `,` +
		`{"week":"2026-W03","start":"2026-01-12T00:00:00Z",` + full[1:] + `],"total":` + full + `}`
	if got, w := canonicalJSON(t, []byte(r.stdout)), canonicalJSON(t, []byte(want)); got != w {
		t.Errorf("got  %s\nwant %s", got, w)
	}
}

func TestDoraRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"dora", "--from", "yesterday"},
		{"dora", "--to", "2026-13-01"},
		{"dora", "--window", "90m"},
		{"dora", "--window", "soon"},
		{"dora", "prod"},
	} {
		if r := runCLI(t, map[string]string{envServer: "http://127.0.0.1:1"}, "", args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)\n%s", args, r.code, r.stderr)
		}
	}
}
