package bench

import (
	"fmt"
	"testing"
	"time"
)

// cpuRound is how many deploys (or bare workflows) one measured round runs.
const cpuRound = 20

// BenchmarkDeployCPU measures the CPU a deploy costs, this process's and
// PostgreSQL's, against a bare DBOS workflow of as many no-op steps. At
// every iteration, one round of each: an engine (or a bare DBOS) is started
// on a fresh database, runs one deploy to warm up, then cpuRound deploys
// one after the other (as BenchmarkDeployVsBareDBOS does: the caller follows
// each through its events), and is stopped; the CPU counted is from the
// first submission of the round to the last success, so the start and the
// stop of either side are not in it, while its polling of its queues while
// it waits is. Only one side runs at a time; the two alternate which goes
// first. Metrics, means over the rounds:
//
//	manent-cpu-ms   CPU per deploy: this process and PostgreSQL
//	dbos-cpu-ms     CPU per bare workflow, the same way
//	cpu-ratio       manent-cpu-ms ÷ dbos-cpu-ms
//	manent-self-ms, manent-pg-ms, dbos-self-ms, dbos-pg-ms  the two parts
//
// PostgreSQL's part needs the server on this machine (the embedded one is);
// elsewhere the figures are this process's alone, and the log says so.
//
// ns/op is zeroed: an iteration is two rounds, its time means nothing.
func BenchmarkDeployCPU(b *testing.B) {
	var meter *cpuMeter
	var manentCPU, dbosCPU cpuTimes
	rounds := 0
	runManent := func() {
		m := newManent(b, setup{environments: 1, worker: true})
		defer m.close()
		if meter == nil {
			meter = newCPUMeter(b, m.url)
		}
		if _, err := m.deploy("warm", envName(0)); err != nil {
			b.Fatal(err)
		}
		start := meter.start()
		for i := range cpuRound {
			if _, err := m.deploy(fmt.Sprintf("d%d", i), envName(0)); err != nil {
				b.Fatal(err)
			}
		}
		used := meter.stop().sub(start)
		manentCPU.self += used.self
		manentCPU.postgres += used.postgres
	}
	runDBOS := func() {
		// The same number of steps as the deploy records (config to
		// cleanup, its start and its finish).
		const steps = 10
		w := newBare(b, basePoll)
		defer w.close()
		if meter == nil {
			meter = newCPUMeter(b, w.url)
		}
		if _, err := w.run("warm", "demo/app/env00", steps); err != nil {
			b.Fatal(err)
		}
		start := meter.start()
		for i := range cpuRound {
			if _, err := w.run(fmt.Sprintf("d%d", i), "demo/app/env00", steps); err != nil {
				b.Fatal(err)
			}
		}
		used := meter.stop().sub(start)
		dbosCPU.self += used.self
		dbosCPU.postgres += used.postgres
	}
	for b.Loop() {
		if rounds%2 == 0 {
			runManent()
			runDBOS()
		} else {
			runDBOS()
			runManent()
		}
		rounds++
	}
	per := func(d time.Duration) float64 { return ms(d) / float64(rounds*cpuRound) }
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(per(manentCPU.total()), "manent-cpu-ms")
	b.ReportMetric(per(dbosCPU.total()), "dbos-cpu-ms")
	b.ReportMetric(float64(manentCPU.total())/float64(dbosCPU.total()), "cpu-ratio")
	b.ReportMetric(per(manentCPU.self), "manent-self-ms")
	b.ReportMetric(per(manentCPU.postgres), "manent-pg-ms")
	b.ReportMetric(per(dbosCPU.self), "dbos-self-ms")
	b.ReportMetric(per(dbosCPU.postgres), "dbos-pg-ms")
}
