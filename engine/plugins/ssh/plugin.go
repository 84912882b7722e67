package ssh

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/sshexec"
)

// Defaults of manent.yml's plugins.ssh and of the params.
const (
	DefaultParallel     = 10
	DefaultKeepReleases = 5
	// MaxKeepReleases bounds keep_releases: a target keeps at most that
	// many releases besides those pruning never removes.
	MaxKeepReleases = 1000
)

// The files of a target, under its path: releases/<version>/ (each with
// a .manent-release marker holding the digest it was unpacked from),
// current, and .manent/: journal (the local plugin's format, one line per
// operation actually performed), state (per release manent unpacked and
// has not removed: its outcome, deployment, digest and the time of that
// outcome), lock and the uploads in flight. The scripts name them.
const releasesDir = "releases"

// Operations of the journal, the second field of its lines: the local
// plugin's, and prune for a release removed after an activation.
const (
	opDeploy   = "deploy"
	opActivate = "activate"
	opRollback = "rollback"
	opRemove   = "remove"
	opPrune    = "prune"
)

// Options configure the plugin (manent.yml's plugins.ssh).
type Options struct {
	SSH sshexec.Options
	// Parallel is how many targets a step works on at once.
	Parallel int
}

// Plugin is the ssh plugin. Its pool is shared by every step of the
// process: the session cap of a host holds across deploys.
type Plugin struct {
	pool     *sshexec.Pool
	parallel int
	// now is the clock of journal and state lines.
	now func() time.Time
	// queued, when set, is told of a target that waits for a place
	// among the parallel ones: the event a test of the bound waits on.
	queued func(target string)
}

// New returns the plugin; Close it to close its connections.
func New(o Options) *Plugin {
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel
	}
	return &Plugin{pool: sshexec.NewPool(o.SSH), parallel: o.Parallel, now: time.Now}
}

// Close closes the plugin's connections.
func (p *Plugin) Close() error { return p.pool.Close() }

// Name implements deploy.Plugin.
func (*Plugin) Name() string { return "ssh" }

