package chains

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
)

// fakeSource is the store as Resolve sees it.
type fakeSource struct {
	deploys   map[string]Producer
	inService []Producer
	err       error
}

func (f fakeSource) Deployment(_ context.Context, id string) (Producer, error) {
	if f.err != nil {
		return Producer{}, f.err
	}
	p, ok := f.deploys[id]
	if !ok {
		return Producer{}, deploy.Errorf(deploy.ENOTFOUND, "deploy %s not found", id)
	}
	return p, nil
}

func (f fakeSource) InService(_ context.Context, tenant, app, env string) ([]Producer, error) {
	if f.err != nil {
		return nil, f.err
	}
	var out []Producer
	for _, p := range f.inService {
		if (tenant == "" || p.Tenant == tenant) && p.Application == app && p.Environment == env {
			out = append(out, p)
		}
	}
	return out, nil
}

var (
	vms    = deploy.Export{Name: "vms", Format: "targets", Value: `[{"host":"10.20.0.1"},{"host":"10.20.0.2","port":22}]`}
	dbHost = deploy.Export{Name: "db_host", Format: "string", Value: "db.internal"}
	infra  = Producer{ID: "infra-42", Tenant: "shop", Application: "infra-web", Environment: "prod", State: deploy.StateSuccess,
		Artifact: deploy.Artifact{Name: "infra-web", Version: "3.1.0"}, Exports: []deploy.Export{vms, dbHost}}
)

func with(p Producer, f func(*Producer)) Producer {
	f(&p)
	return p
}

// consumer is os-config.yml of the spec.
func consumer(f func(*deploy.Descriptor)) *deploy.Descriptor {
	d := &deploy.Descriptor{
		Tenant: "shop", Application: "os-config", Environment: "prod",
		After:   []string{"infra-42"},
		Imports: map[string]deploy.Import{"infra": {Deployment: "infra-42"}},
		Deploy: deploy.DeploySection{
			TargetsFrom: []deploy.ImportRef{{Import: "infra", Export: "vms"}},
			ParamsFrom:  map[string]deploy.ImportRef{"db_host": {Import: "infra", Export: "db_host"}},
		},
	}
	if f != nil {
		f(d)
	}
	return d
}

func current(app string, f func(*deploy.CurrentImport)) func(*deploy.Descriptor) {
	return func(d *deploy.Descriptor) {
		c := &deploy.CurrentImport{Application: app}
		if f != nil {
			f(c)
		}
		d.After = nil
		d.Imports = map[string]deploy.Import{"infra": {Current: c}}
	}
}

