package bench

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// BenchmarkFleetVsBareDBOS measures the throughput of fleet environments
// deploying at once against bare DBOS's partitioned queue doing the same:
// at every iteration, one round of fleet deploys (one per environment,
// submitted together, until the last SUCCESS) on an engine with a worker
// concurrency of fleet, and one round of fleet bare workflows of 10 no-op
// steps (as many as a deploy records), one per partition of a queue with
// partition concurrency 1 and the same worker concurrency and polling. The
// two alternate which goes first. Metrics:
//
//	manent-deploys/s  manent's throughput
//	dbos-workflows/s  bare DBOS's throughput
//	ratio             manent-deploys/s ÷ dbos-workflows/s
//
// ns/op is zeroed: an iteration is two rounds, its time means nothing.
func BenchmarkFleetVsBareDBOS(b *testing.B) {
	const steps = 10
	m := newManent(b, fleetSetup(basePoll))
	w := newBare(b, basePoll, dbos.WithWorkerConcurrency(fleet))
	together := func(run func(i int) error) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, fleet)
		for i := range fleet {
			wg.Go(func() {
				if err := run(i); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		close(errs)
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
		return elapsed
	}
	round := 0
	manentRound := func() time.Duration {
		return together(func(i int) error {
			_, err := m.deploy(fmt.Sprintf("r%d-%d", round, i), envName(i))
			return err
		})
	}
	dbosRound := func() time.Duration {
		return together(func(i int) error {
			_, err := w.run(fmt.Sprintf("r%d-%d", round, i), "demo/app/"+envName(i), steps)
			return err
		})
	}
	manentRound() // warm-up
	dbosRound()
	round++
	var atManent, atDBOS time.Duration
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			atManent += manentRound()
			atDBOS += dbosRound()
		} else {
			atDBOS += dbosRound()
			atManent += manentRound()
		}
		n++
		round++
	}
	rate := func(d time.Duration) float64 { return float64(fleet*n) / d.Seconds() }
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(rate(atManent), "manent-deploys/s")
	b.ReportMetric(rate(atDBOS), "dbos-workflows/s")
	b.ReportMetric(rate(atManent)/rate(atDBOS), "ratio")
}
