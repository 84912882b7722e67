package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// clockTicks is the kernel's USER_HZ, the unit of /proc/<pid>/stat's times:
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// cpuMeter reads the CPU time this process and the PostgreSQL server have
// used: the server's postmaster and every process it forked (backends,
// background writer, WAL writer…), found from a backend's parent. It needs
// the server on this machine, as the embedded one is; postgres is false
// when its processes cannot be read (a server elsewhere), and then only
// this process counts.
type cpuMeter struct {
	postmaster int
	postgres   bool
}

func newCPUMeter(b *testing.B, url string) *cpuMeter {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		b.Fatal(err)
	}
	st, err := readStat(backend)
	if err != nil {
		b.Logf("PostgreSQL's processes are not readable here (%v): CPU figures are this process's alone", err)
		return &cpuMeter{}
	}
	return &cpuMeter{postmaster: st.ppid, postgres: true}
}

// cpuTimes is CPU time used so far.
type cpuTimes struct {
	self, postgres time.Duration
}

// start and stop read the times at the two ends of a measure: scanning
// PostgreSQL's processes takes this process a few milliseconds, so start
// reads this process's time after it and stop before it, and the measure
// counts neither scan.
func (m *cpuMeter) start() cpuTimes {
	var t cpuTimes
	if m.postgres {
		t.postgres = m.postgresCPU()
	}
	t.self = ownCPU()
	return t
}

func (m *cpuMeter) stop() cpuTimes {
	t := cpuTimes{self: ownCPU()}
	if m.postgres {
		t.postgres = m.postgresCPU()
	}
	return t
}

// ownCPU is the user and system time this process has used.
func ownCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0 // never on Linux: RUSAGE_SELF is always valid
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// postgresCPU sums the postmaster's and its children's times. A backend
// that exited between two readings takes its time with it (its parent does
// not wait for it in a way that counts): the benchmarks keep their
// connections pooled, so few do.
func (m *cpuMeter) postgresCPU() time.Duration {
	total := time.Duration(0)
	if st, err := readStat(m.postmaster); err == nil {
		total += st.cpu
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readStat(pid)
		if err != nil || st.ppid != m.postmaster {
			continue
		}
		total += st.cpu
	}
	return total
}

type procStat struct {
	ppid int
	cpu  time.Duration
	// reaped is the time of the children it waited for (cutime + cstime).
	reaped time.Duration
}

// readStat reads a process's parent and its user and system time from
// /proc/<pid>/stat, whose second field (the command) may hold spaces: the
// fields counted are those after its closing parenthesis.
func readStat(pid int) (procStat, error) {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, err
	}
	s := string(raw)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: no command field", pid)
	}
	f := strings.Fields(s[end+1:])
	// After the command: state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17).
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ppid, err1 := strconv.Atoi(f[1])
	utime, err2 := strconv.ParseInt(f[11], 10, 64)
	stime, err3 := strconv.ParseInt(f[12], 10, 64)
	cutime, err4 := strconv.ParseInt(f[13], 10, 64)
	cstime, err5 := strconv.ParseInt(f[14], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat: unreadable fields", pid)
	}
	return procStat{ppid: ppid, cpu: time.Duration(utime+stime) * time.Second / clockTicks,
		reaped: time.Duration(cutime+cstime) * time.Second / clockTicks}, nil
}

func (t cpuTimes) sub(u cpuTimes) cpuTimes {
	return cpuTimes{self: t.self - u.self, postgres: t.postgres - u.postgres}
}

func (t cpuTimes) total() time.Duration { return t.self + t.postgres }
