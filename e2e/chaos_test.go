package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/sshfleet"
)

// The chaos run: an api process and two worker processes on a PostgreSQL
// of the test's own, deploying over SSH to a loopback OpenSSH fleet, while
// the test SIGKILLs a worker again and again (and restarts it, as a
// supervisor would, sometimes soon enough for it to resume its own deploys,
// sometimes late enough for the other worker to take them over) and
// crashes PostgreSQL and starts it again. In flight meanwhile: plain
// deploys queued per environment, a composite release, a deploy waiting for
// another (after), one waiting for its time (schedule.at) and one awaiting
// an approval that the test gives half-way.
//
// The kills and restarts come at moments a seeded generator picks; the
// checks wait for events (the deploys' states, the targets' records) and
// hold whatever the seed. What it counts, and how:
//
//   - Deploys lost: every deploy submitted ends SUCCESS (the release too).
//   - Completed steps run again. A step is completed once DBOS recorded its
//     result (its row in dbos.operation_outputs, completed_at_epoch_ms):
//     from then on a process that resumes the deploy replays that result
//     and must never run the step's work again. A step cut before that —
//     its worker killed while the work ran, or after the work but before
//     DBOS's record — is at least once: it runs again (the log says "<step>
//     runs again") and must not change its targets twice (below). A
//     completed step run again shows as a "<step> started" or "<step> runs
//     again" log line, or a command of that step on a host, after that
//     record. A step run by two processes at once shows as two commands of
//     it at once on a host with no kill between their starts.
//   - Duplicated effects on targets: on every host, each deploy's release
//     is renamed into releases/ once and current switched to it once, as
//     the kernel reports them (inotify), never more; and never less for a
//     deploy that succeeded.
//   - Overlaps per environment: on every host, the commands of two deploys
//     of one environment never run at the same time (the hosts' timeline of
//     each command's start and end), their effects never cross, and current
//     ends at the environment's last deploy. manent's own records agree:
//     the deploys of an environment ran one after the other.
//
// The short profile runs in `make test`; MANENT_CHAOS=long (`make chaos`)
// runs the long one. MANENT_CHAOS_SEED=<n> replays a seed.

// chaosProfile is the size of a chaos run.
type chaosProfile struct {
	name string
	// deploys in all: the release's and the waits' included.
	deploys, kills, pgRestarts, envs int
	// delayedBy is how far schedule.at of the delayed deploy is.
	delayedBy time.Duration
	// settle bounds the wait for every deploy to end after the last event.
	settle time.Duration
}

var (
	chaosShort = chaosProfile{name: "short", deploys: 50, kills: 10, pgRestarts: 2, envs: 6,
		delayedBy: 20 * time.Second, settle: 5 * time.Minute}
	chaosLong = chaosProfile{name: "long", deploys: 200, kills: 100, pgRestarts: 4, envs: 8,
		delayedBy: 2 * time.Minute, settle: 15 * time.Minute}
)

const (
	// chaosProfileEnv=long selects the long profile; chaosSeedEnv=<n>
	// replays the choices of the run that printed seed n.
	chaosProfileEnv = "MANENT_CHAOS"
	chaosSeedEnv    = "MANENT_CHAOS_SEED"
	chaosRelease    = "chaos-release"
	// The workers' engine.heartbeat_interval and engine.executor_timeout:
	// a worker restarted later than chaosTakeover finds its deploys taken
	// over by the other; one restarted sooner resumes them itself.
	chaosHeartbeat = "250ms"
	chaosTakeover  = 2 * time.Second
)

// chaosDeploy is a deploy the run submitted.
type chaosDeploy struct {
	id, env, version string
	// kind: plain, release, after, delayed or approval.
	kind string
}

// chaos is the state of one run.
type chaos struct {
	t       *testing.T
	p       chaosProfile
	rng     *rand.Rand
	r       *rig // r.srv is the api process
	workers []*server
	pg      *pgtest.Server
	dbURL   string
	fleet   *sshfleet.Fleet
	// base holds the deploy directories, relative to the hosts' homes.
	base  string
	watch *effectWatch
	// tails follow the hosts' timelines, for the kills at a command.
	tails   []*timelineTail
	deploys []*chaosDeploy
	byID    map[string]*chaosDeploy
	// killedAt are the times of the kills.
	killedAt []time.Time
	// counts of what the run did
	kills, atCommand, afterCommand, lateRestarts, pgRestarts, selfExits int
	started                                                             time.Time
}

func TestChaos(t *testing.T) {
	sshfleet.Require(t)
	p := chaosShort
	if os.Getenv(chaosProfileEnv) == "long" {
		p = chaosLong
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(chaosSeedEnv); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", chaosSeedEnv, s, err)
		}
		seed = n
	}
	t.Logf("chaos run, profile %s, seed %d (%s=%d replays its schedule)", p.name, seed, chaosSeedEnv, seed)
	c := newChaos(t, p, seed)
	c.run()
	c.check()
}

