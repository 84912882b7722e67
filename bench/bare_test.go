package bench

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/internal/pgtest"
)

const (
	bareWorkflow = "bench.bare"
	bareQueue    = "bench.bare"
)

// bare is DBOS alone, on a database of its own: one workflow of no-op steps
// on a queue shaped like manent's deploy queue.
type bare struct {
	dbos dbos.Context
	url  string
	// close shuts DBOS down, once; the benchmark's cleanup calls it too.
	close func()
	mu    sync.Mutex
	runs  map[string]*bareRun
}

// bareRun is what the workflow tells its waiter, in-process.
type bareRun struct {
	started time.Time
	done    chan struct{}
}

type bareInput struct {
	Steps int `json:"steps"`
}

// newBare registers the workflow and its queue with manent's queue
// settings (partition concurrency 1, no worker concurrency: manent bounds
// the work of a process itself, and the same polling interval), so both
// sides wait for the same polls.
func newBare(b *testing.B, poll time.Duration, opts ...dbos.QueueOption) *bare {
	b.Helper()
	url := pgtest.URL(b)
	c, err := dbos.NewContext(context.Background(), dbos.Config{
		AppName: "bench", DatabaseURL: url, Logger: quietLogger(),
		ApplicationVersion: "bench-1", ExecutorID: "bench-bare",
	})
	if err != nil {
		b.Fatal(err)
	}
	var once sync.Once
	w := &bare{dbos: c, url: url, runs: map[string]*bareRun{}, close: func() {
		once.Do(func() { _ = dbos.Shutdown(c, 30*time.Second) })
	}}
	b.Cleanup(w.close)
	dbos.RegisterWorkflow(c, w.workflow, dbos.WithWorkflowName(bareWorkflow))
	opts = append([]dbos.QueueOption{dbos.WithPartitionConcurrency(1), dbos.WithQueueBasePollingInterval(poll)}, opts...)
	if _, err := dbos.RegisterQueue(c, bareQueue, opts...); err != nil {
		b.Fatal(err)
	}
	if err := dbos.Launch(c); err != nil {
		b.Fatal(err)
	}
	return w
}

func (w *bare) workflow(ctx dbos.Context, in bareInput) (string, error) {
	id, err := dbos.GetWorkflowID(ctx)
	if err != nil {
		return "", err
	}
	w.mu.Lock()
	run := w.runs[id]
	delete(w.runs, id)
	w.mu.Unlock()
	for i := range in.Steps {
		if _, err := dbos.RunAsStep(ctx, func(context.Context) (string, error) {
			if i == 0 && run != nil {
				run.started = time.Now()
			}
			return "", nil
		}, dbos.WithStepName("noop-"+strconv.Itoa(i))); err != nil {
			return "", err
		}
	}
	// The last step's result is stored: tell the waiter in-process, the
	// fastest a DBOS caller can learn of it (GetResult polls).
	if run != nil {
		close(run.done)
	}
	return "ok", nil
}

// run enqueues a workflow of steps no-op steps on partition and waits
// until its last step is stored.
func (w *bare) run(id, partition string, steps int) (timing, error) {
	run := &bareRun{done: make(chan struct{})}
	w.mu.Lock()
	w.runs[id] = run
	w.mu.Unlock()
	start := time.Now()
	if _, err := dbos.Enqueue[string](w.dbos, bareQueue, bareWorkflow, bareInput{Steps: steps},
		dbos.WithEnqueueWorkflowID(id),
		dbos.WithEnqueueQueuePartitionKey(partition)); err != nil {
		return timing{}, fmt.Errorf("enqueue %s: %w", id, err)
	}
	accept := time.Since(start)
	select {
	case <-run.done:
		at := time.Now()
		return timing{accept: accept, run: at.Sub(run.started), total: at.Sub(start)}, nil
	case <-time.After(2 * time.Minute):
		return timing{}, fmt.Errorf("workflow %s did not finish", id)
	}
}

// dbosSteps counts the steps DBOS recorded for a workflow of the engine's
// database: the bare workflow runs as many.
func dbosSteps(b *testing.B, url, workflowID string) int {
	b.Helper()
	// Its shutdown logs an error about its listener; nothing is wrong.
	c, err := dbos.NewClient(context.Background(), dbos.ClientConfig{DatabaseURL: url, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = dbos.Shutdown(c, 10*time.Second) }()
	steps, err := dbos.GetWorkflowSteps(c, workflowID)
	if err != nil {
		b.Fatal(err)
	}
	return len(steps)
}
