package sshfleet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A Session is one command a client ran on a host, as the forced command
// of a fleet started with Config.Timeline saw it, by the host's clock.
type Session struct {
	Command string
	Start   time.Time
	// End is when the command exited; zero while it runs (Ended false).
	End    time.Time
	Ended  bool
	Status int
}

// Timeline is every session of user so far, in the order they started. A
// session of a client that went away (a killed process) is there too: it
// ends when its command does, which may be after its client died.
func (f *Fleet) Timeline(user string) ([]Session, error) {
	if !f.timeline {
		return nil, errors.New("the fleet was started without Config.Timeline")
	}
	b, err := os.ReadFile(f.TimelinePath(user))
	if err != nil {
		return nil, fmt.Errorf("read the timeline of %s: %w", user, err)
	}
	return parseTimeline(string(b))
}

// TimelinePath is the file of user's timeline, for a reader that follows
// it as it grows; its lines are those parseTimeline reads.
func (f *Fleet) TimelinePath(user string) string {
	return filepath.Join(f.Dir, commandsDir, user+timelineSuffix)
}

// parseTimeline reads the lines the forced command appends: "start <pid>
// <ns> <command>" and "end <pid> <ns> <status>". A PID names one session
// from its start to its end (the kernel may give it again afterwards).
func parseTimeline(text string) ([]Session, error) {
	var out []Session
	running := map[string]int{}
	for n, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.SplitN(line, " ", 4)
		if len(f) < 3 {
			return nil, fmt.Errorf("timeline line %d: %q", n+1, line)
		}
		ns, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("timeline line %d: time %q", n+1, f[2])
		}
		at := time.Unix(0, ns)
		switch f[0] {
		case "start":
			cmd := ""
			if len(f) == 4 {
				cmd = f[3]
			}
			running[f[1]] = len(out)
			out = append(out, Session{Command: cmd, Start: at})
		case "end":
			i, ok := running[f[1]]
			if !ok || len(f) != 4 {
				return nil, fmt.Errorf("timeline line %d: the end of no session: %q", n+1, line)
			}
			status, err := strconv.Atoi(f[3])
			if err != nil {
				return nil, fmt.Errorf("timeline line %d: status %q", n+1, f[3])
			}
			delete(running, f[1])
			out[i].End, out[i].Ended, out[i].Status = at, true, status
		default:
			return nil, fmt.Errorf("timeline line %d: %q", n+1, line)
		}
	}
	return out, nil
}
