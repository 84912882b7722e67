package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pgctl remove takes away a durable cluster that pgctl start left running,
// wherever it lives; pgctl stop alone keeps it.
func TestRemove(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pg")
	var out, errOut bytes.Buffer
	if err := run([]string{"start", "--dir", dir}, &out, &errOut); err != nil {
		t.Fatalf("start: %v\n%s", err, errOut.String())
	}
	t.Cleanup(func() { _ = run([]string{"remove", "--dir", dir}, &out, &errOut) })
	cluster := dir
	if target, err := os.Readlink(filepath.Join(dir, "cluster")); err == nil {
		cluster = target // as root: the cluster is outside the data directory
	}
	if err := run([]string{"stop", "--dir", dir}, &out, &errOut); err != nil {
		t.Fatalf("stop: %v\n%s", err, errOut.String())
	}
	if _, err := os.Stat(filepath.Join(cluster, "pgdata")); err != nil {
		t.Fatalf("stop removed the durable cluster %s: %v", cluster, err)
	}
	if err := run([]string{"remove", "--dir", dir}, &out, &errOut); err != nil {
		t.Fatalf("remove: %v\n%s", err, errOut.String())
	}
	for _, p := range []string{cluster, dir} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there after remove: %v", p, err)
		}
	}
	if err := run([]string{"remove"}, &out, &errOut); err == nil {
		t.Errorf("remove without --dir was accepted")
	}
}

// make clean removes the clusters of the checkout: make run's (the server's
// .manent/pg), make test's and make bench's, and the copy of the binaries.
// Checked with make -n, which runs nothing.
func TestMakeCleanRemovesTheClusters(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("make: %v", err)
	}
	root, err := filepath.Abs("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-n", "--no-print-directory", "clean")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n clean: %v\n%s", err, out)
	}
	for _, want := range []string{
		"bin/pgctl remove --dir '" + filepath.Join(root, ".manent/pg") + "'",
		"bin/pgctl remove --dir '" + filepath.Join(root, ".manent/pgtest") + "'",
		"bin/pgctl remove --dir '" + filepath.Join(root, ".manent/pgbench") + "'",
		"bin/pgctl remove-binaries",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make clean does not run %s:\n%s", want, out)
		}
	}
}