func newChaos(t *testing.T, p chaosProfile, seed uint64) *chaos {
	c := &chaos{t: t, p: p, rng: rand.New(rand.NewPCG(seed, 0x6368616f73)), byID: map[string]*chaosDeploy{}}
	c.pg = pgtest.StartServer(t)
	c.dbURL = c.pg.Database(t, "chaos")
	c.fleet = startFleetWith(t, sshfleet.Config{Timeline: true})
	serverBin, cliBin := binaries(t)
	dir := rigConfig(t, rigOptions{
		steps:       []string{"secrets", "artifacts", "deploy", "activation"},
		maxRecovery: 20,
		governance:  strings.ReplaceAll(approvalRule, "environment: prod", "environment: gov"),
		engine:      "  heartbeat_interval: " + chaosHeartbeat + "\n  executor_timeout: " + chaosTakeover.String() + "\n",
		extra: `plugins:
  ssh:
    known_hosts: known_hosts
    max_sessions_per_host: 8
    parallel: 10
    connect_timeout: 10s
`,
	})
	c.r = &rig{t: t, dir: dir, cli: cliBin}
	c.r.srv = c.process(serverBin, "api", "api")
	for i := range 2 {
		c.workers = append(c.workers, c.process(serverBin, fmt.Sprintf("worker-%d", i+1), "worker"))
	}
	c.hosts()
	return c
}

// process is a manent-server of the run, with a manent.yml of its own: its
// executor ID and work directory.
func (c *chaos) process(bin, name, role string) *server {
	t := c.t
	b, err := os.ReadFile(filepath.Join(c.r.dir, "manent.yml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(b), "executor_id: local", "executor_id: "+name, 1)
	cfg = strings.Replace(cfg, "work_dir: work", "work_dir: work-"+name, 1)
	path := filepath.Join(c.r.dir, name+".yml")
	write(t, path, cfg)
	s := &server{t: t, bin: bin, config: path, dbURL: c.dbURL, port: freePort(t), role: role,
		log: &bytes.Buffer{}, mu: &sync.Mutex{}}
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("%s, the last of its output:\n%s", name, lastLines(s.output(), 150))
		}
	})
	return s
}

// hosts writes the environments (e0... and gov, each on every host of the
// fleet), the deploy key, and makes the deploy directories, watched.
func (c *chaos) hosts() {
	t, r := c.t, c.r
	line, err := c.fleet.KnownHostsLine(c.fleet.Port)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(r.dir, "known_hosts"), line+"\n")
	key, err := os.ReadFile(c.fleet.DeployKey())
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(r.dir, "hello-deploy-key"), string(key))
	c.base = "chaos-" + randomHex(t)
	var dirs []watchedDir
	for _, env := range c.envs() {
		r.env(env, sshEnv(c.fleet, c.fleet.Port, c.base+"/"+env, ""))
		for _, h := range sshHosts(t, c.fleet, c.base+"/"+env) {
			for _, d := range []watchedDir{{host: h.user.Name, env: env, path: h.dir}, {host: h.user.Name, env: env, path: filepath.Join(h.dir, "releases"), releases: true}} {
				if err := os.MkdirAll(d.path, 0o755); err != nil {
					t.Fatal(err)
				}
				// The parents are root's, 0755: the host's user can only
				// reach its directory, which is its own.
				if err := os.Chown(d.path, h.user.UID, h.user.GID); err != nil {
					t.Fatal(err)
				}
				dirs = append(dirs, d)
			}
		}
	}
	c.watch = watchEffects(t, dirs)
}

func (c *chaos) envs() []string {
	var out []string
	for i := range c.p.envs {
		out = append(out, fmt.Sprintf("e%d", i))
	}
	return append(out, "gov")
}

// newDeploy writes the descriptor and the artifact of a deploy of its own
// version and returns the descriptor's path.
func (c *chaos) newDeploy(id, env, kind, extra string) string {
	d := &chaosDeploy{id: id, env: env, version: fmt.Sprintf("1.0.%d", len(c.deploys)), kind: kind}
	c.deploys = append(c.deploys, d)
	c.byID[id] = d
	sshArtifact(c.t, c.r, d.version, 0)
	return c.r.descriptor(id, env, d.version, extra)
}

func (c *chaos) randomEnv() string { return fmt.Sprintf("e%d", c.rng.IntN(c.p.envs)) }

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// chaosStatus is the part of the status JSON the run reads.
type chaosStatus struct {
	ID          string     `json:"id"`
	Environment string     `json:"environment"`
	State       string     `json:"state"`
	Error       *string    `json:"error"`
	StartedAt   *time.Time `json:"started_at"`
	FinishedAt  *time.Time `json:"finished_at"`
	Steps       []struct {
		Name     string `json:"name"`
		State    string `json:"state"`
		Attempts int    `json:"attempts"`
	} `json:"steps"`
}

// list is every deploy's status.
func (c *chaos) list() []chaosStatus {
	c.t.Helper()
	out, errOut, code := c.r.manent(tokenAdmin, "list", "--limit", "0", "-o", "json")
	if code != 0 {
		c.t.Fatalf("manent list: exit %d\n%s", code, errOut)
	}
	var list []chaosStatus
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		c.t.Fatalf("list JSON: %v\n%s", err, out)
	}
	return list
}
