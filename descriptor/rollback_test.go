package descriptor_test

import (
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

func TestRollback(t *testing.T) {
	yes, no := true, false
	twenty := "[" + stepList(20) + "]"
	tests := []struct {
		name string
		doc  string
		want *deploy.RollbackOverride
		// errs lists the expected field errors; none means valid.
		errs []string
	}{
		{name: "absent", doc: minimal},
		{name: "null is absent", doc: minimal + "rollback:\n"},
		{name: "turned off", doc: minimal + "rollback: {enabled: false}\n", want: &deploy.RollbackOverride{Enabled: &no}},
		{name: "only on, kept as written", doc: minimal + "rollback:\n  on: [activation, deploy]\n",
			want: &deploy.RollbackOverride{On: []string{"activation", "deploy"}}},
		{name: "both", doc: minimal + "rollback:\n  enabled: true\n  on:\n    - deploy\n", want: &deploy.RollbackOverride{Enabled: &yes, On: []string{"deploy"}}},
		{name: "names are only checked for their shape", doc: minimal + "rollback: {on: [config, db-migrate]}\n",
			want: &deploy.RollbackOverride{On: []string{"config", "db-migrate"}}},
		{name: "20 steps", doc: minimal + "rollback: {on: " + twenty + "}\n", want: &deploy.RollbackOverride{On: strings.Split(stepList(20), ",")}},
		{name: "empty mapping", doc: minimal + "rollback: {}\n",
			errs: []string{"rollback: must give enabled, on or both: leave rollback out to keep the environment's policy"}},
		{name: "null values are absent", doc: minimal + "rollback: {enabled: ~, on: ~}\n",
			errs: []string{"rollback: must give enabled, on or both: leave rollback out to keep the environment's policy"}},
		{name: "a boolean instead of a mapping", doc: minimal + "rollback: true\n", errs: []string{"rollback: must be a mapping"}},
		{name: "enabled is not a boolean", doc: minimal + "rollback: {enabled: \"true\"}\n", errs: []string{"rollback.enabled: must be true or false"}},
		{name: "YAML 1.1 booleans are not booleans", doc: minimal + "rollback: {enabled: yes, on: [deploy]}\n",
			errs: []string{"rollback.enabled: must be true or false"}},
		{name: "on is not a list", doc: minimal + "rollback: {on: deploy}\n", errs: []string{"rollback.on: must be a list"}},
		{name: "empty on", doc: minimal + "rollback: {enabled: true, on: []}\n",
			errs: []string{"rollback.on: must list at least one step: leave on out, or set enabled: false to turn rollback off"}},
		{name: "21 steps", doc: minimal + "rollback: {on: [" + stepList(21) + "]}\n", errs: []string{"rollback.on: at most 20 steps are allowed, found 21"}},
		{name: "bad, repeated and mistyped entries", doc: minimal + "rollback: {on: [deploy, Deploy, deploy, {a: b}, '', post-test, deploy]}\n",
			errs: []string{
				"rollback.on[3]: must be a string",
				"rollback.on[1]: step name must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter",
				"rollback.on[2]: deploy is already listed (on[0])",
				"rollback.on[4]: step name must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter",
				"rollback.on[6]: deploy is already listed (on[0])",
			}},
		{name: "unknown keys", doc: minimal + "rollback: {enable: true, On: [deploy], steps: [deploy]}\n",
			errs: []string{
				"rollback.enable: unknown field (did you mean enabled?)",
				"rollback.On: unknown field (did you mean on?)",
				"rollback.steps: unknown field",
				"rollback: must give enabled, on or both: leave rollback out to keep the environment's policy",
			}},
		{name: "the environment configuration's key style", doc: minimal + "rollback_on: [deploy]\n",
			errs: []string{"rollback_on: unknown field"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := descriptor.Parse([]byte(tt.doc))
			if tt.errs != nil {
				if got := fieldsOf(t, err); !reflect.DeepEqual(got, tt.errs) {
					t.Errorf("errors:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.errs, "\n  "))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.Rollback, tt.want) {
				t.Errorf("Rollback = %s, want %s", override(d.Rollback), override(tt.want))
			}
		})
	}
}

func TestRollbackJSON(t *testing.T) {
	doc := `{"apiVersion": "manent/v1", "application": "hello", "environment": "staging",
		"artifact": {"type": "application", "name": "hello", "version": "1.0.0", "source": "file:a.tgz"},
		"rollback": {"enabled": false, "on": ["deploy"]}}`
	d, err := descriptor.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if r := d.Rollback; r == nil || r.Enabled == nil || *r.Enabled || !reflect.DeepEqual(r.On, []string{"deploy"}) {
		t.Errorf("Rollback = %s", override(r))
	}
}

// A deploy of a release may change its rollback policy like any deploy;
// its problems are reported below the member's descriptor.
func TestRollbackInRelease(t *testing.T) {
	release := func(rollback string) string {
		return "apiVersion: manent/v1\nkind: Release\nid: r\ndeploys:\n  - name: api\n    descriptor:\n" +
			"      apiVersion: manent/v1\n      application: api\n      environment: prod\n" +
			"      artifact: {type: application, name: api, version: 1.0.0, source: file:a.tgz}\n" +
			"      rollback: " + rollback + "\n"
	}
	r, err := descriptor.ParseRelease([]byte(release("{enabled: true, on: [activation]}")))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := descriptor.ValidateReleaseMembers(r)
	if err != nil {
		t.Fatal(err)
	}
	resolved, err := descriptor.ResolveReleaseMembers(r, ds)
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	if want := (&deploy.RollbackOverride{Enabled: &yes, On: []string{"activation"}}); !reflect.DeepEqual(resolved[0].Rollback, want) {
		t.Errorf("Rollback = %s, want %s", override(resolved[0].Rollback), override(want))
	}

	r, err = descriptor.ParseRelease([]byte(release("{on: [Activation]}")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = descriptor.ValidateReleaseMembers(r)
	want := "invalid release: deploys[0].descriptor.rollback.on[0]: step name must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// stepList is n distinct step names, comma-separated.
func stepList(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = "s" + strings.Repeat("x", i)
	}
	return strings.Join(names, ",")
}

func override(o *deploy.RollbackOverride) string {
	if o == nil {
		return "nil"
	}
	enabled := "nil"
	if o.Enabled != nil {
		enabled = map[bool]string{true: "true", false: "false"}[*o.Enabled]
	}
	return "{Enabled: " + enabled + ", On: " + strings.Join(o.On, ",") + "}"
}
