package bench

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkDeployVsBareDBOS runs, at every iteration, one manent deploy
// (engine.Submit on the full default pipeline with a no-op plugin, waited
// for through the events of postgres.Events) and one bare DBOS workflow with
// one no-op step per step of the deploy's plan, plus its start and its end
// (10), enqueued on a partitioned queue with the same settings: the same
// work as far as DBOS can see it. Each is timed on its own, from
// the call to the moment the caller learns it succeeded; the two alternate
// which goes first, and each starts at a random moment of the queue's
// polling cycle. Every metric is a median over the iterations:
//
//	manent-ms/op   a manent deploy, submission to SUCCESS
//	dbos-ms/op     the bare DBOS workflow, enqueue to its last step stored
//	ratio          manent-ms/op ÷ dbos-ms/op
//	manent-run-ms  of manent-ms/op, from the first step on (no queue wait)
//	dbos-run-ms    of dbos-ms/op, from the first step on
//	run-ratio      manent-run-ms ÷ dbos-run-ms: the steps alone, as their
//	               callers learn of the end
//	manent-stored-ms  from the first step's start to the end's record, as
//	               the deploy's record says: what dbos-run-ms measures of
//	               the bare workflow (its last step stored)
//	stored-ratio   manent-stored-ms ÷ dbos-run-ms
//	submit-ms      of manent-ms/op, until engine.Submit returned
//	enqueue-ms     of dbos-ms/op, until dbos.Enqueue returned
//	steps          DBOS steps of the bare workflow
//	manent-steps   DBOS steps a manent deploy records (its records are
//	               transactions of their own: DBOS's and the read model's)
//
// ns/op is zeroed: an iteration is two workloads, its time means nothing.
func BenchmarkDeployVsBareDBOS(b *testing.B) {
	m := newManent(b, setup{environments: 1, worker: true})
	poll := m.cfg.Queues.PollInterval
	w := newBare(b, poll)
	environment := envName(0)
	partition := "demo/app/" + environment

	// One of each before measuring: pools, prepared plans and the queues'
	// first polls warm up.
	if _, err := m.deploy("warm", environment); err != nil {
		b.Fatal(err)
	}
	recorded := dbosSteps(b, m.url, "warm")
	steps := m.planSteps(b, environment) + 2
	if _, err := w.run("warm", partition, steps); err != nil {
		b.Fatal(err)
	}

	var manent, dbos []timing
	for b.Loop() {
		n := len(manent)
		id := fmt.Sprintf("d%d", n)
		runManent := func() {
			t, err := m.deploy(id, environment)
			if err != nil {
				b.Fatal(err)
			}
			manent = append(manent, t)
		}
		runDBOS := func() {
			t, err := w.run(id, partition, steps)
			if err != nil {
				b.Fatal(err)
			}
			dbos = append(dbos, t)
		}
		first, second := runManent, runDBOS
		if n%2 == 1 {
			first, second = runDBOS, runManent
		}
		// A call one step after the other would come right after a poll
		// of its queue, and wait nearly a whole interval every time: a random
		// pause makes each arrive at a random moment of the polling cycle,
		// like a deploy a person or a CI job submits.
		time.Sleep(rand.N(poll))
		first()
		time.Sleep(rand.N(poll))
		second()
	}
	pick := func(ts []timing, f func(timing) time.Duration) time.Duration {
		ds := make([]time.Duration, len(ts))
		for i, t := range ts {
			ds[i] = f(t)
		}
		return median(ds)
	}
	total := func(t timing) time.Duration { return t.total }
	run := func(t timing) time.Duration { return t.run }
	stored := func(t timing) time.Duration { return t.stored }
	accept := func(t timing) time.Duration { return t.accept }
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(ms(pick(manent, total)), "manent-ms/op")
	b.ReportMetric(ms(pick(dbos, total)), "dbos-ms/op")
	b.ReportMetric(float64(pick(manent, total))/float64(pick(dbos, total)), "ratio")
	b.ReportMetric(ms(pick(manent, run)), "manent-run-ms")
	b.ReportMetric(ms(pick(dbos, run)), "dbos-run-ms")
	b.ReportMetric(float64(pick(manent, run))/float64(pick(dbos, run)), "run-ratio")
	b.ReportMetric(ms(pick(manent, stored)), "manent-stored-ms")
	b.ReportMetric(float64(pick(manent, stored))/float64(pick(dbos, run)), "stored-ratio")
	b.ReportMetric(ms(pick(manent, accept)), "submit-ms")
	b.ReportMetric(ms(pick(dbos, accept)), "enqueue-ms")
	b.ReportMetric(float64(steps), "steps")
	b.ReportMetric(float64(recorded), "manent-steps")
}
