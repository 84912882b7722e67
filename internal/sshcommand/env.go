package sshcommand

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/sshexec"
)

// The variables Run sets itself, from the attempt's directory.
const (
	EnvSecretsDir = "MANENT_SECRETS_DIR"
	EnvOutput     = "MANENT_OUTPUT"
)

// Contract holds the values of the MANENT_* variables of a run: the
// release, the target, the parameters and the outputs of earlier steps.
// A dry run is the same Run with DryRun set, its own command and secrets.
type Contract struct {
	DeploymentID, Step                string
	Application, Environment, Version string
	// Target is the current target, as the deploy names it.
	Target         string
	ArtifactSHA256 string
	DryRun         bool
	// Params are the step's parameters (database → MANENT_PARAM_DATABASE).
	Params map[string]string
	// Outputs are those of earlier steps, by step and key (post-test,
	// url → MANENT_OUTPUT_POST_TEST_URL). They may come from another
	// target: the command must not trust them.
	Outputs map[string]map[string]string
}

// Env is the contract as variables, for Request.Env. Two names that give
// one variable (the outputs a-b.c and a.b-c) are a permanent error: the
// command could not tell which it reads.
func (c Contract) Env() (map[string]string, error) {
	env := map[string]string{
		"MANENT_DEPLOYMENT_ID":   c.DeploymentID,
		"MANENT_STEP":            c.Step,
		"MANENT_APPLICATION":     c.Application,
		"MANENT_ENVIRONMENT":     c.Environment,
		"MANENT_VERSION":         c.Version,
		"MANENT_TARGET":          c.Target,
		"MANENT_ARTIFACT_SHA256": c.ArtifactSHA256,
		"MANENT_DRY_RUN":         strconv.FormatBool(c.DryRun),
	}
	from := map[string]string{}
	add := func(name, what, value string) error {
		if prev, ok := from[name]; ok {
			return deploy.Permanentf("%s and %s both give the variable %s", prev, what, name)
		}
		if _, ok := env[name]; ok {
			return deploy.Permanentf("%s gives the variable %s, which the contract sets", what, name)
		}
		from[name] = what
		env[name] = value
		return nil
	}
	for _, name := range sorted(c.Params) {
		if err := add("MANENT_PARAM_"+envName(name), "parameter "+name, c.Params[name]); err != nil {
			return nil, err
		}
	}
	for _, step := range sorted(c.Outputs) {
		for _, key := range sorted(c.Outputs[step]) {
			if err := add("MANENT_OUTPUT_"+envName(step)+"_"+envName(key), "output "+step+"."+key, c.Outputs[step][key]); err != nil {
				return nil, err
			}
		}
	}
	return env, nil
}

// envName is a name as a variable's part: upper case, every character but
// a letter or a digit as _.
func envName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, s)
}

var envVarName = regexp.MustCompile(`^MANENT_[A-Z0-9_]{1,200}$`)

// checkEnv refuses a variable a POSIX shell or the contract cannot hold.
// Its errors name the variable, never its value.
func checkEnv(env map[string]string) error {
	for _, name := range sorted(env) {
		switch {
		case !envVarName.MatchString(name):
			return deploy.Permanentf("the variable %q is not MANENT_ and upper case letters, digits and _", name)
		case name == EnvSecretsDir || name == EnvOutput:
			return deploy.Permanentf("%s is set by the run itself", name)
		case strings.ContainsRune(env[name], 0):
			return deploy.Permanentf("the value of %s holds a NUL byte, which no variable can hold", name)
		}
	}
	return nil
}

// envFile is what the run script sources: one export per variable, its
// value quoted so that the shell reads it back byte for byte, then the
// limits of timeout(1) (seconds; none when timeout is 0), which are not
// exported.
func envFile(env map[string]string, timeout, kill int) []byte {
	var b strings.Builder
	b.WriteString("# The contract of a manent command step (sourced, never run).\n")
	for _, name := range sorted(env) {
		b.WriteString("export " + name + "=" + sshexec.Quote(env[name]) + "\n")
	}
	fmt.Fprintf(&b, "manent_timeout=%d\nmanent_kill=%d\n", timeout, kill)
	return []byte(b.String())
}

func sorted[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
