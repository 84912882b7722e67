package engine_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/pgtest"
)

// TestPrometheusGateBasicAuthFromSecret: a Prometheus gate behind basic
// authentication names the secret of the environment configuration that
// holds the password; the worker resolves it when it checks the gate, so
// the query authenticates and the gate passes, while nothing manent or
// DBOS stores of the deploy (its effective deploy, descriptor, steps, log,
// audit entries, the workflows' inputs and outputs) holds the password.
func TestPrometheusGateBasicAuthFromSecret(t *testing.T) {
	const password = "s3cr3t-Pa55-for-the-gate"
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user, pass, ok := r.BasicAuth(); !ok || user != "reader" || pass != password {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"0.001"]}]}}`)
	}))
	t.Cleanup(prom.Close)
	f := newFleetEnv(t, "promauth", nil, []fleetTarget{{"a", "r: x"}, {"b", "r: y"}}, fmt.Sprintf(`secrets: [{name: prom, ref: "file:secrets/prom-password"}]
rollout:
  waves: [{name: one, count: 1}, {name: two}]
  gates:
    - name: errors
      prometheus: {url: %q, query: up, max: 0.01, basic_auth: {username: reader, password_secret: prom}}
`, prom.URL))
	// The file's trailing new line is not part of the password.
	writeFile(t, filepath.Join(f.dir, "secrets/prom-password"), password+"\n")

	d := f.deploy("pa", "1.0.0", deploy.StateSuccess)
	for _, w := range d.RolloutStatus().Waves {
		if w.Gate == nil || w.Gate.State != deploy.GatePass {
			t.Fatalf("wave %s: gate %+v, want pass (the query authenticated)", w.Name, w.Gate)
		}
	}

	eff := pgtest.Strings(t, f.url, `SELECT effective::text FROM manent.deployments WHERE id = $1`, "pa")
	if len(eff) != 1 || !strings.Contains(eff[0], `"basic_auth": {"username": "reader", "password_secret": "prom"}`) {
		t.Fatalf("stored effective deploy %q: want the gate's basic_auth by the secret's name", eff)
	}
	stored := map[string][]string{
		"deployments": pgtest.Strings(t, f.url, `SELECT row_to_json(d)::text FROM manent.deployments d WHERE id = $1`, "pa"),
		"steps":       pgtest.Strings(t, f.url, `SELECT row_to_json(s)::text FROM manent.deployment_steps s WHERE deployment_id = $1`, "pa"),
		"logs":        pgtest.Strings(t, f.url, `SELECT message FROM manent.deployment_logs WHERE deployment_id = $1`, "pa"),
		"audit":       pgtest.Strings(t, f.url, `SELECT row_to_json(a)::text FROM manent.audit a WHERE target = $1`, "pa"),
	}
	// DBOS keeps values base64-encoded: read them decoded too.
	for _, c := range []struct{ table, column, id string }{
		{"workflow_input", "inputs", "workflow_uuid"}, {"workflow_output", "output", "workflow_uuid"},
		{"workflow_output", "error", "workflow_uuid"}, {"workflow_status", "inputs", "workflow_uuid"},
		{"workflow_status", "output", "workflow_uuid"}, {"operation_outputs", "output", "workflow_uuid"},
		{"operation_outputs", "error", "workflow_uuid"}, {"workflow_events", "value", "workflow_uuid"},
		{"streams", "value", "workflow_uuid"}, {"notifications", "message", "destination_uuid"},
	} {
		key := "dbos." + c.table + "." + c.column
		for _, v := range pgtest.Strings(t, f.url, fmt.Sprintf(`SELECT %s FROM dbos.%s WHERE %s LIKE 'pa%%' AND %s IS NOT NULL`,
			c.column, c.table, c.id, c.column)) {
			stored[key] = append(stored[key], v, decoded(v))
		}
	}
	// The scan reads what DBOS stores: the deploy's input holds the gate.
	if !strings.Contains(strings.Join(stored["dbos.workflow_input.inputs"], " "), "password_secret") {
		t.Fatalf("the deploy's workflow input, decoded, does not hold the gate: %v", stored["dbos.workflow_input.inputs"])
	}
	for table, rows := range stored {
		for _, row := range rows {
			if strings.Contains(row, password) {
				t.Errorf("%s holds the password: %s", table, row)
			}
		}
	}
}

// decoded is s decoded from base64 (DBOS stores values so); "" when it is
// not base64.
func decoded(s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return ""
	}
	return string(b)
}
