package main

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
)

// progress shows a followed deploy: in plain mode one line per change
// ("step deploy: RUNNING", "step deploy: SUCCESS (1.2s)"), for logs and
// pipes; in live mode a block with one line per step, redrawn in place with
// a spinner and running durations, for a terminal.
type progress struct {
	w     io.Writer
	live  bool
	width int
	now   func() time.Time

	id    string
	state client.DeploymentState
	steps []client.StepDetail
	// at is the descriptor's schedule.at (zero if none); wait says what a
	// DELAYED or WAITING_DEPENDENCY deploy waits for, "" otherwise.
	at   time.Time
	wait string
	// seenAt is when the last update arrived: a running step's duration is
	// its durationMs then plus the time since, on this machine's clock alone.
	seenAt time.Time
	start  time.Time
	// printed is the last (state, attempt) printed per step in plain mode.
	printed map[string]string
	// drawn is how many lines the live block occupies now.
	drawn int
	frame int
	done  bool
	// rollout follows the waves and batches of a deploy with a rollout.
	rollout rolloutProgress
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func newProgress(w io.Writer, live bool, width int, now func() time.Time) *progress {
	return &progress{w: w, live: live, width: width, now: now, printed: map[string]string{}, start: now()}
}

// printf writes to the progress stream (stderr) and ignores a failed write:
// the display is for a person watching, and the deploy's outcome, which the
// exit code reports, does not depend on it.
func (p *progress) printf(format string, args ...any) {
	_, _ = fmt.Fprintf(p.w, format, args...)
}

// println writes one line of text, escaped: its parts come from the
// server, and the live mode writes to the terminal itself.
func (p *progress) println(line string) {
	p.printf("%s\n", deploy.EscapeText(line))
}

// Update shows the deploy as an event delivered it.
func (p *progress) Update(d client.DeploymentDetail) {
	p.id = d.Id
	p.seenAt = p.now()
	// The server's order (checkpoints before their steps), then the
	// compensations of the rollback in the order they ran.
	steps := operations(&d)
	p.steps = steps
	changed := d.State != p.state
	p.state = d.State
	wait := waitSummary(d, p.at)
	waitChanged := wait != p.wait
	p.wait = wait
	p.rollout.update(d)
	if p.live {
		p.redraw()
		return
	}
	terminal := client.Terminal(d.State)
	switch {
	case changed && !terminal && wait != "":
		p.println(fmt.Sprintf("deployment %s: %s: %s", d.Id, d.State, wait))
	case changed && !terminal:
		p.println(fmt.Sprintf("deployment %s: %s", d.Id, d.State))
	case waitChanged && wait != "":
		// A dependency moved on while this deploy still waits.
		p.println(fmt.Sprintf("deployment %s: %s", d.Id, wait))
	}
	for _, s := range steps {
		p.plainStep(s)
	}
	for _, l := range p.rollout.plainLines(d.Id) {
		p.println(l)
	}
	if changed && terminal {
		p.println(outcomeLine(d))
	}
}

func (p *progress) plainStep(s client.StepDetail) {
	mark := fmt.Sprintf("%s/%d", s.State, s.Attempts)
	if s.State == client.StepStatePending || p.printed[s.Name] == mark {
		return
	}
	p.printed[s.Name] = mark
	line := fmt.Sprintf("step %s: %s", s.Name, s.State)
	switch s.State {
	case client.StepStateRunning:
		if s.Attempts > 1 {
			line += fmt.Sprintf(" (attempt %d)", s.Attempts)
		}
	case client.StepStateSuccess, client.StepStateError:
		if d := stepDuration(s); d != "" {
			line += " (" + d + ")"
		}
		if s.State == client.StepStateError && s.Error != "" {
			line += ": " + s.Error
		}
	}
	p.println(line)
}

// waitSummary says what a deploy that has not started waits for: the
// schedule.at time (DELAYED) and the dependencies of after with their
// states, as the status JSON's after section gives them.
func waitSummary(d client.DeploymentDetail, at time.Time) string {
	var parts []string
	if d.State == client.DeploymentStateDelayed && !at.IsZero() {
		parts = append(parts, "starts at "+timestamp(at))
	}
	a := d.After
	waiting := d.State == client.DeploymentStateWaitingDependency || d.State == client.DeploymentStateDelayed
	if waiting && a != nil && a.Status == "waiting" && len(a.Dependencies) > 0 {
		deps := make([]string, len(a.Dependencies))
		for i, dep := range a.Dependencies {
			deps[i] = dep.Id + " " + dependencyState(dep)
		}
		w := "waits for " + strings.Join(deps, ", ")
		if d.State == client.DeploymentStateWaitingDependency && !a.ExpiresAt.IsZero() {
			w += " (until " + timestamp(a.ExpiresAt) + ")"
		}
		parts = append(parts, w)
	}
	return strings.Join(parts, "; ")
}

// dependencyState is a dependency's state; the server has none for a deploy
// removed by retention.
func dependencyState(dep client.Dependency) string {
	if dep.State == "" {
		return "removed"
	}
	return string(dep.State)
}

// outcomeLine is the last line of a followed deploy, escaped: it is
// printed as it is.
func outcomeLine(d client.DeploymentDetail) string {
	return deploy.EscapeText(outcome(d))
}

func outcome(d client.DeploymentDetail) string {
	line := fmt.Sprintf("deployment %s: %s", d.Id, d.State)
	if took := span(d.StartedAt, d.FinishedAt); took != "" {
		line += " (" + took + ")"
	}
	if d.Error != "" && d.State != client.DeploymentStateSuccess {
		line += ": " + d.Error
	}
	// Whether the targets were put back is what matters next about a
	// failed deploy.
	if r := d.Rollback; r != nil && len(r.Steps) > 0 {
		line += "; rollback " + rollbackWord(r.State)
	}
	return line
}

func stepDuration(s client.StepDetail) string {
	if s.DurationMs > 0 || (!s.StartedAt.IsZero() && !s.FinishedAt.IsZero()) {
		if s.DurationMs > 0 {
			return duration(time.Duration(s.DurationMs) * time.Millisecond)
		}
		return span(s.StartedAt, s.FinishedAt)
	}
	return ""
}

// Tick advances the spinner and the running durations (live mode).
func (p *progress) Tick() {
	if !p.live || p.done || p.id == "" {
		return
	}
	p.frame++
	p.redraw()
}

// Note prints a message above the live block (or as a plain line).
func (p *progress) Note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !p.live {
		p.println(msg)
		return
	}
	p.erase()
	p.println(msg)
	p.drawn = 0
	if p.id != "" {
		p.redraw()
	}
}

