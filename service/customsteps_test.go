package service_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/plugins/local"
	"manent.dev/manent/internal/authz"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/internal/specsig"
	"manent.dev/manent/service"
)

// customYAML is a pipeline with the specification's two custom steps; a
// descriptor may set db-migrate's database.
const customYAML = `server: {default_tenant: demo}
artifacts: {sources: ["file:"], file_root: artifacts}
pipeline:
  steps:
    - {name: secrets, mode: mandatory}
    - {name: artifacts, mode: mandatory}
    - name: db-migrate
      mode: optional
      enabled: false
      type: command
      max_retries: 0
      secrets: [db-admin]
      ssh: {user: migrator, key_secret: ssh-migrate}
      params:
        database: {pattern: "[a-z][a-z0-9_]{0,62}", required: true}
        lock_timeout: {pattern: "[0-9]{1,4}s", default: "30s"}
      run:
        run_once: true
        command: ["/opt/tools/migrate", "up", "--to", "{{ .Version }}", "--db", "{{ .Params.database }}"]
    - {name: deploy, mode: mandatory}
    - name: cdn-purge
      mode: optional
      type: http
      secrets: [cdn-token]
      params:
        zone: {pattern: "[a-f0-9]{32}", required: true}
      run:
        url: "https://api.cdn.example.com/zones/{{ .Params.zone }}/purge"
        auth: {type: bearer, secret: cdn-token}
        json: {tags: ["{{ .Application }}"], ttl: 1.50, batch: 1e3, id: 123456789012}
  descriptor_policy:
    step_params:
      db-migrate: [database]
`

const zone = "0f3a9c1e5b7d42a8a1c3e5f7091b2d4c"

type customService struct {
	svc   *service.Service
	store *postgres.Store
	db    *postgres.DB
	eng   *enqueued
	dir   string
}

