package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"path/filepath"
	"syscall"

	"manent.dev/manent/internal/sshfleet"
)

// The fleet of examples/envconfig/demo/hello/ssh.yml: its port, its users
// and where it finds the deploy key and known_hosts (examples/manent.yml).
const (
	defaultPort = 2222
	// outDir is where manent reads the deploy key (a file: secret, inside
	// secrets.file_root: examples/) and known_hosts, relative to examples/.
	outDir = "ssh/fleet"
)

var users = []string{"manent-fleet-eu", "manent-fleet-us", "manent-fleet-ap"}

// migrateTool is the program of the demo's command step db-migrate, which
// examples/manent.yml names as tools/migrate under the default -dir, with
// this file's SHA-256 as its run.sha256.
//
//go:embed migrate
var migrateTool []byte

// defaultDir is -dir's default, where examples/manent.yml expects the tool.
const defaultDir = "/var/tmp/manent-ssh-fleet"

func main() {
	port := flag.Int("port", defaultPort, "sshd's port on 127.0.0.1 (hello/ssh.yml names 2222)")
	dir := flag.String("dir", defaultDir, "sshd's config, host key, authorized keys and command logs; the users must be able to traverse it")
	examples := flag.String("examples", "examples", "the demo's directory, with manent.yml")
	remove := flag.Bool("remove-users", false, "remove the fleet's users and their homes, then exit")
	flag.Parse()
	var err error
	if *remove {
		err = removeUsers()
	} else {
		err = run(*port, *dir, *examples)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		os.Exit(1)
	}
}

func run(port int, dir, examples string) error {
	if _, err := os.Stat(filepath.Join(examples, "manent.yml")); err != nil {
		return fmt.Errorf("no demo in %s (run from the checkout, or give -examples): %w", examples, err)
	}
	if err := installSSHD(); err != nil {
		return err
	}
	fleet, err := sshfleet.Start(sshfleet.Config{Dir: dir, Users: users, Port: port})
	if err != nil {
		return err
	}
	defer func() { _ = fleet.Stop() }() // it is ending anyway: nothing to report
	out := filepath.Join(examples, outDir)
	if err := os.MkdirAll(out, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", out, err)
	}
	if err := copyFile(fleet.DeployKey(), filepath.Join(out, "deploy-key"), 0o600); err != nil {
		return err
	}
	if err := copyFile(fleet.KnownHosts(), filepath.Join(out, "known_hosts"), 0o644); err != nil {
		return err
	}
	tool, err := installTool(fleet.Dir)
	if err != nil {
		return err
	}
	fp, err := fleet.Fingerprint()
	if err != nil {
		return err
	}
	printUsage(fleet, out, fp, tool)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	fmt.Println("\nstopping the fleet")
	return fleet.Stop()
}

// installTool writes the demo's migration tool into the fleet's directory,
// root's and read-only for the users, who run it over SSH.
func installTool(dir string) (string, error) {
	tools := filepath.Join(dir, "tools")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", tools, err)
	}
	path := filepath.Join(tools, "migrate")
	if err := os.WriteFile(path, migrateTool, 0o755); err != nil {
		return "", fmt.Errorf("install the migration tool: %w", err)
	}
	// WriteFile keeps the mode of a file that was there, and a fleet
	// started again puts back a tool someone changed.
	if err := os.Chmod(path, 0o755); err != nil {
		return "", fmt.Errorf("install the migration tool: %w", err)
	}
	return path, nil
}

func printUsage(fleet *sshfleet.Fleet, out, fingerprint, tool string) {
	fmt.Printf("The fleet is up: OpenSSH's sshd on %s, host key %s\n\n", fleet.Addr(), fingerprint)
	for _, u := range fleet.Users {
		fmt.Printf("  host %-16s releases in %s\n", u.Name, filepath.Join(u.Home, "apps/hello"))
	}
	fmt.Printf(`
  deploy key   %s (the secret deploy-key of hello/ssh)
  known_hosts  %s (plugins.ssh.known_hosts of manent.yml)
  commands     %s/commands/<user>.log: what manent ran on each host
  migrate      %s (the program of the command step db-migrate)

With the demo running (make run), in another terminal:

  export MANENT_SERVER=http://127.0.0.1:8080 MANENT_TOKEN=demo-ci
  bin/manent deploy -f examples/deploys/hello-ssh.yml
  readlink %s

  bin/manent deploy -f examples/deploys/hello-ssh-migrate.yml   (with db-migrate)

`, filepath.Join(out, "deploy-key"), filepath.Join(out, "known_hosts"), fleet.Dir, tool,
		filepath.Join(fleet.Users[0].Home, "apps/hello/current"))
	if fleet.Port != defaultPort {
		fmt.Printf("examples/envconfig/demo/hello/ssh.yml names port %d: change it to %d.\n\n", defaultPort, fleet.Port)
	}
	if want := filepath.Join(defaultDir, "tools/migrate"); tool != want {
		fmt.Printf("examples/manent.yml runs db-migrate's %s: change it to %s.\n\n", want, tool)
	}
	fmt.Println("Ctrl-C stops the fleet; its users stay (go run ./examples/ssh -remove-users removes them).")
}

// installSSHD installs OpenSSH's server when it is missing and this runs
// as root, as make test does.
func installSSHD() error {
	err := sshfleet.Check()
	if err == nil || os.Geteuid() != 0 {
		return err
	}
	if _, lookErr := exec.LookPath("apt-get"); lookErr != nil {
		return err
	}
	fmt.Println("installing openssh-server with apt-get (its service is not used)")
	for _, args := range [][]string{
		{"update", "-qq"},
		{"install", "-y", "-qq", "--no-install-recommends", "openssh-server"},
	} {
		cmd := exec.Command("apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("apt-get %s: %w", args[0], err)
		}
	}
	return sshfleet.Check()
}

func removeUsers() error {
	var errs []error
	for _, name := range users {
		var unknown user.UnknownUserError
		if _, err := user.Lookup(name); errors.As(err, &unknown) {
			continue
		}
		if out, err := exec.Command("userdel", "--remove", name).CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("userdel %s: %w: %s", name, err, out))
			continue
		}
		fmt.Println("removed", name)
	}
	return errors.Join(errs...)
}

func copyFile(from, to string, mode os.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("copy %s: %w", from, err)
	}
	defer func() { _ = src.Close() }() // read-only
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, mode)
	if err != nil {
		return fmt.Errorf("copy to %s: %w", to, err)
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("copy to %s: %w", to, err)
	}
	// OpenFile keeps the mode of a file that was there.
	return os.Chmod(to, mode)
}