// Finish draws the block a last time, without spinner, and leaves it.
func (p *progress) Finish() {
	if !p.live || p.done {
		return
	}
	if p.id != "" {
		p.redraw()
	}
	p.done = true
}

func (p *progress) erase() {
	if p.drawn > 0 {
		p.printf("\x1b[%dA", p.drawn)
		for range p.drawn {
			p.printf("\r\x1b[2K\n")
		}
		p.printf("\x1b[%dA", p.drawn)
	}
}

func (p *progress) redraw() {
	lines := p.liveLines()
	if p.drawn > 0 {
		p.printf("\x1b[%dA", p.drawn)
	}
	for _, l := range lines {
		p.printf("\r\x1b[2K%s\n", p.fit(deploy.EscapeText(l)))
	}
	// A block that shrank leaves old lines below: clear them.
	for i := len(lines); i < p.drawn; i++ {
		p.printf("\r\x1b[2K\n")
	}
	if extra := p.drawn - len(lines); extra > 0 {
		p.printf("\x1b[%dA", extra)
	}
	p.drawn = len(lines)
}

func (p *progress) liveLines() []string {
	spin := spinner[p.frame%len(spinner)]
	head := "deployment " + p.id + "  " + string(p.state)
	if client.Terminal(p.state) {
		head = symbolFor(p.state) + " " + head
	} else {
		head = spin + " " + head + "  " + clock(p.now().Sub(p.start))
	}
	lines := []string{head}
	if p.wait != "" && !client.Terminal(p.state) {
		lines = append(lines, "  "+p.wait)
	}
	lines = append(lines, p.rollout.liveLines(p.now())...)
	// Wide enough for the standard steps, so the columns do not shift as
	// steps appear.
	nameWidth := len("activation")
	for _, s := range p.steps {
		nameWidth = max(nameWidth, utf8.RuneCountInString(s.Name))
	}
	for _, s := range p.steps {
		sym := stepSymbol(s.State)
		took := stepDuration(s)
		if s.State == client.StepStateRunning {
			sym = spin
			took = clock(time.Duration(s.DurationMs)*time.Millisecond + p.now().Sub(p.seenAt))
			if s.Attempts > 1 {
				took += fmt.Sprintf(" (attempt %d)", s.Attempts)
			}
		}
		l := fmt.Sprintf("  %s %-*s  %-9s %s", sym, nameWidth, s.Name, s.State, took)
		if s.State == client.StepStateError && s.Error != "" {
			l += "  " + s.Error
		}
		lines = append(lines, strings.TrimRight(l, " "))
	}
	return lines
}

// fit cuts a line to the terminal's width: a wrapped line would break the
// cursor arithmetic of the redraw.
func (p *progress) fit(s string) string {
	if p.width <= 1 || utf8.RuneCountInString(s) < p.width {
		return s
	}
	r := []rune(s)
	return string(r[:p.width-2]) + "…"
}

// clock prints a running time to the tenth of a second below a minute,
// so a live line visibly advances.
func clock(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Truncate(100*time.Millisecond).Seconds())
	}
	return duration(d)
}

func stepSymbol(s client.StepState) string {
	switch s {
	case client.StepStateSuccess:
		return "✓"
	case client.StepStateError:
		return "✗"
	case client.StepStateSkipped:
		return "-"
	case client.StepStateCancelled:
		return "⊘"
	}
	return "·"
}

func symbolFor(s client.DeploymentState) string {
	if s == client.DeploymentStateSuccess {
		return "✓"
	}
	return "✗"
}