// newCustomService is a service on a new database with the pipeline of
// customYAML, sealing plans with specs.
func newCustomService(t *testing.T, envYAML string, specs *specsig.Keyring) *customService {
	t.Helper()
	dir := t.TempDir()
	env := filepath.Join(dir, "envconfig/demo/shop/prod.yml")
	if err := os.MkdirAll(filepath.Dir(env), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(env, []byte("plugin: local\ntargets: [{path: targets/prod}]\n"+envYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte(customYAML), dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(t.Context(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := postgres.Migrate(t.Context(), db); err != nil {
		t.Fatal(err)
	}
	store := postgres.NewStore(db)
	az, err := authz.New("", "p, token:ci, demo, shop/*, deployment.submit\np, token:ci, demo, shop/*, deployment.read\n")
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.New(service.Options{Config: cfg, Store: store, Authorizer: az, Plugins: []deploy.Plugin{local.New(dir)}, Specs: specs})
	if err != nil {
		t.Fatal(err)
	}
	eng := &enqueued{}
	svc.Use(eng)
	return &customService{svc: svc, store: store, db: db, eng: eng, dir: dir}
}

const envSecrets = `secrets:
  - {name: db-admin, ref: env:MANENT_SECRET_DB}
  - {name: ssh-migrate, ref: env:MANENT_SECRET_SSH}
  - {name: cdn-token, ref: env:MANENT_SECRET_CDN}
`

func shopDescriptor(id, extra string) []byte {
	return []byte("apiVersion: manent/v1\nid: " + id + "\napplication: shop\nenvironment: prod\n" +
		"artifact: {type: application, name: shop, version: 1.5.0, source: \"file:shop.tgz\"}\n" + extra)
}

func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var e *deploy.Error
	if !errors.As(err, &e) || e.Code != deploy.EUNPROCESSABLE {
		t.Fatalf("err = %v, want EUNPROCESSABLE", err)
	}
	out := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		out[i] = f.String()
	}
	return out
}

// TestSubmitChecksStepParams: a value that does not match, an undeclared
// parameter and a missing required one refuse the deploy at submission,
// every one with its path, and nothing is stored or enqueued.
func TestSubmitChecksStepParams(t *testing.T) {
	tests := []struct {
		name string
		env  string // step_params of the environment configuration
		desc string // more of the descriptor
		want []string
	}{
		{
			name: "a step on with its required parameter missing, the other's given by no one",
			env:  envSecrets,
			desc: "steps: {db-migrate: true}\n",
			want: []string{
				"step_params.db-migrate.database: is required by step db-migrate",
				"step_params.cdn-purge.zone: is required by step cdn-purge",
			},
		},
		{
			name: "the environment configuration's values are checked when it is read",
			env:  envSecrets + "step_params:\n  cdn-purge: {zone: not-hex, region: eu}\n  deploy: {mode: fast}\n",
			want: []string{
				"step_params.cdn-purge.region: undeclared parameter: step cdn-purge declares zone",
				"step_params.cdn-purge.zone: does not match the pattern step cdn-purge declares for it",
				"step_params.deploy: deploy is a standard step: only custom steps declare parameters",
			},
		},
		{
			name: "the descriptor's value is held to the pattern, and to the policy",
			env:  envSecrets + "step_params:\n  cdn-purge: {zone: " + zone + "}\n",
			desc: "steps: {db-migrate: true}\nstepParams:\n  db-migrate: {database: Shop-DB}\n",
			want: []string{"stepParams.db-migrate.database: does not match the pattern step db-migrate declares for it"},
		},
		{
			name: "forbidden by the policy",
			env:  envSecrets + "step_params:\n  cdn-purge: {zone: " + zone + "}\n",
			desc: "stepParams:\n  cdn-purge: {zone: " + zone + "}\n",
			want: []string{"stepParams.cdn-purge.zone: forbidden parameter: the descriptor policy does not let descriptors set it"},
		},
		{
			name: "the secrets a step names must be the environment's",
			env:  "step_params:\n  cdn-purge: {zone: " + zone + "}\n",
			want: []string{"secrets: step cdn-purge needs secret cdn-token, which the environment configuration does not declare"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCustomService(t, tt.env, nil)
			ctx := deploy.WithIdentity(t.Context(), deploy.Identity{Subject: "token:ci"})
			_, err := c.svc.Submit(ctx, shopDescriptor("shop-1", tt.desc), deploy.SubmitOptions{})
			if got := fieldsOf(t, err); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
			if strings.Contains(err.Error(), "Shop-DB") || strings.Contains(err.Error(), "not-hex") {
				t.Errorf("a value is in the error: %v", err)
			}
			if _, err := c.store.Get(ctx, "shop-1"); deploy.ErrorCode(err) != deploy.ENOTFOUND {
				t.Errorf("stored: %v", err)
			}
			if ids := c.eng.ids(); len(ids) != 0 {
				t.Errorf("enqueued %v", ids)
			}
		})
	}
}

// TestSubmitSealsTheSpecifications: the stored plan holds each custom
// step's specification with its hash and signature, the effective deploy
// the resolved parameters; read back from PostgreSQL, the plan verifies
// (its numbers unchanged), with the key that signed it and while that key
// is listed after a new one; once it is removed, or once the stored plan
// is altered, it does not.
func TestSubmitSealsTheSpecifications(t *testing.T) {
	oldKey, newKey := []byte(strings.Repeat("o", 32)), []byte(strings.Repeat("n", 32))
	ring := func(keys ...[]byte) *specsig.Keyring {
		k, err := specsig.New(keys, nil)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	c := newCustomService(t, envSecrets+"step_params:\n  cdn-purge: {zone: "+zone+"}\n", ring(oldKey))
	ctx := deploy.WithIdentity(t.Context(), deploy.Identity{Subject: "token:ci"})
	sub, err := c.svc.Submit(ctx, shopDescriptor("shop-1", "steps: {db-migrate: true}\nstepParams:\n  db-migrate: {database: shop}\n"), deploy.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.store.Get(ctx, sub.Deployment.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{"db-migrate": {"database": "shop", "lock_timeout": "30s"}, "cdn-purge": {"zone": zone}}
	if !reflect.DeepEqual(d.Effective.StepParams, want) {
		t.Errorf("step params = %v, want %v", d.Effective.StepParams, want)
	}
	var custom []deploy.PlannedStep
	for _, s := range d.Plan.Steps {
		if s.Spec != nil {
			custom = append(custom, s)
		}
	}
	if len(custom) != 2 || custom[0].Name != "db-migrate" || custom[1].Name != "cdn-purge" {
		t.Fatalf("custom steps of the stored plan: %+v", custom)
	}
	for _, s := range custom {
		recomputed, err := specsig.Hash(s.Spec)
		if err != nil || recomputed != s.SpecHash || len(s.Signature) != 64 {
			t.Errorf("%s: recorded %s, recomputed %s (%v), signature %q", s.Name, s.SpecHash, recomputed, err, s.Signature)
		}
		if err := ring(oldKey).Verify(s); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
		if err := ring(newKey, oldKey).Verify(s); err != nil {
			t.Errorf("%s, keys rotated: %v", s.Name, err)
		}
		if err := ring(newKey).Verify(s); !errors.Is(err, specsig.ErrBadSignature) {
			t.Errorf("%s, old key removed: %v", s.Name, err)
		}
	}
	if body := custom[1].Spec.Run.JSON.(map[string]any); body["ttl"] != 1.5 || body["batch"] != 1000.0 || body["id"] != 123456789012.0 {
		t.Errorf("body = %v", body)
	}
	// The submission's audit entry names the hashes.
	var details string
	if err := c.db.SQL().QueryRowContext(ctx, `SELECT details->>'spec_hashes' FROM manent.audit
		WHERE action = 'deployment.submit' AND target = 'shop-1'`).Scan(&details); err != nil {
		t.Fatal(err)
	}
	var audited map[string]string
	if err := json.Unmarshal([]byte(details), &audited); err != nil || audited["db-migrate"] != custom[0].SpecHash ||
		audited["cdn-purge"] != custom[1].SpecHash || len(audited) != 2 {
		t.Errorf("audited spec_hashes = %s (%v)", details, err)
	}
	// The validation's plan is the one a submission stores.
	v, err := c.svc.Submit(ctx, shopDescriptor("shop-2", "steps: {db-migrate: true}\nstepParams:\n  db-migrate: {database: shop}\n"), deploy.SubmitOptions{ValidateOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := customStepHashes(v.Deployment.Plan); !reflect.DeepEqual(got, []string{custom[0].SpecHash, custom[1].SpecHash}) {
		t.Errorf("validate's hashes %v", got)
	}

	// Whoever can write to the database changes the command.
	if _, err := c.db.SQL().ExecContext(ctx, `UPDATE manent.deployments
		SET plan = jsonb_set(plan, '{steps,3,spec,run,command,0}', '"/bin/sh"') WHERE id = $1`, "shop-1"); err != nil {
		t.Fatal(err)
	}
	altered, err := c.store.Get(ctx, "shop-1")
	if err != nil {
		t.Fatal(err)
	}
	s := altered.Plan.Steps[3]
	if s.Name != "db-migrate" || s.Spec.Run.Command[0] != "/bin/sh" {
		t.Fatalf("the test altered %s: %v", s.Name, s.Spec.Run.Command)
	}
	if err := ring(oldKey).Verify(s); !errors.Is(err, specsig.ErrTampered) || !deploy.IsPermanent(err) {
		t.Errorf("altered plan: %v", err)
	}
	if strings.Contains(ring(oldKey).Verify(s).Error(), "/bin/sh") {
		t.Error("the refusal shows the command")
	}
}

func customStepHashes(p deploy.Plan) []string {
	var out []string
	for _, s := range p.Steps {
		if s.SpecHash != "" {
			out = append(out, s.SpecHash)
		}
	}
	return out
}
