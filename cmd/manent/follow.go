package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"manent.dev/manent/client"
)

// tickInterval is how often the live progress redraws its spinner.
const tickInterval = 100 * time.Millisecond

// followDeploy follows a deploy to its end, showing progress on stderr, and
// returns it as it ended (or as last seen, with the error that stopped the
// following). first, when known, is shown before the first event; at is
// the descriptor's schedule.at, shown while the deploy is DELAYED.
func (a *app) followDeploy(ctx context.Context, c *client.Client, id string, first *client.DeploymentDetail, at time.Time) (*client.DeploymentDetail, error) {
	var mu sync.Mutex
	w := a.stderr
	if a.live {
		w = a.terminal
	}
	p := newProgress(w, a.live, a.width, a.now)
	p.at = at
	if first != nil {
		p.Update(*first)
	}
	stop := make(chan struct{})
	var ticker sync.WaitGroup
	if a.live {
		ticker.Add(1)
		go func() {
			defer ticker.Done()
			t := time.NewTicker(tickInterval)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					mu.Lock()
					p.Tick()
					mu.Unlock()
				}
			}
		}()
	}
	last, err := c.Follow(ctx, id, func(e client.Event) error {
		mu.Lock()
		defer mu.Unlock()
		p.Update(e.Deployment)
		return nil
	}, client.OnReconnect(func(attempt int, err error) {
		mu.Lock()
		defer mu.Unlock()
		// The first loss is news; later attempts only every so often.
		if attempt == 1 || attempt%10 == 0 {
			p.Note("lost the connection to %s (%s); reconnecting (attempt %d)", c.Server(), reason(err), attempt)
		}
	}))
	close(stop)
	ticker.Wait()
	p.Finish()
	if a.live && last != nil && client.Terminal(last.State) {
		a.progressf("%s", outcomeLine(*last))
	}
	if last == nil {
		last = first
	}
	return last, err
}

// reason shortens a transport error for a progress note.
func reason(err error) string {
	var u *client.UnreachableError
	if errors.As(err, &u) {
		return u.Reason()
	}
	return err.Error()
}

// followOutcome turns the end of a follow into the exit of the command:
// nil on SUCCESS, exit 1 for any other final state, 124 when the --timeout
// elapsed, the error otherwise.
func followOutcome(id string, last *client.DeploymentDetail, err error, timeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) {
		state := "unknown"
		if last != nil {
			state = string(last.State)
		}
		return &exitError{code: exitTimeout, msg: fmt.Sprintf(
			"timed out after %s following deployment %s (last seen %s); it goes on: manent status %s", timeout, id, state, id)}
	}
	if errors.Is(err, context.Canceled) {
		return &exitError{code: exitInterrupted, msg: fmt.Sprintf(
			"stopped following deployment %s; it goes on: manent status %s", id, id)}
	}
	if err != nil {
		return err
	}
	if last.State != client.DeploymentStateSuccess {
		// The progress already said how it ended.
		return &exitError{code: exitFailed}
	}
	return nil
}
