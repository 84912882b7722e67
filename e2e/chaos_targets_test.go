package e2e

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"manent.dev/manent/internal/sshfleet"
)

// What the chaos run counts on its targets, independently of what manent
// or its plugin say of them: the kernel's record of the effects (inotify on
// every deploy directory of every host) and the hosts' own timeline of the
// commands they ran (the fleet's forced command, with each command's start
// and end).

// An effect is a change a deploy makes on a host, as the kernel reported
// it: a release renamed into releases/ (the commit of an unpack) or
// current renamed over (the switch of an activation).
type effect struct {
	host, env string
	op        string // effectUnpack or effectSwitch
	version   string
}

const (
	effectUnpack = "unpack"
	effectSwitch = "switch"
	// syncFile is created by the test once the run is over: its event,
	// behind every other in the watch's queue, says all were read.
	syncFile = ".chaos-sync"
)

// watchedDir is a deploy directory of one environment on one host, or its
// releases/.
type watchedDir struct {
	host, env, path string
	releases        bool
}

// effectWatch reads the inotify events of the deploy directories.
type effectWatch struct {
	f    *os.File
	dirs map[int32]watchedDir
	done chan struct{}
	// synced is closed when the event of syncFile arrived.
	synced   chan struct{}
	syncOnce sync.Once

	mu       sync.Mutex
	effects  []effect
	overflow bool
	readErr  error
}

// watchEffects watches the deploy directory of each env on each host; the
// directories must exist.
func watchEffects(t *testing.T, dirs []watchedDir) *effectWatch {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	w := &effectWatch{dirs: map[int32]watchedDir{}, done: make(chan struct{}), synced: make(chan struct{})}
	for _, d := range dirs {
		wd, err := syscall.InotifyAddWatch(fd, d.path, syscall.IN_MOVED_TO|syscall.IN_CREATE)
		if err != nil {
			_ = syscall.Close(fd)
			t.Fatalf("inotify watch %s: %v", d.path, err)
		}
		w.dirs[int32(wd)] = d
	}
	// Non-blocking, the file is served by the runtime's poller: Close ends
	// a Read in progress.
	w.f = os.NewFile(uintptr(fd), "inotify")
	go w.read()
	t.Cleanup(func() {
		_ = w.f.Close()
		<-w.done
	})
	return w
}

func (w *effectWatch) read() {
	defer close(w.done)
	buf := make([]byte, 256<<10)
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			if !errors.Is(err, os.ErrClosed) {
				w.mu.Lock()
				w.readErr = err
				w.mu.Unlock()
			}
			return
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			wd := int32(binary.NativeEndian.Uint32(buf[off:]))
			mask := binary.NativeEndian.Uint32(buf[off+4:])
			size := int(binary.NativeEndian.Uint32(buf[off+12:]))
			start := off + syscall.SizeofInotifyEvent
			name := strings.TrimRight(string(buf[start:start+size]), "\x00")
			off = start + size
			w.event(wd, mask, name)
		}
	}
}

func (w *effectWatch) event(wd int32, mask uint32, name string) {
	if mask&syscall.IN_Q_OVERFLOW != 0 {
		w.mu.Lock()
		w.overflow = true
		w.mu.Unlock()
		return
	}
	d, ok := w.dirs[wd]
	if !ok {
		return
	}
	var e effect
	switch {
	case mask&syscall.IN_CREATE != 0 && name == syncFile:
		w.syncOnce.Do(func() { close(w.synced) })
		return
	case mask&syscall.IN_MOVED_TO == 0:
		return
	case d.releases && !strings.HasPrefix(name, "."):
		e = effect{host: d.host, env: d.env, op: effectUnpack, version: name}
	case !d.releases && name == "current":
		// The next switch of this directory is a whole deploy away:
		// the link read now is the one this event renamed into place.
		link, err := os.Readlink(filepath.Join(d.path, "current"))
		if err != nil {
			link = "?"
		}
		e = effect{host: d.host, env: d.env, op: effectSwitch, version: filepath.Base(link)}
	default:
		return
	}
	w.mu.Lock()
	w.effects = append(w.effects, e)
	w.mu.Unlock()
}