func TestResolve(t *testing.T) {
	inService := fakeSource{inService: []Producer{infra}}
	twoTargets := []deploy.Target{{Host: "10.20.0.1"}, {Host: "10.20.0.2", Port: 22}}
	tests := []struct {
		name string
		d    *deploy.Descriptor
		src  fakeSource
		// want is the result on success.
		want *Resolved
		// wantErr lists the paths of the problems of an EUNPROCESSABLE error.
		wantErr []string
		// notReady expects an ErrNotReady.
		notReady bool
		// code expects an error of another kind: EINTERNAL for a temporary one.
		code deploy.Code
	}{
		{name: "deployment import", d: consumer(nil),
			src: fakeSource{deploys: map[string]Producer{"infra-42": infra}},
			want: &Resolved{Targets: twoTargets, Params: map[string]string{"db_host": "db.internal"},
				Sources: map[string]string{"import.infra": "infra-42@3.1.0"},
				Origins: map[string]Origin{"infra": {DeploymentID: "infra-42", Tenant: "shop", Application: "infra-web", Environment: "prod", Version: "3.1.0"}}}},
		{name: "producer still running", d: consumer(nil),
			src:      fakeSource{deploys: map[string]Producer{"infra-42": with(infra, func(p *Producer) { p.State = deploy.StatePending; p.Exports = nil })}},
			notReady: true},
		{name: "producer waiting", d: consumer(nil),
			src:      fakeSource{deploys: map[string]Producer{"infra-42": with(infra, func(p *Producer) { p.State = deploy.StateWaitingDependency; p.Exports = nil })}},
			notReady: true},
		{name: "a refusal wins over a producer not ready",
			d: consumer(func(d *deploy.Descriptor) {
				d.After = append(d.After, "other")
				d.Imports["other"] = deploy.Import{Deployment: "other"}
				d.Deploy.ParamsFrom["x"] = deploy.ImportRef{Import: "other", Export: "x"}
			}),
			src: fakeSource{deploys: map[string]Producer{
				"infra-42": with(infra, func(p *Producer) { p.State = deploy.StatePending }),
				"other":    with(infra, func(p *Producer) { p.ID = "other"; p.State = deploy.StateError }),
			}},
			wantErr: []string{"imports.other"}},
		{name: "producer failed", d: consumer(nil),
			src:     fakeSource{deploys: map[string]Producer{"infra-42": with(infra, func(p *Producer) { p.State = deploy.StateError })}},
			wantErr: []string{"imports.infra"}},
		{name: "producer is a dry-run", d: consumer(nil),
			src:     fakeSource{deploys: map[string]Producer{"infra-42": with(infra, func(p *Producer) { p.DryRun = true })}},
			wantErr: []string{"imports.infra"}},
		{name: "producer not found", d: consumer(nil), src: fakeSource{},
			wantErr: []string{"imports.infra"}},
		{name: "deployment not in after", d: consumer(func(d *deploy.Descriptor) { d.After = nil }),
			src:     fakeSource{deploys: map[string]Producer{"infra-42": infra}},
			wantErr: []string{"imports.infra.deployment"}},
		{name: "missing export", d: consumer(nil),
			src:     fakeSource{deploys: map[string]Producer{"infra-42": with(infra, func(p *Producer) { p.Exports = []deploy.Export{vms} })}},
			wantErr: []string{"deploy.paramsFrom.db_host.export"}},
		{name: "a string export cannot give targets",
			d:       consumer(func(d *deploy.Descriptor) { d.Deploy.TargetsFrom[0].Export = "db_host" }),
			src:     fakeSource{deploys: map[string]Producer{"infra-42": infra}},
			wantErr: []string{"deploy.targetsFrom[0].export"}},
		{name: "a targets export cannot give a param",
			d: consumer(func(d *deploy.Descriptor) {
				d.Deploy.ParamsFrom["db_host"] = deploy.ImportRef{Import: "infra", Export: "vms"}
			}),
			src:     fakeSource{deploys: map[string]Producer{"infra-42": infra}},
			wantErr: []string{"deploy.paramsFrom.db_host.export"}},
		{name: "undeclared import",
			d:       consumer(func(d *deploy.Descriptor) { d.Deploy.TargetsFrom[0].Import = "infar" }),
			src:     fakeSource{deploys: map[string]Producer{"infra-42": infra}},
			wantErr: []string{"deploy.targetsFrom[0].import"}},
		{name: "unused import",
			d: consumer(func(d *deploy.Descriptor) {
				d.Imports["spare"] = deploy.Import{Deployment: "infra-42"}
			}),
			src:     fakeSource{deploys: map[string]Producer{"infra-42": infra}},
			wantErr: []string{"imports.spare"}},
		{name: "param also in params",
			d:       consumer(func(d *deploy.Descriptor) { d.Deploy.Params = map[string]string{"db_host": "x"} }),
			src:     fakeSource{deploys: map[string]Producer{"infra-42": infra}},
			wantErr: []string{"deploy.paramsFrom.db_host"}},
		{name: "neither deployment nor current",
			d:       consumer(func(d *deploy.Descriptor) { d.Imports["infra"] = deploy.Import{} }),
			wantErr: []string{"imports.infra"}},
		{name: "both deployment and current",
			d: consumer(func(d *deploy.Descriptor) {
				d.Imports["infra"] = deploy.Import{Deployment: "infra-42", Current: &deploy.CurrentImport{Application: "infra-web"}}
			}),
			wantErr: []string{"imports.infra"}},
		{name: "more than 10 imports",
			d: consumer(func(d *deploy.Descriptor) {
				for i := 0; i < deploy.MaxImports; i++ {
					name := fmt.Sprint("i", i)
					d.Imports[name] = deploy.Import{Deployment: "infra-42"}
					d.Deploy.ParamsFrom["p"+name] = deploy.ImportRef{Import: name, Export: "db_host"}
				}
			}),
			src:     fakeSource{deploys: map[string]Producer{"infra-42": infra}},
			wantErr: []string{"imports"}},
		{name: "targets concatenated in order",
			d: consumer(func(d *deploy.Descriptor) {
				d.After = append(d.After, "infra-43")
				d.Imports["more"] = deploy.Import{Deployment: "infra-43"}
				d.Deploy.TargetsFrom = append(d.Deploy.TargetsFrom, deploy.ImportRef{Import: "more", Export: "vms"})
				d.Deploy.ParamsFrom = nil
			}),
			src: fakeSource{deploys: map[string]Producer{"infra-42": infra, "infra-43": with(infra, func(p *Producer) {
				p.ID = "infra-43"
				p.Exports = []deploy.Export{{Name: "vms", Format: "targets", Value: `[{"host":"10.20.9.9"}]`}}
			})}},
			want: &Resolved{Targets: append(twoTargets, deploy.Target{Host: "10.20.9.9"}),
				Sources: map[string]string{"import.infra": "infra-42@3.1.0", "import.more": "infra-43@3.1.0"}}},
		{name: "more than 500 targets in all",
			d: consumer(func(d *deploy.Descriptor) {
				d.Deploy.Targets = make([]deploy.Target, 499)
				d.Deploy.ParamsFrom = nil
			}),
			src:     fakeSource{deploys: map[string]Producer{"infra-42": infra}},
			wantErr: []string{"deploy.targetsFrom"}},
		{name: "a stored value is checked again",
			d: consumer(func(d *deploy.Descriptor) { d.Deploy.ParamsFrom = nil }),
			src: fakeSource{deploys: map[string]Producer{"infra-42": with(infra, func(p *Producer) {
				p.Exports = []deploy.Export{{Name: "vms", Format: "targets", Value: `["-oProxyCommand=x"]`}}
			})}},
			wantErr: []string{"deploy.targetsFrom[0]"}},
		{name: "temporary store error", d: consumer(nil), src: fakeSource{err: errors.New("connection reset")},
			code: deploy.EINTERNAL},
		{name: "forbidden producer", d: consumer(nil), src: fakeSource{err: deploy.Errorf(deploy.EFORBIDDEN, "forbidden")},
			code: deploy.EFORBIDDEN},

		{name: "current, same tenant and environment by default", d: consumer(current("infra-web", nil)), src: inService,
			want: &Resolved{Targets: twoTargets, Params: map[string]string{"db_host": "db.internal"},
				Sources: map[string]string{"import.infra": "infra-42@3.1.0"}}},
		{name: "current, no release in service", d: consumer(current("infra-web", nil)), src: fakeSource{},
			wantErr: []string{"imports.infra"}},
		{name: "current, another environment",
			d:       consumer(current("infra-web", func(c *deploy.CurrentImport) { c.Environment = "staging" })),
			src:     inService,
			wantErr: []string{"imports.infra"}},
		{name: "current, environment given",
			d:   consumer(current("infra-web", func(c *deploy.CurrentImport) { c.Environment = "staging" })),
			src: fakeSource{inService: []Producer{with(infra, func(p *Producer) { p.ID = "infra-41"; p.Environment = "staging" })}},
			want: &Resolved{Targets: twoTargets, Params: map[string]string{"db_host": "db.internal"},
				Sources: map[string]string{"import.infra": "infra-41@3.1.0"}}},
		{name: "current, several artifacts",
			d: consumer(current("infra-web", nil)),
			src: fakeSource{inService: []Producer{infra, with(infra, func(p *Producer) {
				p.ID = "infra-dns-3"
				p.Artifact.Name = "infra-dns"
			})}},
			wantErr: []string{"imports.infra.current.artifact"}},
		{name: "current, artifact picks one",
			d: consumer(current("infra-web", func(c *deploy.CurrentImport) { c.Artifact = "infra-dns" })),
			src: fakeSource{inService: []Producer{infra, with(infra, func(p *Producer) {
				p.ID = "infra-dns-3"
				p.Artifact = deploy.Artifact{Name: "infra-dns", Version: "1.0.0"}
			})}},
			want: &Resolved{Targets: twoTargets, Params: map[string]string{"db_host": "db.internal"},
				Sources: map[string]string{"import.infra": "infra-dns-3@1.0.0"}}},
		{name: "current, own tenant preferred",
			d:   consumer(current("infra-web", nil)),
			src: fakeSource{inService: []Producer{with(infra, func(p *Producer) { p.ID = "other-1"; p.Tenant = "other" }), infra}},
			want: &Resolved{Targets: twoTargets, Params: map[string]string{"db_host": "db.internal"},
				Sources: map[string]string{"import.infra": "infra-42@3.1.0"}}},
		{name: "current, several other tenants",
			d: consumer(current("infra-web", nil)),
			src: fakeSource{inService: []Producer{
				with(infra, func(p *Producer) { p.Tenant = "a" }), with(infra, func(p *Producer) { p.Tenant = "b" })}},
			wantErr: []string{"imports.infra.current.tenant"}},
		{name: "current, another tenant: private exports unreadable",
			d:       consumer(current("infra-web", nil)),
			src:     fakeSource{inService: []Producer{with(infra, func(p *Producer) { p.Tenant = "platform" })}},
			wantErr: []string{"deploy.targetsFrom[0].export", "deploy.paramsFrom.db_host.export"}},
		{name: "current, another tenant: public exports readable",
			d: consumer(current("infra-web", func(c *deploy.CurrentImport) { c.Tenant = "platform" })),
			src: fakeSource{inService: []Producer{with(infra, func(p *Producer) {
				p.Tenant = "platform"
				p.Exports = []deploy.Export{with2(vms, true), with2(dbHost, true)}
			})}},
			want: &Resolved{Targets: twoTargets, Params: map[string]string{"db_host": "db.internal"},
				Sources: map[string]string{"import.infra": "infra-42@3.1.0"}}},
		{name: "current, another tenant: only the public one",
			d: consumer(current("infra-web", func(c *deploy.CurrentImport) { c.Tenant = "platform" })),
			src: fakeSource{inService: []Producer{with(infra, func(p *Producer) {
				p.Tenant = "platform"
				p.Exports = []deploy.Export{with2(vms, true), dbHost}
			})}},
			wantErr: []string{"deploy.paramsFrom.db_host.export"}},
		{name: "current, explicit own tenant",
			d:   consumer(current("infra-web", func(c *deploy.CurrentImport) { c.Tenant = "shop" })),
			src: fakeSource{inService: []Producer{infra, with(infra, func(p *Producer) { p.Tenant = "platform" })}},
			want: &Resolved{Targets: twoTargets, Params: map[string]string{"db_host": "db.internal"},
				Sources: map[string]string{"import.infra": "infra-42@3.1.0"}}},
		{name: "current, own release in service",
			d: consumer(current("os-config", nil)),
			src: fakeSource{inService: []Producer{with(infra, func(p *Producer) {
				p.ID = "os-config-1"
				p.Application = "os-config"
			})}},
			wantErr: []string{"imports.infra"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(context.Background(), tt.d, tt.src)
			switch {
			case tt.want != nil:
				if err != nil {
					t.Fatalf("Resolve: %v", err)
				}
				if tt.want.Origins == nil {
					got.Origins = nil
				}
				if !reflect.DeepEqual(got, *tt.want) {
					t.Fatalf("got %+v\nwant %+v", got, *tt.want)
				}
			case tt.notReady:
				var de *deploy.Error
				if !errors.Is(err, ErrNotReady) || errors.As(err, &de) || deploy.IsPermanent(err) {
					t.Fatalf("got %v, want a temporary ErrNotReady", err)
				}
			case tt.code != "":
				if deploy.ErrorCode(err) != tt.code || errors.Is(err, ErrNotReady) {
					t.Fatalf("got %v (%s), want code %s", err, deploy.ErrorCode(err), tt.code)
				}
			default:
				assertProblems(t, err, tt.wantErr)
			}
		})
	}
}

