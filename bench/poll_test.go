package bench

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fleet is how many environments deploy at once: the workload of which
// DESIGN.md §1 says the polling interval caps the throughput.
const fleet = 50

// basePoll is the default queues.poll_interval, the reference of the ratios.
const basePoll = 50 * time.Millisecond

// BenchmarkQueuePollInterval measures the throughput of fleet environments
// deploying at once (one deploy each, submitted together, until the last
// SUCCESS) for several queues.poll_interval. Every sub-benchmark has its own
// engine at its interval, and at every iteration runs a round on it and a
// round on an engine at the default 50ms, alternating which goes first, so
// the ratio compares rounds run under the same load of the machine. Worker
// concurrency is fleet, so all can run at once and only the polling and the
// deploys themselves limit them. Metrics:
//
//	deploys/s        throughput at the sub-benchmark's interval
//	50ms-deploys/s   throughput of the rounds at the default interval
//	ratio-to-50ms    deploys/s ÷ 50ms-deploys/s
//
// ns/op is zeroed: an iteration is two rounds, its time means nothing.
func BenchmarkQueuePollInterval(b *testing.B) {
	base := newManent(b, fleetSetup(basePoll))
	var rounds atomic.Int64
	round := func(b *testing.B, m *manent) time.Duration {
		r := rounds.Add(1)
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, fleet)
		for i := range fleet {
			wg.Go(func() {
				if _, err := m.deploy(fmt.Sprintf("r%d-%d", r, i), envName(i)); err != nil {
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
	round(b, base) // warm-up

	for _, poll := range []time.Duration{time.Second, 200 * time.Millisecond, basePoll, 10 * time.Millisecond} {
		b.Run("poll="+poll.String(), func(b *testing.B) {
			m := newManent(b, fleetSetup(poll))
			round(b, m)
			var n int
			var atPoll, atBase time.Duration
			for b.Loop() {
				if n%2 == 0 {
					atPoll += round(b, m)
					atBase += round(b, base)
				} else {
					atBase += round(b, base)
					atPoll += round(b, m)
				}
				n++
			}
			rate := func(d time.Duration) float64 { return float64(fleet*n) / d.Seconds() }
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(rate(atPoll), "deploys/s")
			b.ReportMetric(rate(atBase), "50ms-deploys/s")
			b.ReportMetric(rate(atPoll)/rate(atBase), "ratio-to-50ms")
		})
	}
}

func fleetSetup(poll time.Duration) setup {
	return setup{
		queues:       fmt.Sprintf("{poll_interval: %s, worker_concurrency: %d}", poll, fleet),
		environments: fleet,
		worker:       true,
	}
}
