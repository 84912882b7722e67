package descriptor_test

import (
	"errors"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

// FuzzParse checks that Parse never panics and always answers with either a
// descriptor or an EINVALID error listing at least one problem.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		minimal,
		minimal + "deploy: {targets: [{host: a, port: 22}, {path: /b}], params: {a: b}}\nsteps: {qa: true}\n",
		`{"apiVersion":"manent/v1","application":"a","environment":"b","artifact":{"type":"t","name":"n","version":"1","source":"file:x"}}`,
		"a: &a [*a]\n",
		"kind: Release\n",
		"---\n---\n",
		"labels: {<<: {a: b}}\n",
		"deploy: {targets: [[[[]]]]}\n",
		"\xff\xfe",
		"",
		consumer + "afterTimeout: 7d\nschedule: {at: 2026-10-12T12:00:00Z}\n",
		minimal + "schedule: {cron: '*/5 * * * 1-5', timezone: Europe/Paris}\n",
		minimal + "schedule: {cron: '0 0 30 2 *', timezone: ../x}\n",
		minimal + "dryRun: true\nafter: [a, a]\nafterTimeout: 99999999999999d\n",
		minimal + "exports: {vms: {from: deploy.vms, format: targets, pattern: '(a'}, h: {from: x}}\n",
		minimal + "imports: {me: {current: {application: hello}}, x: {deployment: y, current: {}}}\n",
		minimal + "deploy: {targets: [{path: /a}], targetsFrom: [{import: a}], paramsFrom: {p: ~}}\n",
		minimal + "rollback: {enabled: true, on: [deploy, activation]}\n",
		minimal + "rollback: {enabled: yes, on: [Deploy, deploy, deploy, [x], ~]}\n",
		minimal + "rollback: {on: []}\nx: &r {}\n",
		minimal + "rollback: &r {on: *r}\n",
		`{"apiVersion":"manent/v1","application":"a","environment":"b","artifact":{"type":"t","name":"n","version":"1","source":"file:x"},"rollback":{"enabled":false,"on":null}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := descriptor.Parse(data)
		if err == nil {
			if d == nil || d.APIVersion != descriptor.APIVersion || d.Kind != descriptor.KindDeployment {
				t.Fatalf("accepted without a valid descriptor: %+v", d)
			}
			return
		}
		var e *deploy.Error
		if !errors.As(err, &e) || e.Code != deploy.EINVALID || len(e.Fields) == 0 {
			t.Fatalf("error %v is not an EINVALID with fields", err)
		}
	})
}

// FuzzParseRelease checks that ParseRelease never panics, that an accepted
// release always has a topological order, and that checking its members
// never panics either.
func FuzzParseRelease(f *testing.F) {
	for _, seed := range []string{
		shop,
		"apiVersion: manent/v1\nkind: Release\nid: r\ndeploys: [{name: a, file: a, after: [b]}, {name: b, file: b, after: [a]}]\n",
		"apiVersion: manent/v1\nkind: Release\nid: r\ndeploys: [{name: a, descriptor: {apiVersion: manent/v1}}]\n",
		"apiVersion: manent/v1\nkind: Release\nid: r\ndeploys: [{name: a, descriptor: {x: *y}}]\ny: &y 1\n",
		`{"apiVersion":"manent/v1","kind":"Release","id":"r","deploys":[{"name":"a","descriptor":"kind: Release"}]}`,
		"kind: Release\ndeploys: [[], {after: {}}]\n",
		"apiVersion: manent/v1\nkind: Release\nid: r\ndeploys: [{name: a, descriptor: {apiVersion: manent/v1, application: a, environment: b, " +
			"artifact: {type: t, name: n, version: '1', source: 'file:x'}, rollback: {enabled: true, on: [deploy, deploy]}}}]\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := descriptor.ParseRelease(data)
		if err != nil {
			var e *deploy.Error
			if !errors.As(err, &e) || e.Code != deploy.EINVALID || len(e.Fields) == 0 {
				t.Fatalf("error %v is not an EINVALID with fields", err)
			}
			return
		}
		if r.Kind != descriptor.KindRelease || r.ID == "" || len(r.Deploys) == 0 {
			t.Fatalf("accepted without a valid release: %+v", r)
		}
		order, err := descriptor.TopoOrder(r)
		if err != nil || len(order) != len(r.Deploys) {
			t.Fatalf("accepted release has no order: %v %v", order, err)
		}
		if ds, err := descriptor.ValidateReleaseMembers(r); err == nil {
			if _, err := descriptor.ResolveReleaseMembers(r, ds); err != nil {
				t.Fatal(err)
			}
		}
	})
}
