package bench

import (
	"fmt"
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
