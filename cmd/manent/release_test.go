package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	desc "manent.dev/manent/descriptor"
)

func TestInlineReleaseFiles(t *testing.T) {
	dir := t.TempDir()
	db := "apiVersion: manent/v1\napplication: db\nenvironment: prod\nartifact: {type: application, name: db, version: \"1\", source: \"file:db.tgz\"}\n"
	if err := os.MkdirAll(filepath.Join(dir, "release"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "release/db.yml"), []byte(db), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := "apiVersion: manent/v1\nkind: Release\nid: shop\ndeploys:\n  - name: db\n    file: release/db.yml\n"
	out, err := inlineReleaseFiles([]byte(doc), dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := desc.ParseRelease(out)
	if err != nil {
		t.Fatalf("parse %s: %v", out, err)
	}
	if r.Deploys[0].File != "" || r.Deploys[0].Descriptor != db {
		t.Fatalf("member = %+v", r.Deploys[0])
	}
	if _, err := desc.ValidateReleaseMembers(r); err != nil {
		t.Fatalf("validate: %v", err)
	}
	tests := map[string]string{
		"outside":   "../db.yml",
		"absolute":  "/etc/passwd",
		"not found": "release/none.yml",
	}
	for name, file := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := inlineReleaseFiles([]byte(strings.Replace(doc, "release/db.yml", file, 1)), dir)
			if _, ok := err.(*usageError); !ok {
				t.Fatalf("got %v, want a usage error", err)
			}
		})
	}
}
