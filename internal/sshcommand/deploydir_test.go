package sshcommand

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// TestTickIDsOfLongSchedulesNameADirectory: a recurring schedule may be
// named by a descriptor ID of up to 128 characters, or app-env-schedule
// (up to 136); its ticks' deploy IDs add 16 characters. The directory of
// such a deploy is named by a readable prefix and a hash of the ID, so a
// command step of the tick can run; a short ID names it as it is.
func TestTickIDsOfLongSchedulesNameADirectory(t *testing.T) {
	tick := time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC)
	long := strings.Repeat("a", 63) + "-" + strings.Repeat("b", 63) + "-schedule"
	tests := []struct {
		name, id string
		same     bool // the directory is the ID itself
	}{
		{"a short ID", "shop-1.5.0", true},
		{"128 characters", strings.Repeat("x", 128), true},
		{"129 characters", strings.Repeat("x", 129), false},
		{"a tick of a 128-character schedule", deploy.TickID(strings.Repeat("n", 128), tick), false},
		{"a tick of app-env-schedule", deploy.TickID(long, tick), false},
		{"a tick of a short schedule", deploy.TickID("nightly", tick), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := deployDir(tt.id)
			if !pathPart.MatchString(dir) && !shortened(dir) {
				t.Fatalf("deployDir(%q) = %q, which cannot name a directory", tt.id, dir)
			}
			if len(dir) > maxPathPart {
				t.Fatalf("deployDir(%q) = %q: %d characters, more than %d", tt.id, dir, len(dir), maxPathPart)
			}
			if got := dir == tt.id; got != tt.same {
				t.Fatalf("deployDir(%q) = %q: the ID itself %v, want %v", tt.id, dir, got, tt.same)
			}
			if !tt.same && !strings.HasPrefix(dir, tt.id[:prefixChars]+"~") {
				t.Fatalf("deployDir(%q) = %q, want the ID's first %d characters, ~ and a hash", tt.id, dir, prefixChars)
			}
		})
	}
	// Two ticks share the readable prefix, never the directory: prepare
	// removes the step's earlier attempts, which would be the other's.
	a, b := deployDir(deploy.TickID(long, tick)), deployDir(deploy.TickID(long, tick.Add(time.Hour)))
	if a == b {
		t.Errorf("two ticks of %s share the directory %s", long, a)
	}
}

// shortened reports whether dir has the form of a long ID's directory.
func shortened(dir string) bool {
	prefix, sum, ok := strings.Cut(dir, "~")
	return ok && pathPart.MatchString(prefix) && len(sum) == hashDigits && strings.Trim(sum, "0123456789abcdef") == ""
}

// testLongDeployID: a command step of a deploy whose ID is too long to name
// a directory (a tick of a schedule with a long name) runs, in the
// shortened directory, and sees its real ID in MANENT_DEPLOYMENT_ID.
func testLongDeployID(t *testing.T, h *host) {
	p := h.place(t)
	prog := p.program("report", `printf '%s' "$MANENT_DEPLOYMENT_ID" >"$here/id"
printf '%s' "$(dirname "$MANENT_OUTPUT")" >"$here/dir"
printf 'applied=1\n' >"$MANENT_OUTPUT"`)
	req := h.request(t, prog)
	name := unique(t, strings.Repeat("s", 63)+"-"+strings.Repeat("e", 63)+"-")
	req.DeploymentID = deploy.TickID(name, time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC))
	req.Outputs = map[string]deploy.OutputSpec{"applied": {Pattern: "[0-9]+"}}
	env, err := Contract{DeploymentID: req.DeploymentID, Step: req.Step, Application: "shop", Environment: "prod", Version: "1.0.0"}.Env()
	if err != nil {
		t.Fatal(err)
	}
	req.Env = env
	out, err := Run(t.Context(), req)
	if err != nil {
		t.Fatalf("run of deploy %s (%d characters): %v", req.DeploymentID, len(req.DeploymentID), err)
	}
	if out["applied"] != "1" {
		t.Errorf("outputs %v, want applied=1", out)
	}
	if got := p.read("id"); got != req.DeploymentID {
		t.Errorf("MANENT_DEPLOYMENT_ID = %q, want the deploy's ID %q", got, req.DeploymentID)
	}
	dir := p.read("dir")
	if filepath.Dir(dir) != stepDir(req) {
		t.Errorf("the attempt's directory is %s, want one in %s", dir, stepDir(req))
	}
	if got := filepath.Base(filepath.Dir(filepath.Dir(dir))); got != deployDir(req.DeploymentID) || !shortened(got) {
		t.Errorf("the deploy's directory is %q, want the shortened %q", got, deployDir(req.DeploymentID))
	}
	if exists(t, filepath.Dir(stepDir(req))) {
		t.Errorf("the deploy's directory is still there after the run")
	}
}
