package descriptor_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

const minimal = `
apiVersion: manent/v1
application: hello
environment: staging
artifact:
  type: application
  name: hello
  version: 1.0.0
  source: file:hello-1.0.0.tar.gz
`

func TestParseValid(t *testing.T) {
	sha := strings.Repeat("ab", 32)
	port := 2222
	tests := []struct {
		name string
		doc  string
		want deploy.Descriptor
	}{
		{
			name: "minimal gets the default kind",
			doc:  minimal,
			want: deploy.Descriptor{
				APIVersion: "manent/v1", Kind: "Deployment", Application: "hello", Environment: "staging",
				Artifact: deploy.Artifact{Type: "application", Name: "hello", Version: "1.0.0", Source: "file:hello-1.0.0.tar.gz"},
			},
		},
		{
			name: "every field",
			doc: `
apiVersion: manent/v1
kind: Deployment
id: hello-1.0.0@staging
tenant: shop
application: hello
environment: staging
description: "First release"
labels: {team: web, app.kubernetes.io/name: hello}
artifact:
  type: application
  name: hello
  version: 1.10
  source: https://repo.example.com/hello-1.10.tgz
  sha256: ` + sha + `
dryRun: true
deploy:
  targets:
    - {host: web1.example.com, port: 2222, user: deploy, path: /srv/hello, labels: {zone: a}}
    - path: ../targets/hello
  params: {log_level: debug, replicas: 3, debug: true}
steps: {post-test: false, activation: true}
stepParams:
  db-migrate: {database: shop}
`,
			want: deploy.Descriptor{
				APIVersion: "manent/v1", Kind: "Deployment", ID: "hello-1.0.0@staging", Tenant: "shop",
				Application: "hello", Environment: "staging", Description: "First release",
				Labels: map[string]string{"team": "web", "app.kubernetes.io/name": "hello"},
				Artifact: deploy.Artifact{
					Type: "application", Name: "hello", Version: "1.10",
					Source: "https://repo.example.com/hello-1.10.tgz", SHA256: sha,
				},
				DryRun: true,
				Deploy: deploy.DeploySection{
					Targets: []deploy.Target{
						{Host: "web1.example.com", Port: port, User: "deploy", Path: "/srv/hello", Labels: map[string]string{"zone": "a"}},
						{Path: "../targets/hello"},
					},
					Params: map[string]string{"log_level": "debug", "replicas": "3", "debug": "true"},
				},
				Steps:      map[string]bool{"post-test": false, "activation": true},
				StepParams: map[string]map[string]string{"db-migrate": {"database": "shop"}},
			},
		},
		{
			name: "JSON, with an escaped slash YAML would refuse",
			doc: `{"apiVersion": "manent\/v1", "application": "hello", "environment": "staging",
				"artifact": {"type": "application", "name": "hello", "version": "1.0.0", "source": "file:hello-1.0.0.tar.gz"},
				"deploy": {"targets": [{"path": "/srv/x", "port": 22}]}}`,
			want: deploy.Descriptor{
				APIVersion: "manent/v1", Kind: "Deployment", Application: "hello", Environment: "staging",
				Artifact: deploy.Artifact{Type: "application", Name: "hello", Version: "1.0.0", Source: "file:hello-1.0.0.tar.gz"},
				Deploy:   deploy.DeploySection{Targets: []deploy.Target{{Path: "/srv/x", Port: 22}}},
			},
		},
		{
			name: "null optional fields are absent",
			doc:  minimal + "description:\nlabels: ~\ndeploy:\n",
			want: deploy.Descriptor{
				APIVersion: "manent/v1", Kind: "Deployment", Application: "hello", Environment: "staging",
				Artifact: deploy.Artifact{Type: "application", Name: "hello", Version: "1.0.0", Source: "file:hello-1.0.0.tar.gz"},
			},
		},
		{
			name: "anchors and aliases",
			doc:  minimal + "labels: &l {team: web}\ndeploy:\n  targets:\n    - {path: /a, labels: *l}\n",
			want: deploy.Descriptor{
				APIVersion: "manent/v1", Kind: "Deployment", Application: "hello", Environment: "staging",
				Labels:   map[string]string{"team": "web"},
				Artifact: deploy.Artifact{Type: "application", Name: "hello", Version: "1.0.0", Source: "file:hello-1.0.0.tar.gz"},
				Deploy:   deploy.DeploySection{Targets: []deploy.Target{{Path: "/a", Labels: map[string]string{"team": "web"}}}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := descriptor.Parse([]byte(tt.doc))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

// fieldsOf returns the "path: message" lines of an EINVALID error.
func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var e *deploy.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *deploy.Error", err, err)
	}
	if e.Code != deploy.EINVALID || e.Message != "invalid descriptor" {
		t.Fatalf("code %s message %q, want INVALID_DESCRIPTOR \"invalid descriptor\"", e.Code, e.Message)
	}
	out := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		out[i] = f.String()
	}
	return out
}

func TestParseInvalid(t *testing.T) {
	artifact := "artifact: {type: application, name: hello, version: 1.0.0, source: file:a.tgz}\n"
	head := "apiVersion: manent/v1\napplication: hello\nenvironment: staging\n"
	tests := []struct {
		name string
		doc  string
		// want lists every expected field error, in order.
		want []string
	}{
		{
			name: "several errors are all reported with their paths",
			doc: `
apiVersion: manent/v2
kind: Deployment
tenant: Shop
application: hello world
labels: {Team: web, ok: "` + strings.Repeat("x", 257) + `"}
artifact:
  type: application
  name: hello
  version: "1.0 beta"
  sha256: ABC
dryRun: "yes"
deploy:
  targets:
    - {host: web1, port: 70000}
    - {user: deploy}
    - {host: -oProxyCommand=x, path: /srv}
  params: {LogLevel: debug}
  extra: 1
steps: {post-test: maybe}
`,
			want: []string{
				"dryRun: must be true or false",
				"deploy.extra: unknown field",
				"steps.post-test: must be true or false",
				"apiVersion: must be manent/v1",
				"tenant: must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter or digit",
				"application: must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter or digit",
				"environment: is required",
				"labels.Team: key must be 1 to 63 characters of a-z, 0-9, '.', '_', '/' and -, starting with a letter or digit",
				"labels.ok: must be at most 256 characters",
				"artifact.version: must be 1 to 128 characters of A-Z, a-z, 0-9, '.', '+', '_' and -, starting with a letter or digit",
				"artifact.source: is required",
				"artifact.sha256: must be 64 lowercase hexadecimal digits",
				"deploy.targets[0].port: must be between 1 and 65535",
				"deploy.targets[1]: needs a host or a path",
				"deploy.targets[2].host: must be a host name or an IP address",
				"deploy.params.LogLevel: name must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter",
			},
		},
		{
			name: "empty document",
			doc:  "# nothing\n",
			want: []string{"document is empty"},
		},
		{
			name: "not a mapping",
			doc:  "- a\n- b\n",
			want: []string{"the descriptor must be a mapping of fields (apiVersion, application, environment, artifact, ...)"},
		},
		{
			name: "syntax error carries the line",
			doc:  "apiVersion: manent/v1\napplication: hello\n  environment: staging\n",
			want: []string{"syntax error at line 3: mapping values are not allowed in this context"},
		},
		{
			name: "several documents",
			doc:  head + artifact + "---\n" + head + artifact,
			want: []string{"only one document is allowed (found a second one after ---)"},
		},
		{
			name: "duplicate keys",
			doc:  head + artifact + "application: other\ndeploy: {params: {a: x, a: y}}\n",
			want: []string{"application: duplicate key", "deploy.params.a: duplicate key"},
		},
		{
			name: "unknown fields with a suggestion",
			doc:  head + artifact + "dry_run: true\naplication: x\nfoo: bar\n", //nolint:misspell // intentional typo under test
			want: []string{
				"dry_run: unknown field (did you mean dryRun?)",
				"aplication: unknown field (did you mean application?)", //nolint:misspell // intentional typo under test
				"foo: unknown field",
			},
		},
		{
			name: "a Release is not a deploy",
			doc:  "apiVersion: manent/v1\nkind: Release\ndeploys: []\n",
			want: []string{"kind: a Release is submitted as a release (manent release submit), not as a deploy"},
		},
		{
			name: "other kinds",
			doc:  head + artifact + "kind: Job\n",
			want: []string{"kind: must be Deployment"},
		},
		{
			name: "every required field missing",
			doc:  "artifact: {}\n",
			want: []string{
				"apiVersion: is required",
				"application: is required",
				"environment: is required",
				"artifact.type: is required",
				"artifact.name: is required",
				"artifact.version: is required",
				"artifact.source: is required",
			},
		},
		{
			name: "artifact missing",
			doc:  head,
			want: []string{"artifact: is required"},
		},
		{
			name: "wrong types are reported once, not also as missing",
			doc:  "apiVersion: manent/v1\napplication: {a: b}\nenvironment: [x]\nartifact: file:a.tgz\ndeploy: {targets: {host: a}}\n",
			want: []string{
				"application: must be a string",
				"environment: must be a string",
				"artifact: must be a mapping",
				"deploy.targets: must be a list",
			},
		},
		{
			name: "sources",
			doc: "apiVersion: manent/v1\napplication: a\nenvironment: b\n" +
				"artifact: {type: application, name: hello, version: 1.0.0, source: 'ftp://x/a.tgz'}\n",
			want: []string{"artifact.source: must be a URL with the scheme file, http or https"},
		},
		{
			name: "credentials in a source",
			doc: "apiVersion: manent/v1\napplication: a\nenvironment: b\n" +
				"artifact: {type: application, name: hello, version: 1.0.0, source: 'http://u:p@127.0.0.1:8080/a.tgz'}\n",
			want: []string{"artifact.source: must not contain credentials"},
		},
		{
			name: "id, description, step names and stepParams",
			doc: head + artifact + "id: -bad\ndescription: " + strings.Repeat("d", 1025) +
				"\nsteps: {Deploy: true}\nstepParams: {db-migrate: {Database: x}, _x: {}}\n",
			want: []string{
				"id: must be 1 to 128 characters of a-z, 0-9, '.', '_', '@' and -, starting with a letter or digit",
				"description: must be at most 1024 characters",
				"steps.Deploy: step name must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter",
				"stepParams._x: step name must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter",
				"stepParams.db-migrate.Database: name must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter",
			},
		},
		{
			name: "an id of the form of a schedule's tick",
			doc:  head + artifact + "id: nightly@20261201-020000\n",
			want: []string{"id: must not end in @<yyyymmdd-hhmmss>: that form is kept for the deploys of recurring schedules"},
		},
		{
			name: "merge keys",
			doc:  head + artifact + "base: &b {a: x}\nlabels: {<<: *b}\n",
			want: []string{"base: unknown field", "labels: merge keys (<<) are not supported"},
		},
		{
			name: "targets limit",
			doc:  head + artifact + "deploy: {targets: [" + strings.Repeat("{path: /a},", 501) + "]}\n",
			want: []string{"deploy.targets: at most 500 targets are allowed, found 501"},
		},
		{
			name: "params limit",
			doc:  head + artifact + "deploy: {params: {" + manyParams(65) + "}}\n",
			want: []string{"deploy.params: at most 64 parameters are allowed, found 65"},
		},
		{
			name: "document size",
			doc:  head + artifact + "description: x\n#" + strings.Repeat("x", 1<<20),
			want: []string{"document is larger than 1048576 bytes"},
		},
		{
			name: "keys that need quoting in paths",
			doc:  head + artifact + "labels: {\"a b\": x}\n",
			want: []string{`labels["a b"]: key must be 1 to 63 characters of a-z, 0-9, '.', '_', '/' and -, starting with a letter or digit`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := descriptor.Parse([]byte(tt.doc))
			if err == nil {
				t.Fatalf("Parse accepted it: %+v", d)
			}
			got := fieldsOf(t, err)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("fields:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func manyParams(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("p")
		b.WriteString(strings.Repeat("a", i+1))
		b.WriteString(": x,")
	}
	return b.String()
}

func TestParseBoundsErrorsAndWork(t *testing.T) {
	head := "apiVersion: manent/v1\napplication: hello\nenvironment: staging\n"
	artifact := "artifact: {type: application, name: hello, version: 1.0.0, source: file:a.tgz}\n"
	t.Run("errors are capped", func(t *testing.T) {
		var b strings.Builder
		for i := range 300 {
			b.WriteString("unknown")
			b.WriteString(strings.Repeat("x", i))
			b.WriteString(": 1\n")
		}
		_, err := descriptor.Parse([]byte(b.String()))
		got := fieldsOf(t, err)
		if len(got) != 101 || got[100] != "too many errors: only the first 100 are shown" {
			t.Fatalf("got %d errors, last %q", len(got), got[len(got)-1])
		}
	})
	t.Run("aliases do not expand a billion laughs", func(t *testing.T) {
		doc := head + artifact + "x: &a [x,x,x,x,x,x,x,x,x,x]\n"
		prev := "a"
		for _, name := range []string{"b", "c", "d", "e", "f", "g", "h"} {
			doc += name + ": &" + name + " [" + strings.Repeat("*"+prev+",", 10) + "]\n"
			prev = name
		}
		doc += "labels: {x: *h}\ndeploy: {targets: *h}\n"
		_, err := descriptor.Parse([]byte(doc))
		got := fieldsOf(t, err)
		if len(got) != 19 || got[0] != "x: unknown field" || got[8] != "labels.x: must be a string" || got[9] != "deploy.targets[0]: must be a mapping" {
			t.Fatalf("got %q", got)
		}
	})
}