var (
	userPattern     = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$`)
	labelPattern    = regexp.MustCompile(`^[a-z0-9]([a-z0-9._/-]{0,62})$`)
	hostnameLabel   = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)
	keepReleasesPat = regexp.MustCompile(`^[0-9]{1,4}$`)
)

// ValidateTargets implements deploy.Plugin: every target is a login on a
// host (name, IPv4 or IPv6 address), once; the directory is params.path,
// the same on every target.
func (p *Plugin) ValidateTargets(targets []deploy.Target, params map[string]string) []deploy.FieldError {
	var errs []deploy.FieldError
	add := func(path, format string, args ...any) {
		errs = append(errs, deploy.FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	seen := map[string]int{}
	for i, t := range targets {
		at := fmt.Sprintf("targets[%d]", i)
		switch {
		case t.Host == "":
			add(at+".host", "the ssh plugin needs the host to log in to")
		case !validHost(t.Host):
			add(at+".host", "must be a host name, an IPv4 address or an IPv6 address")
		}
		if t.Port < 0 || t.Port > 65535 {
			add(at+".port", "must be between 1 and 65535")
		}
		switch {
		case t.User == "":
			add(at+".user", "the ssh plugin needs the user to log in as")
		case !userPattern.MatchString(t.User):
			add(at+".user", "must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' and -, not starting with - or .")
		}
		if t.Path != "" {
			add(at+".path", "the ssh plugin deploys to params.path on every target; remove path")
		}
		for k, v := range t.Labels {
			if !labelPattern.MatchString(k) || hasControl(v) {
				add(at+".labels", "label keys must be 1 to 63 characters of a-z, 0-9, '.', '_', '/' and -, values without control characters")
				break
			}
		}
		if t.Host != "" {
			ep := endpoint(t).String()
			if j, dup := seen[ep]; dup {
				add(at, "is targets[%d] again (%s)", j, ep)
			}
			seen[ep] = i
		}
	}
	if _, err := parseParams(params); err != nil {
		var fe fieldErrors
		if errors.As(err, &fe) {
			errs = append(errs, fe...)
		}
	}
	return errs
}

func validHost(h string) bool {
	if inner, ok := strings.CutPrefix(h, "["); ok {
		inner, ok = strings.CutSuffix(inner, "]")
		a, err := netip.ParseAddr(inner)
		return ok && err == nil && a.Is6() && a.Zone() == ""
	}
	if a, err := netip.ParseAddr(h); err == nil {
		// A zone (fe80::1%eth0) names an interface of the machine that
		// runs manent, which a configuration cannot know.
		return a.Zone() == ""
	}
	if len(h) > 253 {
		return false
	}
	for _, l := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if !hostnameLabel.MatchString(l) {
			return false
		}
	}
	return true
}

func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) {
			return true
		}
	}
	return false
}

// endpoint is the login of a target; an IPv6 address may be written in
// brackets or without.
func endpoint(t deploy.Target) sshexec.Endpoint {
	host := strings.TrimSuffix(strings.TrimPrefix(t.Host, "["), "]")
	return sshexec.Endpoint{Host: host, Port: t.Port, User: t.User}
}

// targetName is how results, logs and checkpoints name a target:
// user@host:port, unique in a step where the host alone may not be (three
// logins of one host).
func targetName(t deploy.Target) string { return endpoint(t).String() }

// params are the plugin's parameters, checked.
type params struct {
	// path is the target directory, relative to the login's home or
	// absolute, cleaned.
	path string
	keep int
}

type fieldErrors []deploy.FieldError

func (f fieldErrors) Error() string {
	parts := make([]string, len(f))
	for i, e := range f {
		parts[i] = e.String()
	}
	return strings.Join(parts, "; ")
}

// parseParams checks path (required; no .. component, no control
// character, no leading - or ~) and keep_releases (1 to MaxKeepReleases,
// DefaultKeepReleases when absent).
func parseParams(m map[string]string) (params, error) {
	var errs fieldErrors
	add := func(name, msg string) {
		errs = append(errs, deploy.FieldError{Path: "params." + name, Message: msg})
	}
	out := params{keep: DefaultKeepReleases}
	raw, ok := m["path"]
	switch {
	case !ok || raw == "":
		add("path", "the ssh plugin needs the directory to deploy to on the targets (relative to the login's home, or absolute)")
	case len(raw) > 4096:
		add("path", "must be at most 4096 bytes")
	case hasControl(raw) || !validUTF8(raw):
		add("path", "must not contain control characters")
	case raw[0] == '-':
		add("path", "must not start with -")
	case raw[0] == '~':
		add("path", "must not start with ~: a relative path is already relative to the login's home")
	case slicesContains(strings.Split(raw, "/"), ".."):
		add("path", "must not have a .. component")
	default:
		out.path = path.Clean(raw)
	}
	if v, ok := m["keep_releases"]; ok {
		n, err := strconv.Atoi(v)
		if !keepReleasesPat.MatchString(v) || err != nil || n < 1 || n > MaxKeepReleases {
			add("keep_releases", fmt.Sprintf("must be a whole number from 1 to %d", MaxKeepReleases))
		} else {
			out.keep = n
		}
	}
	if len(errs) > 0 {
		return params{}, errs
	}
	return out, nil
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func slicesContains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// requestParams are the params of a request, or the permanent error of
// params that ValidateTargets would have refused.
func requestParams(req deploy.PluginRequest) (params, error) {
	ps, err := parseParams(req.Params)
	if err != nil {
		return params{}, deploy.Permanent(err)
	}
	return ps, nil
}

// login resolves the secret the targets log in with.
func login(ctx context.Context, req deploy.PluginRequest) (sshexec.Auth, error) {
	l := req.SSH
	if l == nil || (l.KeySecret == "") == (l.PasswordSecret == "") {
		return sshexec.Auth{}, deploy.Permanentf("the environment configuration must give one of ssh.key_secret and ssh.password_secret")
	}
	if req.Secret == nil {
		return sshexec.Auth{}, deploy.Permanentf("no secrets to log in with")
	}
	if l.KeySecret != "" {
		v, err := req.Secret(ctx, l.KeySecret)
		if err != nil {
			return sshexec.Auth{}, err
		}
		return sshexec.Auth{PrivateKey: []byte(v)}, nil
	}
	v, err := req.Secret(ctx, l.PasswordSecret)
	if err != nil {
		return sshexec.Auth{}, err
	}
	return sshexec.Auth{Password: v}, nil
}

// run is one operation of a step on its targets: the parameters, the
// login and the log, shared by the work on each target.
type run struct {
	p    *Plugin
	req  deploy.PluginRequest
	ps   params
	auth sshexec.Auth
	now  string
	// owner is whose lines of the state files the run writes and
	// prunes (stateOwner).
	owner string
}

func (p *Plugin) begin(ctx context.Context, req deploy.PluginRequest) (*run, error) {
	ps, err := requestParams(req)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(req.Artifact.Version); err != nil {
		return nil, err
	}
	auth, err := login(ctx, req)
	if err != nil {
		return nil, err
	}
	return &run{p: p, req: req, ps: ps, auth: auth, now: p.now().UTC().Format(stateTime), owner: stateOwner(req)}, nil
}

func (r *run) logf(format string, args ...any) {
	if r.req.Log != nil {
		r.req.Log(format, args...)
	}
}

// each runs fn on every target, at most p.parallel at once, and returns
// their results in the order of the targets. A target whose fn fails does
// not stop the others: each ends what it started.
func (r *run) each(ctx context.Context, targets []deploy.Target, fn func(ctx context.Context, t *target) error) []*target {
	out := make([]*target, len(targets))
	sem := make(chan struct{}, r.p.parallel)
	var wg sync.WaitGroup
	for i, t := range targets {
		tg := &target{r: r, t: t, index: i, name: targetName(t), result: result{Target: targetName(t), Host: t.Host, Port: t.Port, User: t.User}}
		out[i] = tg
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			default:
				if r.p.queued != nil {
					r.p.queued(tg.name)
				}
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					tg.fail(ctx.Err())
					return
				}
			}
			defer func() { <-sem }()
			defer tg.close()
			if err := fn(ctx, tg); err != nil {
				tg.fail(err)
			}
		}()
	}
	wg.Wait()
	return out
}

// target is the work on one target within a run.
type target struct {
	r *run
	t deploy.Target
	// index is the target's place in the targets of each.
	index  int
	name   string
	client *sshexec.Client
	result result
	err    error
}

func (tg *target) fail(err error) {
	tg.err = err
	tg.result.Outcome = "failed"
	tg.result.Error = err.Error()
	var ee *sshexec.ExitError
	if errors.As(err, &ee) {
		code := ee.Code
		tg.result.Command, tg.result.ExitCode = ee.Command, &code
	}
	tg.r.logf("%s: failed: %v", tg.name, err)
}

func (tg *target) close() {
	if tg.client != nil {
		tg.client.Close()
	}
}

// connect leases a connection to the target.
func (tg *target) connect(ctx context.Context) error {
	if tg.client != nil {
		return nil
	}
	c, err := tg.r.p.pool.Client(ctx, endpoint(tg.t), tg.r.auth, tg.r.logf)
	if err != nil {
		return err
	}
	tg.client = c
	return nil
}

// exec runs a script on the target and returns its manent: lines; the
// others go to the deploy log.
func (tg *target) exec(ctx context.Context, cmd sshexec.Command) ([]string, error) {
	if err := tg.connect(ctx); err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var said []string
	cmd.Output = func(s sshexec.Stream, line string) {
		if v, ok := strings.CutPrefix(line, "manent:"); ok && s == sshexec.Stdout {
			mu.Lock()
			said = append(said, v)
			mu.Unlock()
			return
		}
		tg.r.logf("%s: %s", tg.name, line)
	}
	res, err := tg.client.Run(ctx, cmd)
	if res.Truncated {
		tg.r.logf("%s: the output of %q was cut at %d bytes", tg.name, cmd.Name, sshexec.MaxOutput)
	}
	return said, classify(err)
}

// classify marks permanent the failures retrying cannot change: a
// command's refusal, a command that failed (but one that asked to be
// tried again, or that a signal killed), a host key or login refused.
func classify(err error) error {
	var ee *sshexec.ExitError
	if !errors.As(err, &ee) {
		return err
	}
	if ee.Code == exitTemporary || ee.Signal != "" {
		return err
	}
	return deploy.Permanent(err)
}

// checkVersion refuses a version that cannot name a release directory.
func checkVersion(v string) error {
	if v == "" || v == "." || v == ".." || strings.ContainsAny(v, `/\`) || hasControl(v) || strings.HasPrefix(v, "-") ||
		strings.ContainsAny(v, " \t") {
		return deploy.Permanentf("version %q cannot name a release directory", v)
	}
	return nil
}

// field returns the value of the line "key value" among said.
func field(said []string, key string) (string, bool) {
	for _, s := range said {
		if v, ok := strings.CutPrefix(s, key+" "); ok {
			return v, true
		}
		if s == key {
			return "", true
		}
	}
	return "", false
}