func with2(e deploy.Export, public bool) deploy.Export {
	e.Public = public
	return e
}

func assertProblems(t *testing.T, err error, want []string) {
	t.Helper()
	var de *deploy.Error
	if !errors.As(err, &de) || de.Code != deploy.EUNPROCESSABLE || !de.Permanent || errors.Is(err, ErrNotReady) {
		t.Fatalf("got %v, want a permanent EUNPROCESSABLE *deploy.Error", err)
	}
	var paths []string
	for _, f := range de.Fields {
		paths = append(paths, f.Path)
	}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("problems at %q, want %q:\n%v", paths, want, err)
	}
}

func TestCheckImportsAtSubmit(t *testing.T) {
	tests := []struct {
		name    string
		d       *deploy.Descriptor
		src     fakeSource
		wantErr []string
	}{
		{name: "producer succeeded with the exports", d: consumer(nil),
			src: fakeSource{deploys: map[string]Producer{"infra-42": infra}}},
		{name: "producer succeeded without an export", d: consumer(nil),
			src:     fakeSource{deploys: map[string]Producer{"infra-42": with(infra, func(p *Producer) { p.Exports = []deploy.Export{vms} })}},
			wantErr: []string{"deploy.paramsFrom.db_host.export"}},
		{name: "producer not ended: left to the worker", d: consumer(nil),
			src: fakeSource{deploys: map[string]Producer{"infra-42": with(infra, func(p *Producer) { p.State = deploy.StateEnqueued; p.Exports = nil })}}},
		{name: "producer not ended, but a reference to nothing",
			d:       consumer(func(d *deploy.Descriptor) { d.Deploy.TargetsFrom[0].Import = "nope" }),
			src:     fakeSource{deploys: map[string]Producer{"infra-42": with(infra, func(p *Producer) { p.State = deploy.StatePending })}},
			wantErr: []string{"deploy.targetsFrom[0].import"}},
		{name: "environment without a release in service", d: consumer(current("infra-web", nil)), src: fakeSource{},
			wantErr: []string{"imports.infra"}},
		{name: "release in service", d: consumer(current("infra-web", nil)), src: fakeSource{inService: []Producer{infra}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckImportsAtSubmit(context.Background(), tt.d, tt.src)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("CheckImportsAtSubmit: %v", err)
				}
				return
			}
			assertProblems(t, err, tt.wantErr)
		})
	}
}

