package descriptor_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

const shop = `
apiVersion: manent/v1
kind: Release
id: shop-2026-10
onFailure: rollback
deploys:
  - name: db
    file: release/db.yml
  - name: api
    file: release/api.yml
    after: [db]
  - name: worker
    file: release/worker.yml
    after: [db]
  - name: web
    file: release/web.yml
    after: [api]
`

// releaseFieldsOf returns the "path: message" lines of a release's EINVALID error.
func releaseFieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var e *deploy.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *deploy.Error", err, err)
	}
	if e.Code != deploy.EINVALID || e.Message != "invalid release" {
		t.Fatalf("code %s message %q, want INVALID_DESCRIPTOR \"invalid release\"", e.Code, e.Message)
	}
	out := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		out[i] = f.String()
	}
	return out
}

func TestKind(t *testing.T) {
	tests := []struct {
		name, doc, want string
		err             bool
	}{
		{name: "release", doc: shop, want: descriptor.KindRelease},
		{name: "deployment", doc: minimal + "kind: Deployment\n", want: descriptor.KindDeployment},
		{name: "absent is a deployment", doc: minimal, want: descriptor.KindDeployment},
		{name: "null is a deployment", doc: minimal + "kind:\n", want: descriptor.KindDeployment},
		{name: "other kinds as written", doc: "kind: Job\n", want: "Job"},
		{name: "JSON", doc: `{"kind": "Release", "deploys": []}`, want: descriptor.KindRelease},
		{name: "alias", doc: "k: &k Release\nkind: *k\n", want: descriptor.KindRelease},
		{name: "not a string", doc: "kind: [Release]\n", err: true},
		{name: "not a mapping", doc: "- kind\n", err: true},
		{name: "empty", doc: "", err: true},
		{name: "syntax", doc: "kind: Release\n  x: y\n", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := descriptor.Kind([]byte(tt.doc))
			if tt.err {
				if deploy.ErrorCode(err) != deploy.EINVALID {
					t.Fatalf("Kind = %q, %v; want an EINVALID error", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Kind = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParseReleaseValid(t *testing.T) {
	inline := strings.ReplaceAll(strings.TrimPrefix(minimal, "\n"), "\n", "\n      ")
	tests := []struct {
		name string
		doc  string
		want deploy.ReleaseDescriptor
	}{
		{
			name: "the spec's example",
			doc:  shop,
			want: deploy.ReleaseDescriptor{
				APIVersion: "manent/v1", Kind: "Release", ID: "shop-2026-10", OnFailure: "rollback",
				Deploys: []deploy.ReleaseMember{
					{Name: "db", File: "release/db.yml"},
					{Name: "api", File: "release/api.yml", After: []string{"db"}},
					{Name: "worker", File: "release/worker.yml", After: []string{"db"}},
					{Name: "web", File: "release/web.yml", After: []string{"api"}},
				},
			},
		},
		{
			name: "onFailure defaults to stop, descriptors inline as text",
			doc:  "apiVersion: manent/v1\nkind: Release\nid: r1\ndeploys:\n  - name: a\n    descriptor: |\n      " + inline + "\n",
			want: deploy.ReleaseDescriptor{
				APIVersion: "manent/v1", Kind: "Release", ID: "r1", OnFailure: "stop",
				Deploys: []deploy.ReleaseMember{{Name: "a", Descriptor: strings.TrimPrefix(minimal, "\n")}},
			},
		},
		{
			name: "continue",
			doc:  "apiVersion: manent/v1\nkind: Release\nid: r1\nonFailure: continue\ndeploys: [{name: a, file: a.yml}, {name: b, file: b.yml, after: []}]\n",
			want: deploy.ReleaseDescriptor{
				APIVersion: "manent/v1", Kind: "Release", ID: "r1", OnFailure: "continue",
				Deploys: []deploy.ReleaseMember{{Name: "a", File: "a.yml"}, {Name: "b", File: "b.yml"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := descriptor.ParseRelease([]byte(tt.doc))
			if err != nil {
				t.Fatalf("ParseRelease: %v", err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

func TestParseReleaseInlineMapping(t *testing.T) {
	for name, doc := range map[string]string{
		"YAML": `apiVersion: manent/v1
kind: Release
id: r1
deploys:
  - name: a
    descriptor:
      apiVersion: manent/v1
      application: hello
      environment: staging
      artifact: {type: application, name: hello, version: 1.10, source: "file:hello.tgz"}
`,
		"JSON": `{"apiVersion": "manent/v1", "kind": "Release", "id": "r1", "deploys": [{"name": "a", "descriptor":
			{"apiVersion": "manent/v1", "application": "hello", "environment": "staging",
			 "artifact": {"type": "application", "name": "hello", "version": "1.10", "source": "file:hello.tgz"}}}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			r, err := descriptor.ParseRelease([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			ds, err := descriptor.ValidateReleaseMembers(r)
			if err != nil {
				t.Fatal(err)
			}
			if a := ds[0].Artifact; a.Version != "1.10" || a.Source != "file:hello.tgz" || ds[0].Application != "hello" {
				t.Errorf("inline descriptor read as %+v", ds[0])
			}
		})
	}
}

func TestParseReleaseInvalid(t *testing.T) {
	head := "apiVersion: manent/v1\nkind: Release\nid: r1\n"
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{
			name: "many problems, all reported",
			doc: `apiVersion: manent/v2
kind: Deployment
onFailure: rollforward
extra: 1
deploys:
  - name: db
    file: db.yml
    descriptor: "apiVersion: manent/v1"
  - name: Api
    file: api.yml
    after: [db, db, cache]
  - name: db
  - {name: web, file: "-web.yml", after: [web]}
  - {file: x.yml, after: "db"}
`,
			want: []string{
				"extra: unknown field",
				"deploys[4].after: must be a list",
				"apiVersion: must be manent/v1",
				"kind: must be Release",
				"id: is required: it is the idempotency key of the release",
				"onFailure: must be stop, continue or rollback",
				"deploys[0]: give either file or descriptor, not both",
				"deploys[1].name: " + msgName,
				"deploys[2].name: db is already the name of deploys[0]",
				"deploys[2]: needs file (a descriptor file, relative to the release) or descriptor (the descriptor inline)",
				"deploys[3].file: must not start with -",
				"deploys[4].name: is required",
				`deploys[1].after[1]: db is already listed (after[0])`,
				`deploys[1].after[2]: "cache" is not the name of a deploy of this release`,
				"deploys[3].after[0]: a deploy cannot depend on itself",
			},
		},
		{
			name: "a cycle is reported with its deploys in running order",
			doc:  head + "deploys:\n  - {name: db, file: a, after: [web]}\n  - {name: api, file: a, after: [db]}\n  - {name: web, file: a, after: [api]}\n",
			want: []string{"deploys[1].after[0]: closes the dependency cycle db → api → web → db"},
		},
		{
			name: "two cycles, both reported",
			doc: head + "deploys:\n  - {name: a, file: x, after: [b]}\n  - {name: b, file: x, after: [a]}\n" +
				"  - {name: c, file: x, after: [d, a]}\n  - {name: d, file: x, after: [c]}\n",
			want: []string{
				"deploys[1].after[0]: closes the dependency cycle a → b → a",
				"deploys[3].after[0]: closes the dependency cycle c → d → c",
			},
		},
		{
			name: "no deploys",
			doc:  head + "deploys: []\n",
			want: []string{"deploys: is required: a release has at least one deploy"},
		},
		{
			name: "too many deploys",
			doc:  head + "deploys: [" + strings.Repeat("{name: a, file: a},", 101) + "]\n",
			want: []string{"deploys: at most 100 deploys are allowed, found 101"},
		},
		{
			name: "too many dependencies",
			doc:  head + "deploys: [{name: a, file: a, after: [" + strings.Repeat("b,", 21) + "]}, {name: b, file: b}]\n",
			want: []string{"deploys[0].after: at most 20 dependencies are allowed, found 21"},
		},
		{
			name: "rollback IDs must fit",
			doc: "apiVersion: manent/v1\nkind: Release\nonFailure: rollback\nid: " + strings.Repeat("r", 100) +
				"\ndeploys: [{name: " + strings.Repeat("n", 20) + ", file: a}]\n",
			want: []string{"deploys[0].name: the rollback ID " + strings.Repeat("r", 100) + ".rollback." + strings.Repeat("n", 20) + " would be longer than 128 characters"},
		},
		{
			name: "id pattern",
			doc:  "apiVersion: manent/v1\nkind: Release\nid: Shop 2026\ndeploys: [{name: a, file: a}]\n",
			want: []string{"id: " + msgID},
		},
		{
			name: "kind is required",
			doc:  "apiVersion: manent/v1\nid: r\ndeploys: [{name: a, file: a}]\n",
			want: []string{"kind: is required"},
		},
		{
			name: "not a mapping",
			doc:  "[]\n",
			want: []string{"the release must be a mapping of fields (apiVersion, kind, id, deploys, ...)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := descriptor.ParseRelease([]byte(tt.doc))
			if err == nil {
				t.Fatalf("ParseRelease accepted it: %+v", r)
			}
			got := releaseFieldsOf(t, err)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("fields:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func TestTopoOrder(t *testing.T) {
	m := func(name string, after ...string) deploy.ReleaseMember {
		return deploy.ReleaseMember{Name: name, After: after}
	}
	tests := []struct {
		name    string
		deploys []deploy.ReleaseMember
		want    []string
		err     []string
	}{
		{name: "the spec's release", deploys: []deploy.ReleaseMember{m("db"), m("api", "db"), m("worker", "db"), m("web", "api")}, want: []string{"db", "api", "worker", "web"}},
		{name: "written backwards", deploys: []deploy.ReleaseMember{m("web", "api"), m("api", "db"), m("worker", "db"), m("db")}, want: []string{"db", "api", "web", "worker"}},
		{name: "independent deploys keep document order", deploys: []deploy.ReleaseMember{m("c"), m("a"), m("b")}, want: []string{"c", "a", "b"}},
		{name: "diamond", deploys: []deploy.ReleaseMember{m("d", "b", "c"), m("c", "a"), m("b", "a"), m("a")}, want: []string{"a", "c", "b", "d"}},
		{name: "empty", deploys: nil, want: []string{}},
		{name: "cycle", deploys: []deploy.ReleaseMember{m("a", "b"), m("b", "a"), m("c")}, err: []string{"deploys[1].after[0]: closes the dependency cycle a → b → a"}},
		{name: "unknown", deploys: []deploy.ReleaseMember{m("a", "x")}, err: []string{`deploys[0].after[0]: "x" is not the name of a deploy of this release`}},
		{name: "itself", deploys: []deploy.ReleaseMember{m("a", "a")}, err: []string{"deploys[0].after[0]: a deploy cannot depend on itself"}},
		{name: "duplicate names", deploys: []deploy.ReleaseMember{m("a"), m("a")}, err: []string{"deploys[1].name: a is already the name of deploys[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := descriptor.TopoOrder(&deploy.ReleaseDescriptor{ID: "r", Deploys: tt.deploys})
			if tt.err != nil {
				if fields := releaseFieldsOf(t, err); !reflect.DeepEqual(fields, tt.err) {
					t.Errorf("errors %q, want %q", fields, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("order %q, want %q", got, tt.want)
			}
		})
	}
}

// member builds the inline descriptor of a deploy of a release.
func member(app string, extra string) string {
	return fmt.Sprintf(`apiVersion: manent/v1
application: %s
environment: prod
artifact: {type: application, name: %s, version: 1.0.0, source: "file:%s.tgz"}
%s`, app, app, app, extra)
}

func TestValidateReleaseMembers(t *testing.T) {
	valid := &deploy.ReleaseDescriptor{ID: "shop", Deploys: []deploy.ReleaseMember{
		{Name: "infra", Descriptor: member("infra", "exports: {vms: {from: deploy.vms, format: targets}}\n")},
		{Name: "os", After: []string{"infra"}, Descriptor: member("os-config",
			"after: [ext-1]\nafterTimeout: 1h\nimports: {infra: {deployment: infra}, ext: {deployment: ext-1}}\n"+
				"deploy: {targetsFrom: [{import: infra, export: vms}], paramsFrom: {x: {import: ext, export: y}}}\n")},
		{Name: "web", After: []string{"os"}, Descriptor: member("web", "id: web-42\nafterTimeout: 2h\n")},
	}}
	t.Run("valid, then resolved to IDs", func(t *testing.T) {
		ds, err := descriptor.ValidateReleaseMembers(valid)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != 3 || ds[1].Imports["infra"].Deployment != "infra" || ds[1].After[0] != "ext-1" {
			t.Fatalf("descriptors are not as written: %+v", ds)
		}
		resolved, err := descriptor.ResolveReleaseMembers(valid, ds)
		if err != nil {
			t.Fatal(err)
		}
		got := [][]string{}
		for _, d := range resolved {
			got = append(got, append([]string{d.ID}, d.After...))
		}
		want := [][]string{{"shop.infra"}, {"shop.os", "ext-1", "shop.infra"}, {"web-42", "shop.os"}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("IDs and after %q, want %q", got, want)
		}
		if imp := resolved[1].Imports; imp["infra"].Deployment != "shop.infra" || imp["ext"].Deployment != "ext-1" {
			t.Errorf("imports %+v", imp)
		}
		if ds[1].Imports["infra"].Deployment != "infra" || len(ds[1].After) != 1 {
			t.Errorf("ResolveReleaseMembers changed its input: %+v", ds[1])
		}
	})

	invalid := &deploy.ReleaseDescriptor{ID: "shop", Deploys: []deploy.ReleaseMember{
		{Name: "a", Descriptor: member("a", "dryRun: true\nschedule: {at: 2026-10-12T12:00:00Z}\n")},
		{Name: "b", File: "b.yml"},
		{Name: "c", Descriptor: member("c", "id: same\nlabels: {\"x y\": z}\nartifact: {}\n")},
		{Name: "d", Descriptor: member("d", "id: same\nimports: {up: {deployment: a}}\ndeploy: {targetsFrom: [{import: up, export: vms}]}\n")},
		{Name: "e", After: []string{"d"}, Descriptor: member("e", "after: ["+ids(20)+"]\n")},
		{Name: "f", Descriptor: "a: [\n"},
		{Name: "g", Descriptor: member("g", "kind: Release\n")},
		{Name: "h", Descriptor: member("h", "afterTimeout: 1h\n")},
	}}
	t.Run("every problem, with its path", func(t *testing.T) {
		_, err := descriptor.ValidateReleaseMembers(invalid)
		want := []string{
			"deploys[0].descriptor.schedule: no schedule or dryRun in the deploys of a release",
			"deploys[0].descriptor.dryRun: no schedule or dryRun in the deploys of a release",
			"deploys[0].descriptor.schedule: is not allowed with dryRun: a dry-run runs immediately",
			"deploys[1].descriptor: is required: the deploy's descriptor must be inline (the CLI reads file)",
			"deploys[2].descriptor.artifact: duplicate key",
			`deploys[2].descriptor.labels["x y"]: ` + "key must be 1 to 63 characters of a-z, 0-9, '.', '_', '/' and -, starting with a letter or digit",
			"deploys[3].descriptor.imports.up.deployment: a must be listed in after: an import reads a deploy this one waits for",
			"deploys[4].descriptor.after: at most 20 dependencies are allowed in all (here and in the release), found 21",
			"deploys[5].descriptor: syntax error at line 1: did not find expected node content",
			"deploys[6].descriptor.kind: a Release is submitted as a release (manent release submit), not as a deploy",
			"deploys[7].descriptor.afterTimeout: bounds the wait for the deploys in after, and after is empty",
		}
		if got := releaseFieldsOf(t, err); !reflect.DeepEqual(got, want) {
			t.Errorf("fields:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	})

	t.Run("distinct IDs", func(t *testing.T) {
		r := &deploy.ReleaseDescriptor{ID: "shop", Deploys: []deploy.ReleaseMember{
			{Name: "a", Descriptor: member("a", "id: shop.b\n")},
			{Name: "b", Descriptor: member("b", "")},
			{Name: "c", Descriptor: member("c", "id: "+strings.Repeat("x", 128)+"\n")},
		}}
		_, err := descriptor.ValidateReleaseMembers(r)
		want := []string{"deploys[1].descriptor.id: the deploy ID shop.b is also the ID of deploys[0]"}
		if got := releaseFieldsOf(t, err); !reflect.DeepEqual(got, want) {
			t.Errorf("fields %q, want %q", got, want)
		}
	})

	t.Run("default IDs must fit", func(t *testing.T) {
		long := strings.Repeat("r", 120)
		r := &deploy.ReleaseDescriptor{ID: long, Deploys: []deploy.ReleaseMember{{Name: "database", Descriptor: member("a", "")}}}
		_, err := descriptor.ValidateReleaseMembers(r)
		want := []string{"deploys[0].descriptor.id: is needed: the default ID " + long + ".database would be longer than 128 characters"}
		if got := releaseFieldsOf(t, err); !reflect.DeepEqual(got, want) {
			t.Errorf("fields %q, want %q", got, want)
		}
	})
}

func TestResolveReleaseMembersRefusesIDsOfTheRelease(t *testing.T) {
	doc := `apiVersion: manent/v1
kind: Release
id: shop
deploys:
  - name: api
    descriptor: {apiVersion: manent/v1, application: api, environment: prod, after: [shop.web], artifact: {type: application, name: api, version: "1", source: "file:a.tgz"}}
  - name: web
    descriptor: {apiVersion: manent/v1, application: web, environment: prod, artifact: {type: application, name: web, version: "1", source: "file:a.tgz"}}
    after: [api]
`
	r, err := descriptor.ParseRelease([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := descriptor.ValidateReleaseMembers(r)
	if err != nil {
		t.Fatal(err)
	}
	_, err = descriptor.ResolveReleaseMembers(r, ds)
	var de *deploy.Error
	if !errors.As(err, &de) || len(de.Fields) != 1 || de.Fields[0].Path != "deploys[0].descriptor.after[0]" {
		t.Fatalf("got %v, want the member ID in after refused", err)
	}
}
