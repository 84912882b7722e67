package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manent.dev/manent/client"
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
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Fatalf("got %v, want a usage error", err)
			}
		})
	}
}

func TestReleaseStatusExports(t *testing.T) {
	r := &client.ReleaseDetail{Id: "shop-demo", State: client.ReleaseStateSuccess, OnFailure: "stop", Requester: "token:demo-ci",
		Deploys: []client.ReleaseDeploy{
			{Name: "db", DeploymentId: "shop-demo.db", State: client.DeploymentStateSuccess, After: []string{}},
			{Name: "api", DeploymentId: "shop-demo.api", State: client.DeploymentStateSuccess, After: []string{"db"}},
		}}
	exports := map[string][]client.Export{"db": {{Name: "release", Format: "string", Value: "1.4.0"}}}
	tests := []struct {
		name    string
		exports map[string][]client.Export
		want    []string
		notWant []string
	}{
		{name: "with exports", exports: exports, want: []string{"DEPLOY  EXPORT   FORMAT  VALUE\n", "db      release  string  1.4.0\n"}},
		{name: "none", exports: nil, notWant: []string{"EXPORT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newReleaseStatus(r, tt.exports)
			var table strings.Builder
			if err := writeReleaseStatus(&table, v); err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.want {
				if !strings.Contains(table.String(), s) {
					t.Errorf("table lacks %q:\n%s", s, table.String())
				}
			}
			for _, s := range tt.notWant {
				if strings.Contains(table.String(), s) {
					t.Errorf("table has %q:\n%s", s, table.String())
				}
			}
			var out strings.Builder
			if err := writeJSON(&out, v.view); err != nil {
				t.Fatal(err)
			}
			var got struct {
				ID      string `json:"id"`
				Deploys []struct {
					Name    string          `json:"name"`
					State   string          `json:"state"`
					Exports []client.Export `json:"exports"`
				} `json:"deploys"`
			}
			if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
				t.Fatal(err)
			}
			if got.ID != "shop-demo" || len(got.Deploys) != 2 || got.Deploys[1].State != "SUCCESS" || got.Deploys[1].Exports == nil {
				t.Fatalf("json = %s", out.String())
			}
			if want := len(tt.exports["db"]); len(got.Deploys[0].Exports) != want {
				t.Errorf("db exports = %+v, want %d", got.Deploys[0].Exports, want)
			}
		})
	}
}