func TestApply(t *testing.T) {
	d := consumer(func(d *deploy.Descriptor) {
		d.Deploy.Targets = []deploy.Target{{Host: "own"}}
		d.Deploy.Params = map[string]string{"level": "1"}
	})
	r := Resolved{Targets: []deploy.Target{{Host: "10.20.0.1"}}, Params: map[string]string{"db_host": "db.internal"}}
	got := Apply(d, r)
	if want := []deploy.Target{{Host: "own"}, {Host: "10.20.0.1"}}; !reflect.DeepEqual(got.Deploy.Targets, want) {
		t.Fatalf("targets = %v, want %v", got.Deploy.Targets, want)
	}
	if want := map[string]string{"level": "1", "db_host": "db.internal"}; !reflect.DeepEqual(got.Deploy.Params, want) {
		t.Fatalf("params = %v, want %v", got.Deploy.Params, want)
	}
	if got.Deploy.TargetsFrom != nil || got.Deploy.ParamsFrom != nil {
		t.Fatalf("targetsFrom/paramsFrom kept: %+v", got.Deploy)
	}
	if len(d.Deploy.Targets) != 1 || len(d.Deploy.Params) != 1 || d.Deploy.TargetsFrom == nil {
		t.Fatalf("the descriptor was modified: %+v", d.Deploy)
	}

	empty := Apply(&deploy.Descriptor{}, Resolved{})
	if empty.Deploy.Targets != nil || empty.Deploy.Params != nil {
		t.Fatalf("Apply of nothing = %+v, want nothing added", empty.Deploy)
	}
	if onlyImported := Apply(&deploy.Descriptor{}, r); !reflect.DeepEqual(onlyImported.Deploy.Params, r.Params) {
		t.Fatalf("params = %v", onlyImported.Deploy.Params)
	}
}

func TestNotReadyNamesTheProducer(t *testing.T) {
	src := fakeSource{deploys: map[string]Producer{"infra-42": with(infra, func(p *Producer) { p.State = deploy.StateAwaitingApproval })}}
	_, err := Resolve(context.Background(), consumer(nil), src)
	if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "infra-42 is AWAITING_APPROVAL") {
		t.Fatalf("got %v", err)
	}
}