// all waits until every event up to now is read and returns the effects in
// the kernel's order.
func (w *effectWatch) all(t *testing.T, anyDir string) []effect {
	t.Helper()
	if err := os.WriteFile(filepath.Join(anyDir, syncFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.synced:
	case <-time.After(time.Minute):
		t.Fatal("the inotify event of the sync file never came")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.overflow || w.readErr != nil {
		t.Fatalf("inotify lost events (overflow %v, %v): the effects cannot be counted", w.overflow, w.readErr)
	}
	return slices.Clone(w.effects)
}

// targetSession is a session of a host's timeline attributed to the
// deploy, the step and the environment its command line names.
type targetSession struct {
	host, env, deploy, step string
	sshfleet.Session
}

// attribute reads a script's command line, "/bin/sh -s -- 'path' ...": the
// path is <base>/<env>, an argument that is a deploy's ID names the deploy
// and one that is an operation key (<deploy>:<step>:p<n>:b<n>:<kind>:<target>)
// names the step too. The one script with a deploy ID and no key is the
// deploy step's prepare. Uploads (sftp) name nothing.
func attribute(host string, s sshfleet.Session, base string, ids map[string]bool) (targetSession, bool) {
	rest, ok := strings.CutPrefix(s.Command, "/bin/sh -s -- ")
	if !ok {
		return targetSession{}, false
	}
	args := shellWords(rest)
	if len(args) == 0 {
		return targetSession{}, false
	}
	env, ok := strings.CutPrefix(args[0], base+"/")
	if !ok {
		return targetSession{}, false
	}
	ts := targetSession{host: host, env: env, Session: s}
	for _, a := range args[1:] {
		if ids[a] {
			ts.deploy = a
		}
		if f := strings.Split(a, ":"); len(f) >= 5 && ids[f[0]] && strings.HasPrefix(f[2], "p") && strings.HasPrefix(f[3], "b") {
			ts.deploy, ts.step = f[0], f[1]
		}
	}
	if ts.deploy == "" {
		return targetSession{}, false
	}
	if ts.step == "" {
		ts.step = "deploy"
	}
	return ts, true
}

// shellWords splits a command line quoted the way sshexec.Quote quotes:
// words in single quotes, where a quote of the word itself closes the
// quotes, comes escaped by a backslash, and opens them again.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			inWord = true
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// overlaps are the pairs of deploys of one environment that were at work
// on one host at the same time: the span of a deploy on a host runs from
// the start of its first command there to the end of its last (a command
// still running has no end). Sessions are those of one host.
func overlaps(sessions []targetSession) []string {
	type span struct {
		deploy     string
		start, end time.Time
	}
	forever := time.Unix(1<<40, 0)
	spans := map[string]map[string]*span{} // env -> deploy -> span
	for _, s := range sessions {
		if spans[s.env] == nil {
			spans[s.env] = map[string]*span{}
		}
		end := s.End
		if !s.Ended {
			end = forever
		}
		sp := spans[s.env][s.deploy]
		if sp == nil {
			spans[s.env][s.deploy] = &span{deploy: s.deploy, start: s.Start, end: end}
			continue
		}
		if s.Start.Before(sp.start) {
			sp.start = s.Start
		}
		if end.After(sp.end) {
			sp.end = end
		}
	}
	var out []string
	for env, byDeploy := range spans {
		list := make([]*span, 0, len(byDeploy))
		for _, sp := range byDeploy {
			list = append(list, sp)
		}
		slices.SortFunc(list, func(a, b *span) int { return a.start.Compare(b.start) })
		var last *span
		for _, sp := range list {
			if last != nil && !sp.start.After(last.end) {
				out = append(out, fmt.Sprintf("%s: %s (%s to %s) and %s (from %s)", env, last.deploy,
					clock(last.start), clock(last.end), sp.deploy, clock(sp.start)))
			}
			if last == nil || sp.end.After(last.end) {
				last = sp
			}
		}
	}
	slices.Sort(out)
	return out
}

// twice are the steps that ran twice at once on a host: two sessions of
// one step of one deploy that overlap, with no kill between their starts
// (a killed worker's command may outlive it a moment, beside the command
// of the process that runs the step again). A step runs its commands on a
// host one after the other: two at once are two processes running it.
func twice(sessions []targetSession, kills []time.Time) []string {
	byStep := map[string][]targetSession{}
	for _, s := range sessions {
		k := s.env + " " + s.deploy + " " + s.step
		byStep[k] = append(byStep[k], s)
	}
	var out []string
	for k, list := range byStep {
		slices.SortFunc(list, func(a, b targetSession) int { return a.Start.Compare(b.Start) })
		for i := 1; i < len(list); i++ {
			prev, next := list[i-1], list[i]
			if prev.Ended && next.Start.After(prev.End) {
				continue
			}
			if slices.ContainsFunc(kills, func(k time.Time) bool { return !k.Before(prev.Start) && !k.After(next.Start) }) {
				continue
			}
			out = append(out, fmt.Sprintf("%s: %q from %s and %q from %s", k, prev.Command, clock(prev.Start), next.Command, clock(next.Start)))
		}
	}
	slices.Sort(out)
	return out
}

func clock(t time.Time) string {
	if t.Year() > 3000 {
		return "still running"
	}
	return t.Format("15:04:05.000000")
}

// interleaved are the places where the effects of two deploys of one
// environment cross on one host: each deploy unpacks, then switches, and
// the next one's unpack must come after that switch.
func interleaved(effects []effect, versionOf map[string]string) []string {
	open := map[string]string{} // host/env -> the version unpacked and not yet switched to
	var out []string
	for _, e := range effects {
		k := e.host + " " + e.env
		switch e.op {
		case effectUnpack:
			if v, ok := open[k]; ok {
				out = append(out, fmt.Sprintf("%s: %s unpacked while %s was not yet in service", k, versionOf[e.version], versionOf[v]))
			}
			open[k] = e.version
		case effectSwitch:
			if v, ok := open[k]; ok && v != e.version {
				out = append(out, fmt.Sprintf("%s: %s switched to while %s was unpacked and not in service", k, versionOf[e.version], versionOf[v]))
			}
			delete(open, k)
		}
	}
	return out
}

// The checks of the chaos run see what they look for: a deploy's commands
// are found in a script's command line, two deploys at work at once on an
// environment are an overlap, and effects that cross are too.
func TestChaosChecksSeeWhatTheyCount(t *testing.T) {
	ids := map[string]bool{"chaos-001": true, "chaos-002": true}
	at := func(ms int) time.Time { return time.UnixMilli(int64(ms)) }
	session := func(cmd string, start, end int) sshfleet.Session {
		return sshfleet.Session{Command: cmd, Start: at(start), End: at(end), Ended: end > 0}
	}
	attributed := func(cmd string) string {
		ts, ok := attribute("h", session(cmd, 1, 2), "chaos-x", ids)
		if !ok {
			return "-"
		}
		return ts.env + " " + ts.deploy + " " + ts.step
	}
	for cmd, want := range map[string]string{
		"/bin/sh -s -- 'chaos-x/e1' '1.0.1' 'abc' 'demo/hello/e1' 'chaos-001' 'now'":                                   "e1 chaos-001 deploy",
		"/bin/sh -s -- 'chaos-x/e2' '1.0.2' 'chaos-002:activation:p0:b0:run:u@127.0.0.1:22' 'chaos-002' 'now' 'owner'": "e2 chaos-002 activation",
		"/bin/sh -s -- 'chaos-x/e1' 'it'\\''s' 'chaos-001'":                                                            "e1 chaos-001 deploy",
		"/bin/sh -s -- 'other/e1' '1.0.1' 'chaos-001'":                                                                 "-",
		"/bin/sh -s -- 'chaos-x/e1' '1.0.1' 'chaos-003'":                                                               "-",
		"/usr/lib/openssh/sftp-server":                                                                                 "-",
	} {
		if got := attributed(cmd); got != want {
			t.Errorf("attribute(%q) = %q, want %q", cmd, got, want)
		}
	}
	if got := shellWords(`'a b' 'it'\''s' c`); !slices.Equal(got, []string{"a b", "it's", "c"}) {
		t.Errorf("shellWords = %q", got)
	}

	ts := func(env, deploy string, start, end int) targetSession {
		return targetSession{host: "h", env: env, deploy: deploy, step: "deploy", Session: session("", start, end)}
	}
	apart := []targetSession{ts("e1", "chaos-001", 1, 5), ts("e1", "chaos-001", 6, 9), ts("e1", "chaos-002", 10, 12), ts("e2", "chaos-003", 2, 11)}
	if got := overlaps(apart); len(got) != 0 {
		t.Errorf("overlaps of deploys one after the other = %q", got)
	}
	for name, sessions := range map[string][]targetSession{
		"crossing":      {ts("e1", "chaos-001", 1, 5), ts("e1", "chaos-002", 4, 8)},
		"inside":        {ts("e1", "chaos-001", 1, 5), ts("e1", "chaos-002", 2, 3), ts("e1", "chaos-001", 4, 5)},
		"still running": {ts("e1", "chaos-001", 1, 0), ts("e1", "chaos-002", 100, 101)},
	} {
		if got := overlaps(sessions); len(got) != 1 {
			t.Errorf("%s: overlaps = %q, want one", name, got)
		}
	}

	one := []targetSession{ts("e1", "chaos-001", 1, 5), ts("e1", "chaos-001", 6, 9)}
	if got := twice(one, nil); len(got) != 0 {
		t.Errorf("twice of a step's commands one after the other = %q", got)
	}
	both := []targetSession{ts("e1", "chaos-001", 1, 5), ts("e1", "chaos-001", 3, 9)}
	if got := twice(both, nil); len(got) != 1 {
		t.Errorf("twice of a step's commands at once = %q, want one", got)
	}
	if got := twice(both, []time.Time{at(2)}); len(got) != 0 {
		t.Errorf("twice of a killed worker's command and the next run's = %q", got)
	}

	versions := map[string]string{"1": "chaos-001", "2": "chaos-002"}
	e := func(op, v string) effect { return effect{host: "h", env: "e1", op: op, version: v} }
	if got := interleaved([]effect{e(effectUnpack, "1"), e(effectSwitch, "1"), e(effectUnpack, "2"), e(effectSwitch, "2")}, versions); len(got) != 0 {
		t.Errorf("interleaved of effects in order = %q", got)
	}
	if got := interleaved([]effect{e(effectUnpack, "1"), e(effectUnpack, "2"), e(effectSwitch, "1"), e(effectSwitch, "2")}, versions); len(got) != 2 {
		t.Errorf("interleaved of crossed effects = %q, want two", got)
	}
}
