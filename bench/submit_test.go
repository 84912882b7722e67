package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// BenchmarkSubmit compares, at every iteration, a submission (engine.Submit:
// every check, then the deploy row and its DBOS workflow in one
// transaction) with a validate-only one (the checks alone), alternating
// which goes first. The engine is an api process: the deploys it enqueues
// are never run, so nothing else competes for the machine. Every metric is a
// median over the iterations:
//
//	submit-ms      a submission
//	validate-ms    a validate-only submission
//	ratio          submit-ms ÷ validate-ms
//
// ns/op is zeroed: an iteration is two submissions, its time means nothing.
func BenchmarkSubmit(b *testing.B) {
	m := newManent(b, setup{environments: 1, worker: false})
	environment := envName(0)
	submit := func(id string, opts deploy.SubmitOptions) time.Duration {
		start := time.Now()
		if _, err := m.eng.Submit(m.ctx, descriptorFor(id, environment), opts); err != nil {
			b.Fatalf("submit %s: %v", id, err)
		}
		return time.Since(start)
	}
	submit("warm", deploy.SubmitOptions{})
	submit("warm-v", deploy.SubmitOptions{ValidateOnly: true})

	var full, checks []time.Duration
	for b.Loop() {
		n := len(full)
		runFull := func() { full = append(full, submit(fmt.Sprintf("s%d", n), deploy.SubmitOptions{})) }
		runChecks := func() {
			checks = append(checks, submit(fmt.Sprintf("v%d", n), deploy.SubmitOptions{ValidateOnly: true}))
		}
		if n%2 == 0 {
			runFull()
			runChecks()
		} else {
			runChecks()
			runFull()
		}
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(ms(median(full)), "submit-ms")
	b.ReportMetric(ms(median(checks)), "validate-ms")
	b.ReportMetric(float64(median(full))/float64(median(checks)), "ratio")
}

// inventorySize is how many environments of other applications the
// tenant of BenchmarkSubmitLargeInventory has in service.
const inventorySize = 5000

// BenchmarkSubmitLargeInventory compares a validate-only submission (every
// check, governance's included, nothing stored) in a tenant whose inventory
// holds inventorySize environments of other applications, each with a
// release before the one in service, with the same submission in a tenant
// with none, alternating which goes first; both sides run governance. What
// a submission reads must not grow with the installation:
//
//	large-ms   a submission beside inventorySize environments (median)
//	empty-ms   a submission in an empty inventory (median)
//	ratio      large-ms ÷ empty-ms
func BenchmarkSubmitLargeInventory(b *testing.B) {
	governed := setup{environments: 1, governed: true, config: `governance:
  approvals:
    - {name: prod, match: {environment: prod}, count: 1}
`}
	large := newManent(b, governed)
	empty := newManent(b, governed)
	// Two releases per environment: the lateral read of the release before
	// each has something to find.
	for _, q := range []string{
		`INSERT INTO manent.deployments (id, tenant, application, environment, state, created_at)
		 SELECT 'seed-' || g || '-' || r, 'demo', 'app-' || (g / 20), 'env-' || (g % 20), 'ENQUEUED',
			now() - interval '1 day' + r * interval '1 hour'
		 FROM generate_series(0, $1 - 1) AS g, generate_series(0, 1) AS r`,
		// Through the states a deploy goes through, as the lifecycle's
		// trigger wants.
		`UPDATE manent.deployments SET state = 'PENDING', started_at = created_at WHERE id LIKE 'seed-%'`,
		`UPDATE manent.deployments SET state = 'SUCCESS', finished_at = created_at WHERE id LIKE 'seed-%'`,
		`INSERT INTO manent.inventory_history (deployment_id, tenant, application, environment, deployed_at)
		 SELECT id, tenant, application, environment, finished_at FROM manent.deployments WHERE id LIKE 'seed-%'`,
		`INSERT INTO manent.inventory (tenant, application, environment, deployment_id, deployed_at)
		 SELECT tenant, application, environment, id, finished_at FROM manent.deployments WHERE id LIKE 'seed-%-1'`,
	} {
		args := []any{}
		if strings.Contains(q, "$1") {
			args = append(args, inventorySize)
		}
		if _, err := large.db.ExecContext(large.ctx, q, args...); err != nil {
			b.Fatalf("seed the inventory: %v", err)
		}
	}
	environment := envName(0)
	check := func(m *manent, id string) time.Duration {
		start := time.Now()
		if _, err := m.eng.Submit(m.ctx, descriptorFor(id, environment), deploy.SubmitOptions{ValidateOnly: true}); err != nil {
			b.Fatalf("submit %s: %v", id, err)
		}
		return time.Since(start)
	}
	check(large, "warm")
	check(empty, "warm")
	var inLarge, inEmpty []time.Duration
	for b.Loop() {
		n := len(inLarge)
		id := fmt.Sprintf("v%d", n)
		if n%2 == 0 {
			inLarge = append(inLarge, check(large, id))
			inEmpty = append(inEmpty, check(empty, id))
		} else {
			inEmpty = append(inEmpty, check(empty, id))
			inLarge = append(inLarge, check(large, id))
		}
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(ms(median(inLarge)), "large-ms")
	b.ReportMetric(ms(median(inEmpty)), "empty-ms")
	b.ReportMetric(float64(median(inLarge))/float64(median(inEmpty)), "ratio")
}
