package config_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

func rolloutErrors(err error) []string {
	var de *deploy.Error
	if !errors.As(err, &de) {
		return nil
	}
	out := make([]string, len(de.Fields))
	for i, f := range de.Fields {
		out[i] = f.String()
	}
	return out
}

func parseEnv(t *testing.T, doc string) (*config.EnvConfig, error) {
	t.Helper()
	c, err := config.Parse(nil, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return c.ParseEnvConfig([]byte("plugin: local\ntargets: [{path: /srv/a}]\n" + doc))
}

// issueRollout is the rollout of the issue that asked for rollouts.
const issueRollout = `rollout:
  rule:    {labels: {os: linux}}
  exclude: {labels: {maintenance: "true"}}
  waves:
    - {name: canary, select: {labels: {region: eu}}, count: 1, bake: 2m}
    - {name: eu, select: {labels: {region: eu}}, batch: 2, approval: true}
    - {name: rest, batch: "50%"}
  bake: 30s
  max_failures: 0
  gates:
    - {http: {url: "https://{{ .Target.Host }}/health", expect_status: 200}}
    - {prometheus: {url: "http://127.0.0.1:9090", query: "sum(rate(errors[5m]))", max: 0.01}}
  no_data: fail
  on_failure: abort
`

func TestEnvConfigRollout(t *testing.T) {
	env, err := parseEnv(t, issueRollout)
	if err != nil {
		t.Fatal(err)
	}
	two, max := 2*time.Minute, 0.01
	want := &deploy.RolloutSpec{
		Rule:    &deploy.Selector{Labels: map[string]string{"os": "linux"}},
		Exclude: &deploy.Selector{Labels: map[string]string{"maintenance": "true"}},
		Waves: []deploy.WaveSpec{
			{Name: "canary", Select: &deploy.Selector{Labels: map[string]string{"region": "eu"}}, Count: deploy.Amount{N: 1}, Bake: &two},
			{Name: "eu", Select: &deploy.Selector{Labels: map[string]string{"region": "eu"}}, Batch: deploy.Amount{N: 2}, Approval: true},
			{Name: "rest", Batch: deploy.Amount{N: 50, Percent: true}},
		},
		Bake: 30 * time.Second,
		Gates: []deploy.GateSpec{
			{Name: "http", HTTP: &deploy.HTTPGate{URL: "https://{{ .Target.Host }}/health", ExpectStatus: 200}},
			{Name: "prometheus", Prometheus: &deploy.PrometheusGate{URL: "http://127.0.0.1:9090", Query: "sum(rate(errors[5m]))", Max: &max}},
		},
		NoData: deploy.NoDataFail, OnFailure: deploy.RolloutAbort,
	}
	if !reflect.DeepEqual(env.Rollout, want) {
		t.Errorf("got  %+v\nwant %+v", env.Rollout, want)
	}
	noRollout, err := parseEnv(t, "")
	if err != nil || noRollout.Rollout != nil {
		t.Errorf("without rollout: %+v, %v", noRollout.Rollout, err)
	}
}

func TestEnvConfigRolloutErrors(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		errs []string
	}{
		{
			name: "unknown keys, with suggestions",
			doc:  "rollout:\n  wave: []\n  waves: [{name: a, batchs: 2}]\n  maxFailures: 1\n",
			errs: []string{
				"rollout.wave: unknown field (did you mean waves?)",
				"rollout.waves[0].batchs: unknown field (did you mean batch?)",
				"rollout.maxFailures: unknown field (did you mean max_failures?)",
			},
		},
		{
			name: "waves and percentages together",
			doc:  "rollout: {waves: [{name: a}], percentages: [100]}\n",
			errs: []string{"rollout: give waves or percentages, not both"},
		},
		{
			name: "an empty waves list",
			doc:  "rollout: {waves: []}\n",
			errs: []string{"rollout.waves: must list at least one wave: leave waves out for a single pass"},
		},
		{
			name: "wave names: required, a name, once",
			doc:  "rollout:\n  waves: [{select: {labels: {a: b}}}, {name: Canary}, {name: eu, select: {labels: {r: eu}}}, {name: eu}]\n",
			errs: []string{
				"rollout.waves[0].name: is required",
				"rollout.waves[1].name: must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter or digit",
				"rollout.waves[3].name: eu is the name of waves[2]",
			},
		},
		{
			name: "amounts",
			doc: "rollout:\n  max_failures: -1\n  waves:\n" +
				"    - {name: a, select: {labels: {r: a}}, count: 0, batch: \"0%\"}\n" +
				"    - {name: b, select: {labels: {r: b}}, count: \"101%\", batch: 2.5}\n" +
				"    - {name: c, count: many, batch: \"50%\"}\n",
			errs: []string{
				"rollout.waves[0].count: must be at least 1",
				"rollout.waves[0].batch: must be a percentage from 1% to 100%",
				"rollout.waves[1].count: must be a percentage from 1% to 100%",
				"rollout.waves[1].batch: must be a count such as 2 or a percentage such as \"50%\"",
				"rollout.waves[2].count: must be a count such as 2 or a percentage such as \"50%\"",
				"rollout.max_failures: must be a count such as 2 or a percentage such as \"50%\"",
			},
		},
		{
			name: "percentages ascending, ending 100",
			doc:  "rollout: {percentages: [10, 10, 0, 90]}\n",
			errs: []string{
				"rollout.percentages[1]: must be more than the percentage before it (10): they are cumulative shares",
				"rollout.percentages[2]: must be from 1 to 100",
				"rollout.percentages[3]: the last percentage must be 100, or some targets would never be deployed",
			},
		},
		{
			name: "an empty percentages list",
			doc:  "rollout: {percentages: []}\n",
			errs: []string{"rollout.percentages: must list at least one percentage, the last 100: leave percentages out for a single pass"},
		},
		{
			name: "durations and their caps",
			doc:  "rollout:\n  bake: 25h\n  pause_timeout: 30s\n  defer_timeout: 8d\n  waves: [{name: a, bake: -1s}]\n",
			errs: []string{
				"rollout.defer_timeout: must be a duration such as 500ms, 30s, 10m or 1h",
				"rollout.waves[0].bake: must be between 0s and 24h",
				"rollout.bake: must be between 0s and 24h",
				"rollout.pause_timeout: must be between 1m and 168h (7 days)",
			},
		},
		{
			name: "enums",
			doc:  "rollout: {no_data: skip, on_failure: rollback}\n",
			errs: []string{"rollout.no_data: must be fail, pause or pass", "rollout.on_failure: must be abort or pause"},
		},
		{
			name: "selectors need labels",
			doc:  "rollout: {rule: {}, exclude: {labels: {\"Bad Key\": x}}}\n",
			errs: []string{
				"rollout.rule: must give labels: a selector without labels would match every target",
				"rollout.exclude.labels[\"Bad Key\"]: key must be 1 to 63 characters of a-z, 0-9, '.', '_', '/' and -, starting with a letter or digit",
			},
		},
		{
			name: "a wave after one that takes every target left",
			doc:  "rollout:\n  waves: [{name: canary, count: 1}, {name: rest}, {name: never, select: {labels: {r: eu}}}]\n",
			errs: []string{"rollout.waves[2]: can never have a target: rest (waves[1]) takes every target left; put the waves with select first"},
		},
		{
			name: "gates: one check each, URLs, placeholders only in http gates, bounds, names",
			doc: "rollout:\n  gates:\n" +
				"    - {}\n" +
				"    - {http: {url: \"https://h/\"}, prometheus: {url: \"http://p/\", query: up, min: 1}}\n" +
				"    - {http: {url: \"ftp://h/\", expect_status: 700, timeout: 6m}}\n" +
				"    - {http: {url: \"https://{{ .Target.Secret }}/\"}}\n" +
				"    - {prometheus: {url: \"http://{{ .Target.Host }}:9090\", query: \" \"}}\n" +
				"    - {prometheus: {url: \"http://p:9090\", query: up, min: 2, max: 1}}\n" +
				"    - {name: http, prometheus: {url: \"http://p:9090\", query: up, max: 1}}\n" +
				"    - {http: {url: \"https://u:pw@h/\"}}\n",
			errs: []string{
				"rollout.gates[0]: must give one check: http or prometheus",
				"rollout.gates[1]: must give one check, http or prometheus, not both: write two gates",
				"rollout.gates[2].http.url: must be an absolute http:// or https:// URL without credentials",
				"rollout.gates[2].http.expect_status: must be an HTTP status between 100 and 599",
				"rollout.gates[2].http.timeout: must be between 0s and 5m",
				"rollout.gates[3].http.url: template: unknown placeholder {{.Target.Secret}}: use one of {{ .Version }}, {{ .Application }}, {{ .Environment }}, {{ .Tenant }}, {{ .Target.Host }}, {{ .Target.Port }}, {{ .Target.User }}, {{ .Target.Path }}",
				"rollout.gates[4].prometheus.url: placeholders are allowed only in the URL of an http gate",
				"rollout.gates[4].prometheus.query: is required",
				"rollout.gates[4].prometheus: must give min, max or both: the bounds the value must stay within",
				"rollout.gates[5].prometheus.min: must not be more than max",
				"rollout.gates[6].name: http is the name of gates[1]: give each gate its own name",
				"rollout.gates[7].http.url: must be an absolute http:// or https:// URL without credentials",
			},
		},
		{
			name: "a wave after one that takes 100% of the targets left",
			doc:  "rollout:\n  waves: [{name: all, count: \"100%\"}, {name: never, select: {labels: {r: x}}}]\n",
			errs: []string{"rollout.waves[1]: can never have a target: all (waves[0]) takes every target left; put the waves with select first"},
		},
		{
			name: "gate hosts manent never calls: link-local and cloud metadata addresses",
			doc: "rollout:\n  gates:\n" +
				"    - {http: {url: \"http://169.254.169.254/latest/meta-data\"}}\n" +
				"    - {http: {url: \"http://[fd00:ec2::254]/{{ .Target.Path }}\"}}\n" +
				"    - {prometheus: {url: \"http://100.100.100.200:9090\", query: up, min: 1}}\n" +
				"    - {prometheus: {url: \"https://168.63.129.16/\", query: up, min: 1}}\n" +
				"    - {http: {url: \"http://192.0.0.192/\"}}\n" +
				"    - {http: {url: \"http://[::ffff:169.254.169.254]/\"}}\n" +
				"    - {http: {url: \"http://{{ .Target.Host }}/\"}}\n" +
				"    - {http: {url: \"http://10.0.0.1/\"}}\n",
			errs: []string{
				"rollout.gates[0].http.url: must not call 169.254.169.254: manent never calls link-local and cloud metadata addresses",
				"rollout.gates[1].http.url: must not call fd00:ec2::254: manent never calls link-local and cloud metadata addresses",
				"rollout.gates[2].prometheus.url: must not call 100.100.100.200: manent never calls link-local and cloud metadata addresses",
				"rollout.gates[3].prometheus.url: must not call 168.63.129.16: manent never calls link-local and cloud metadata addresses",
				"rollout.gates[4].http.url: must not call 192.0.0.192: manent never calls link-local and cloud metadata addresses",
				"rollout.gates[5].http.url: must not call ::ffff:169.254.169.254: manent never calls link-local and cloud metadata addresses",
			},
		},
		{
			name: "gate ports out of range, with or without placeholders",
			doc: "rollout:\n  gates:\n" +
				"    - {prometheus: {url: \"http://host:0/\", query: up, max: 1}}\n" +
				"    - {prometheus: {url: \"http://host:99999/\", query: up, max: 1}}\n" +
				"    - {http: {url: \"https://{{ .Target.Host }}:65536/health\"}}\n" +
				"    - {http: {url: \"https://[::1]:0/{{ .Target.Path }}\"}}\n" +
				"    - {http: {url: \"https://{{ .Target.Host }}:65535/health\"}}\n" +
				"    - {prometheus: {url: \"http://host:1/\", query: up, max: 1}}\n",
			errs: []string{
				"rollout.gates[0].prometheus.url: must have a port between 1 and 65535",
				"rollout.gates[1].prometheus.url: must have a port between 1 and 65535",
				"rollout.gates[2].http.url: must have a port between 1 and 65535",
				"rollout.gates[3].http.url: must have a port between 1 and 65535",
			},
		},
		{
			name: "an empty gates list, a query too long",
			doc:  "rollout:\n  gates: []\n",
			errs: []string{"rollout.gates: must list at least one gate: leave gates out for none"},
		},
		{
			name: "prometheus bounds are numbers",
			doc:  "rollout:\n  gates: [{prometheus: {url: \"http://p:9090\", query: up, max: .inf}}]\n",
			errs: []string{"rollout.gates[0].prometheus.max: must be a number"},
		},
		{
			name: "a query is bounded",
			doc:  "rollout:\n  gates: [{prometheus: {url: \"http://p:9090\", query: " + strings.Repeat("x", descriptor.MaxGateQuery+1) + ", max: 1}}]\n",
			errs: []string{"rollout.gates[0].prometheus.query: must be at most 4096 bytes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseEnv(t, tt.doc)
			got := rolloutErrors(err)
			if strings.Join(got, "\n") != strings.Join(tt.errs, "\n") {
				t.Errorf("errors\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.errs, "\n  "))
			}
		})
	}
}

// parseDescriptor reads a descriptor with the rollout section given.
func parseDescriptor(t *testing.T, rollout string) *deploy.Descriptor {
	t.Helper()
	d, err := descriptor.Parse([]byte("apiVersion: manent/v1\napplication: hello\nenvironment: prod\n" +
		"artifact: {type: application, name: hello, version: 1.0.0, source: file:hello.tgz}\n" + rollout))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// rolloutSummary shows the parts of an effective rollout the merge
// decides, in one line.
func rolloutSummary(s *deploy.RolloutSpec) string {
	if s == nil {
		return "none"
	}
	var b strings.Builder
	if s.Rule != nil {
		b.WriteString("rule=" + labelsOf(s.Rule) + " ")
	}
	if s.Exclude != nil {
		b.WriteString("exclude=" + labelsOf(s.Exclude) + " ")
	}
	for i, w := range s.Waves {
		b.WriteString(w.Name + "(batch " + w.Batch.String() + ", bake " + s.WaveBake(i).String())
		if w.Approval {
			b.WriteString(", approval")
		}
		b.WriteString(") ")
	}
	for _, p := range s.Percentages {
		b.WriteString(deploy.Amount{N: p, Percent: true}.String() + " ")
	}
	b.WriteString("bake " + s.Bake.String() + " max_failures " + s.MaxFailures.String())
	b.WriteString(" gates " + string(rune('0'+len(s.Gates))))
	b.WriteString(" " + string(s.NoData) + "/" + string(s.OnFailure) + " " + s.PauseTimeout.String() + "/" + s.DeferTimeout.String())
	return b.String()
}

func labelsOf(s *deploy.Selector) string {
	var parts []string
	for k, v := range s.Labels {
		parts = append(parts, k+":"+v)
	}
	return strings.Join(parts, ",")
}

func TestMergeRollout(t *testing.T) {
	const envRollout = "rollout:\n  exclude: {labels: {maintenance: \"true\"}}\n  bake: 30s\n  max_failures: 1\n" +
		"  waves:\n    - {name: canary, count: 1, batch: 1, bake: 2m}\n    - {name: rest, batch: \"50%\"}\n" +
		"  gates: [{http: {url: \"https://h/health\"}}]\n"
	tests := []struct {
		name    string
		env     string
		desc    string
		policy  string
		want    string
		wantErr []string
	}{
		{
			name: "neither: no rollout",
			want: "none",
		},
		{
			name: "the environment's, with the defaults",
			env:  envRollout,
			want: "exclude=maintenance:true canary(batch 1, bake 2m0s) rest(batch 50%, bake 30s) bake 30s max_failures 1 gates 1 fail/abort 24h0m0s/24h0m0s",
		},
		{
			name:    "a descriptor's rollout under none is forbidden",
			env:     envRollout,
			desc:    "rollout: {bake: 1h}\n",
			wantErr: []string{"rollout: forbidden: the descriptor policy does not let descriptors change the rollout (descriptor_policy.rollout is none)"},
		},
		{
			name:   "pacing: bake longer, fewer failures, smaller batches, one more approval",
			env:    envRollout,
			desc:   "rollout:\n  bake: 1m\n  max_failures: 0\n  waves: [{name: rest, batch: \"25%\", bake: 10m, approval: true}]\n",
			policy: config.RolloutPolicyPacing,
			want:   "exclude=maintenance:true canary(batch 1, bake 2m0s) rest(batch 25%, bake 10m0s, approval) bake 1m0s max_failures 0 gates 1 fail/abort 24h0m0s/24h0m0s",
		},
		{
			name:   "pacing: a batch of one is always smaller",
			env:    envRollout,
			desc:   "rollout:\n  waves: [{name: rest, batch: 1}]\n",
			policy: config.RolloutPolicyPacing,
			want:   "exclude=maintenance:true canary(batch 1, bake 2m0s) rest(batch 1, bake 30s) bake 30s max_failures 1 gates 1 fail/abort 24h0m0s/24h0m0s",
		},
		{
			name: "pacing: nothing toward less caution, nothing beyond pacing",
			env:  envRollout,
			desc: "rollout:\n  bake: 10s\n  max_failures: 2\n  gates: [{http: {url: \"https://h/\"}}]\n  on_failure: pause\n" +
				"  waves:\n    - {name: canary, bake: 1m, batch: 2}\n    - {name: rest, batch: 3, select: {labels: {a: b}}, count: 1}\n    - {name: extra}\n",
			policy: config.RolloutPolicyPacing,
			wantErr: []string{
				"rollout.gates: " + "forbidden: descriptor_policy.rollout is pacing, which lets a descriptor change only bake, max_failures and waves[].batch, bake and approval, toward more caution",
				"rollout.on_failure: " + "forbidden: descriptor_policy.rollout is pacing, which lets a descriptor change only bake, max_failures and waves[].batch, bake and approval, toward more caution",
				"rollout.bake: must be at least the environment configuration's (30s): pacing only slows a rollout down",
				"rollout.max_failures: must be at most the environment configuration's (1), written the same way (a count or a percentage): pacing only tolerates fewer failures",
				"rollout.waves[0].batch: must be at most the environment configuration's (1), written the same way (a count or a percentage), or 1",
				"rollout.waves[0].bake: must be at least the environment configuration's (2m0s): pacing only slows a rollout down",
				"rollout.waves[1].select: forbidden: descriptor_policy.rollout is pacing, which lets a descriptor change only bake, max_failures and waves[].batch, bake and approval, toward more caution",
				"rollout.waves[1].count: forbidden: descriptor_policy.rollout is pacing, which lets a descriptor change only bake, max_failures and waves[].batch, bake and approval, toward more caution",
				"rollout.waves[1].batch: must be at most the environment configuration's (50%), written the same way (a count or a percentage), or 1",
				"rollout.waves[2].name: no wave extra in the environment configuration's rollout: pacing changes its waves, it adds none",
			},
		},
		{
			name:    "pacing without an environment rollout",
			desc:    "rollout: {bake: 1m}\n",
			policy:  config.RolloutPolicyPacing,
			wantErr: []string{"rollout: forbidden: the environment configuration has no rollout for descriptor_policy.rollout: pacing to slow down"},
		},
		{
			name:   "all: each key given replaces the environment's, percentages replace waves",
			env:    envRollout,
			desc:   "rollout:\n  percentages: [25, 100]\n  bake: 0s\n  on_failure: pause\n  pause_timeout: 1h\n",
			policy: config.RolloutPolicyAll,
			want:   "exclude=maintenance:true 25% 100% bake 0s max_failures 1 gates 1 fail/pause 1h0m0s/24h0m0s",
		},
		{
			name:   "all: a rollout where the environment has none, the rule added",
			desc:   "rollout:\n  rule: {labels: {os: linux}}\n  waves: [{name: one, batch: 1}]\n",
			policy: config.RolloutPolicyAll,
			want:   "rule=os:linux one(batch 1, bake 0s) bake 0s max_failures 0 gates 0 fail/abort 24h0m0s/24h0m0s",
		},
		{
			name:    "all: the environment's exclude always stands",
			env:     envRollout,
			desc:    "rollout:\n  exclude: {labels: {maintenance: \"false\"}}\n  waves: [{name: rest}, {name: never, select: {labels: {a: b}}}]\n",
			policy:  config.RolloutPolicyAll,
			wantErr: []string{"rollout.exclude: conflict: the environment configuration has its own exclude, which always applies", "rollout.waves[1]: can never have a target: rest (waves[0]) takes every target left; put the waves with select first"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := parseEnv(t, tt.env)
			if err != nil {
				t.Fatal(err)
			}
			d := parseDescriptor(t, tt.desc)
			eff, err := config.Merge(d, env, config.DescriptorPolicy{Rollout: tt.policy}, "default")
			if errs := rolloutErrors(err); strings.Join(errs, "\n") != strings.Join(tt.wantErr, "\n") {
				t.Fatalf("errors\n  %s\nwant\n  %s", strings.Join(errs, "\n  "), strings.Join(tt.wantErr, "\n  "))
			}
			if tt.wantErr != nil {
				return
			}
			if got := rolloutSummary(eff.Rollout); got != tt.want {
				t.Errorf("rollout %s\nwant    %s", got, tt.want)
			}
			if env.Rollout != nil && env.Rollout.NoData != "" {
				t.Error("the merge wrote the defaults into the environment's rollout")
			}
		})
	}
}

func TestDescriptorRollout(t *testing.T) {
	for _, tt := range []struct {
		doc  string
		errs []string
	}{
		{"rollout: {}\n", []string{"rollout: must give at least one key: leave rollout out to keep the environment's"}},
		{"rollout: {waves: [{name: a, batch: 0}], maxFailures: 1}\n", []string{
			"rollout.maxFailures: unknown field (did you mean max_failures?)",
			"rollout.waves[0].batch: must be at least 1",
		}},
		// A descriptor lives in the application's repository: credentials
		// belong to the environment configuration, and a secret of the
		// environment is never sent where a descriptor says.
		{"rollout: {gates: [{prometheus: {url: \"https://reader:pa55w0rd@metrics.example/\", query: up, min: 1}}]}\n", []string{
			"rollout.gates[0].prometheus.url: must not hold credentials (user:password@) in a descriptor: give the gate in the environment configuration, with basic_auth naming a secret of its secrets section",
		}},
		{"rollout: {gates: [{prometheus: {url: \"https://metrics.example/\", query: up, min: 1, basic_auth: {username: reader, password_secret: db}}}]}\n", []string{
			"rollout.gates[0].prometheus.basic_auth: forbidden in a descriptor: a gate that sends a secret is given in the environment configuration",
		}},
		{"rollout: {gates: [{prometheus: {url: \"https://metrics.example/\", query: up, min: 1, bearer_secret: db}}]}\n", []string{
			"rollout.gates[0].prometheus.bearer_secret: forbidden in a descriptor: a gate that sends a secret is given in the environment configuration",
		}},
	} {
		_, err := descriptor.Parse([]byte("apiVersion: manent/v1\napplication: hello\nenvironment: prod\n" +
			"artifact: {type: application, name: hello, version: 1.0.0, source: file:hello.tgz}\n" + tt.doc))
		if got := rolloutErrors(err); strings.Join(got, "\n") != strings.Join(tt.errs, "\n") {
			t.Errorf("%s: errors %q, want %q", tt.doc, got, tt.errs)
		}
	}
}

func TestDescriptorPolicyRollout(t *testing.T) {
	if _, err := config.Parse([]byte("pipeline: {descriptor_policy: {rollout: pacing}}\n"), t.TempDir()); err != nil {
		t.Errorf("pacing: %v", err)
	}
	_, err := config.Parse([]byte("pipeline: {descriptor_policy: {rollout: some}}\n"), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "pipeline.descriptor_policy.rollout: must be none, pacing or all") {
		t.Errorf("err = %v", err)
	}
}

// TestEnvConfigPrometheusGateCredentials: an environment configuration's
// Prometheus gate authenticates with basic_auth (a user name and a secret
// of the secrets section holding the password) or bearer_secret; user info
// in the URL is refused, pointing to basic_auth, since it would be stored
// in clear with every deploy; no error message repeats the password.
func TestEnvConfigPrometheusGateCredentials(t *testing.T) {
	const secrets = "secrets: [{name: prom, ref: \"file:prom-password\"}]\n"
	const gate = "rollout:\n  gates: [{prometheus: {url: \"https://metrics.example/prometheus\", query: up, min: 1, %s}}]\n"
	tests := []struct {
		name, doc string
		errs      []string
		want      *deploy.PrometheusGate
	}{
		{name: "basic_auth with a declared secret", doc: secrets + fmt.Sprintf(gate, "basic_auth: {username: reader, password_secret: prom}"),
			want: &deploy.PrometheusGate{URL: "https://metrics.example/prometheus", BasicAuth: &deploy.GateBasicAuth{Username: "reader", PasswordSecret: "prom"}}},
		{name: "bearer_secret with a declared secret", doc: secrets + fmt.Sprintf(gate, "bearer_secret: prom"),
			want: &deploy.PrometheusGate{URL: "https://metrics.example/prometheus", BearerSecret: "prom"}},
		{name: "user and password in the url", doc: "rollout:\n  gates: [{prometheus: {url: \"https://reader:pa55w0rd@metrics.example/prometheus\", query: up, min: 1}}]\n",
			errs: []string{"rollout.gates[0].prometheus.url: must not hold credentials (user:password@): give them as basic_auth: {username: ..., password_secret: ...} (or bearer_secret), naming a secret of the secrets section"}},
		{name: "a user alone in the url", doc: "rollout:\n  gates: [{prometheus: {url: \"http://reader@127.0.0.1:9090\", query: up, min: 1}}]\n",
			errs: []string{"rollout.gates[0].prometheus.url: must not hold credentials (user:password@): give them as basic_auth: {username: ..., password_secret: ...} (or bearer_secret), naming a secret of the secrets section"}},
		{name: "a secret the section does not declare", doc: secrets + fmt.Sprintf(gate, "basic_auth: {username: reader, password_secret: metrics}"),
			errs: []string{"rollout.gates[0].prometheus.basic_auth.password_secret: must name a secret of the secrets section (metrics is not one)"}},
		{name: "a bearer secret the section does not declare", doc: fmt.Sprintf(gate, "bearer_secret: token"),
			errs: []string{"rollout.gates[0].prometheus.bearer_secret: must name a secret of the secrets section (token is not one)"}},
		{name: "both", doc: secrets + fmt.Sprintf(gate, "basic_auth: {username: reader, password_secret: prom}, bearer_secret: prom"),
			errs: []string{"rollout.gates[0].prometheus: give basic_auth or bearer_secret, not both"}},
		{name: "no user, no secret", doc: secrets + fmt.Sprintf(gate, "basic_auth: {}"),
			errs: []string{"rollout.gates[0].prometheus.basic_auth.username: is required", "rollout.gates[0].prometheus.basic_auth.password_secret: is required"}},
		{name: "a colon in the user", doc: secrets + fmt.Sprintf(gate, "basic_auth: {username: \"reader:pa55w0rd\", password_secret: prom}"),
			errs: []string{"rollout.gates[0].prometheus.basic_auth.username: must not contain ':', which ends the user name in basic authentication"}},
		{name: "a misspelt key", doc: secrets + fmt.Sprintf(gate, "basicAuth: {username: reader, password_secret: prom}"),
			errs: []string{"rollout.gates[0].prometheus.basicAuth: unknown field (did you mean basic_auth?)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := parseEnv(t, tt.doc)
			got := rolloutErrors(err)
			if strings.Join(got, "\n") != strings.Join(tt.errs, "\n") {
				t.Fatalf("errors\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.errs, "\n  "))
			}
			for _, e := range got {
				if strings.Contains(e, "pa55w0rd") {
					t.Errorf("an error shows the password: %s", e)
				}
			}
			if tt.want == nil {
				return
			}
			g := *env.Rollout.Gates[0].Prometheus
			g.Query, g.Min = "", nil
			if !reflect.DeepEqual(g, *tt.want) {
				t.Errorf("gate %+v (basic auth %+v), want %+v", g, g.BasicAuth, tt.want)
			}
		})
	}
}

// TestDescriptorTargetLabelsCannotSteerTheRollout: the labels of a
// descriptor's targets that a selector of the environment's rollout reads
// are refused where the policy keeps that selector the environment's, so a
// descriptor cannot put every target in the canary wave (leaving the wave
// with an approval empty) or pass a Windows host through the linux rule.
func TestDescriptorTargetLabelsCannotSteerTheRollout(t *testing.T) {
	const envRollout = `rollout:
  rule: {labels: {os: linux}}
  exclude: {labels: {maintenance: "true"}}
  waves:
    - {name: canary, select: {labels: {ring: canary}}}
    - {name: rest, approval: true}
`
	const steering = `deploy:
  targets:
    - {host: win-1, labels: {os: linux, ring: canary}}
    - {host: web-2, port: 2202, labels: {ring: canary, team: web}}
    - {host: web-3, labels: {maintenance: "false"}}
`
	tests := []struct {
		name    string
		env     string
		desc    string
		policy  string
		wantErr []string
	}{
		{
			name: "none: the rule, the exclude and the waves are the environment's",
			env:  envRollout, desc: steering, policy: config.RolloutPolicyNone,
			wantErr: []string{
				"deploy.targets[0].labels.os: win-1: forbidden: rollout.rule of the environment configuration reads this label, and whether a target passes the rule is the environment configuration's to decide, not the descriptor's (descriptor_policy.rollout is none)",
				"deploy.targets[0].labels.ring: win-1: forbidden: rollout.waves[0].select of the environment configuration reads this label, and which wave a target is in is the environment configuration's to decide, not the descriptor's (descriptor_policy.rollout is none)",
				"deploy.targets[1].labels.ring: web-2:2202: forbidden: rollout.waves[0].select of the environment configuration reads this label, and which wave a target is in is the environment configuration's to decide, not the descriptor's (descriptor_policy.rollout is none)",
				"deploy.targets[2].labels.maintenance: web-3: forbidden: rollout.exclude of the environment configuration reads this label, and whether a target is excluded is the environment configuration's to decide, not the descriptor's (descriptor_policy.rollout is none)",
			},
		},
		{
			name: "pacing: the same",
			env:  envRollout, desc: steering, policy: config.RolloutPolicyPacing,
			wantErr: []string{
				"deploy.targets[0].labels.os: win-1: forbidden: rollout.rule of the environment configuration reads this label, and whether a target passes the rule is the environment configuration's to decide, not the descriptor's (descriptor_policy.rollout is pacing)",
				"deploy.targets[0].labels.ring: win-1: forbidden: rollout.waves[0].select of the environment configuration reads this label, and which wave a target is in is the environment configuration's to decide, not the descriptor's (descriptor_policy.rollout is pacing)",
				"deploy.targets[1].labels.ring: web-2:2202: forbidden: rollout.waves[0].select of the environment configuration reads this label, and which wave a target is in is the environment configuration's to decide, not the descriptor's (descriptor_policy.rollout is pacing)",
				"deploy.targets[2].labels.maintenance: web-3: forbidden: rollout.exclude of the environment configuration reads this label, and whether a target is excluded is the environment configuration's to decide, not the descriptor's (descriptor_policy.rollout is pacing)",
			},
		},
		{
			name: "the default policy is none",
			env:  envRollout, desc: "deploy:\n  targets: [{host: web-1, labels: {ring: canary}}]\n",
			wantErr: []string{
				"deploy.targets[0].labels.ring: web-1: forbidden: rollout.waves[0].select of the environment configuration reads this label, and which wave a target is in is the environment configuration's to decide, not the descriptor's (descriptor_policy.rollout is none)",
			},
		},
		{
			name: "all: the waves may be the descriptor's, the rule and exclude stand",
			env:  envRollout, desc: steering, policy: config.RolloutPolicyAll,
			wantErr: []string{
				"deploy.targets[0].labels.os: win-1: forbidden: rollout.rule of the environment configuration reads this label, and whether a target passes the rule is the environment configuration's to decide, not the descriptor's (the environment's rule and exclude always stand)",
				"deploy.targets[2].labels.maintenance: web-3: forbidden: rollout.exclude of the environment configuration reads this label, and whether a target is excluded is the environment configuration's to decide, not the descriptor's (the environment's rule and exclude always stand)",
			},
		},
		{
			name: "all, with a rule of the descriptor's own",
			env:  "rollout:\n  waves: [{name: canary, select: {labels: {ring: canary}}}, {name: rest}]\n",
			desc: "rollout: {rule: {labels: {os: linux}}}\ndeploy:\n  targets: [{host: web-1, labels: {os: linux, ring: canary}}]\n", policy: config.RolloutPolicyAll,
		},
		{
			name: "labels no selector of the environment reads",
			env:  envRollout, desc: "deploy:\n  targets: [{host: web-1, labels: {team: web, region: eu}}, {host: web-2}]\n", policy: config.RolloutPolicyNone,
		},
		{
			name: "an environment without rollout",
			desc: steering, policy: config.RolloutPolicyNone,
		},
		{
			name: "percentages read no label",
			env:  "rollout: {percentages: [50, 100]}\n", desc: steering, policy: config.RolloutPolicyPacing,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Parse(nil, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			env, err := c.ParseEnvConfig([]byte("plugin: local\n" + tt.env))
			if err != nil {
				t.Fatal(err)
			}
			_, err = config.Merge(parseDescriptor(t, tt.desc), env, config.DescriptorPolicy{Targets: true, Rollout: tt.policy}, "demo")
			if got := rolloutErrors(err); strings.Join(got, "\n") != strings.Join(tt.wantErr, "\n") {
				t.Errorf("errors\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.wantErr, "\n  "))
			}
			if tt.wantErr == nil && err != nil {
				t.Errorf("merge: %v", err)
			}
		})
	}
}

// An environment's own targets carry the labels its rollout reads: the
// environment configuration gives both.
func TestEnvTargetLabelsSteerItsRollout(t *testing.T) {
	c, err := config.Parse(nil, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env, err := c.ParseEnvConfig([]byte("plugin: local\ntargets: [{path: /srv/a, labels: {ring: canary, os: linux}}, {path: /srv/b, labels: {os: linux}}]\n" +
		"rollout:\n  rule: {labels: {os: linux}}\n  waves: [{name: canary, select: {labels: {ring: canary}}}, {name: rest}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	eff, err := config.Merge(parseDescriptor(t, ""), env, config.DescriptorPolicy{Targets: true}, "demo")
	if err != nil || len(eff.Targets) != 2 {
		t.Fatalf("merge = %+v, %v", eff.Targets, err)
	}
}

// TestDescriptorGatesCallTheirTargetsOrTheAllowList: under
// descriptor_policy.rollout: all, a descriptor's gate may make the worker
// call its targets or the URLs the platform lists in gate_urls, never an
// internal address of the descriptor's choosing (whose answers' codes the
// status would show).
func TestDescriptorGatesCallTheirTargetsOrTheAllowList(t *testing.T) {
	allowList := []string{"https://metrics.example/prometheus/", "http://127.0.0.1:9090/", "https://status.example/api/"}
	const msgHTTP = "forbidden: a descriptor's http gate calls its targets ({{ .Target.Host }} as the whole host) or a URL under pipeline.descriptor_policy.gate_urls, no other host"
	const msgProm = "forbidden: a descriptor's prometheus gate must be under one of pipeline.descriptor_policy.gate_urls: give the gate in the environment configuration, or ask for its Prometheus to be listed"
	tests := []struct {
		name    string
		gate    string
		allowed []string
		err     string
	}{
		{name: "an internal address", gate: `{http: {url: "http://10.0.0.5:8500/v1/kv/secret?recurse=true", expect_status: 200}}`, allowed: allowList, err: "rollout.gates[0].http.url: " + msgHTTP},
		{name: "the targets", gate: `{http: {url: "https://{{ .Target.Host }}:{{ .Target.Port }}/health"}}`},
		{name: "the targets on a port of the descriptor's", gate: `{http: {url: "http://{{ .Target.Host }}:8080/health?v={{ .Version }}"}}`},
		{name: "a host built around the target's", gate: `{http: {url: "https://{{ .Target.Host }}.evil.example/h"}}`, allowed: allowList, err: "rollout.gates[0].http.url: " + msgHTTP},
		{name: "the target's host in the path", gate: `{http: {url: "https://10.0.0.5/{{ .Target.Host }}"}}`, err: "rollout.gates[0].http.url: " + msgHTTP},
		{name: "an http gate under gate_urls", gate: `{http: {url: "https://status.example/api/{{ .Target.Host }}"}}`, allowed: allowList},
		{name: "an http gate climbing out of gate_urls", gate: `{http: {url: "https://status.example/api/../admin"}}`, allowed: allowList, err: "rollout.gates[0].http.url: " + msgHTTP},
		{name: "an encoded climb", gate: `{http: {url: "https://status.example/api/%2E%2e/admin"}}`, allowed: allowList, err: "rollout.gates[0].http.url: " + msgHTTP},
		{name: "a climb with a path parameter", gate: `{http: {url: "https://status.example/api/..;/admin"}}`, allowed: allowList, err: "rollout.gates[0].http.url: " + msgHTTP},
		{name: "a doubly encoded climb", gate: `{http: {url: "https://status.example/api/%252e%252e/admin"}}`, allowed: allowList, err: "rollout.gates[0].http.url: " + msgHTTP},
		{name: "a climb after a backslash", gate: `{http: {url: "https://status.example/api/x\\..\\admin"}}`, allowed: allowList, err: "rollout.gates[0].http.url: " + msgHTTP},
		{name: "another spelling of an allowed host", gate: `{http: {url: "https://STATUS.example/api/x"}}`, allowed: allowList, err: "rollout.gates[0].http.url: " + msgHTTP},
		{name: "prometheus without gate_urls", gate: `{prometheus: {url: "http://127.0.0.1:9090", query: up, min: 1}}`, err: "rollout.gates[0].prometheus.url: " + msgProm},
		{name: "prometheus under gate_urls", gate: `{prometheus: {url: "https://metrics.example/prometheus/", query: up, min: 1}}`, allowed: allowList},
		{name: "prometheus elsewhere", gate: `{prometheus: {url: "http://10.0.0.5:9090", query: up, min: 1}}`, allowed: allowList, err: "rollout.gates[0].prometheus.url: " + msgProm},
		{name: "prometheus on a host that starts as an allowed one", gate: `{prometheus: {url: "https://metrics.example.evil/prometheus/", query: up, min: 1}}`, allowed: allowList, err: "rollout.gates[0].prometheus.url: " + msgProm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := parseEnv(t, "rollout:\n  waves: [{name: one}]\n")
			if err != nil {
				t.Fatal(err)
			}
			d := parseDescriptor(t, "rollout:\n  gates: ["+tt.gate+"]\n")
			eff, err := config.Merge(d, env, config.DescriptorPolicy{Rollout: config.RolloutPolicyAll, GateURLs: tt.allowed}, "demo")
			if got := strings.Join(rolloutErrors(err), "\n"); got != tt.err {
				t.Fatalf("errors %q\nwant   %q", got, tt.err)
			}
			if tt.err == "" && (err != nil || len(eff.Rollout.Gates) != 1) {
				t.Fatalf("merge = %+v, %v", eff.Rollout, err)
			}
		})
	}
}

// An environment configuration's gates are the platform's own: they call
// what it writes, with or without gate_urls.
func TestEnvGatesCallAnyHost(t *testing.T) {
	env, err := parseEnv(t, "rollout:\n  gates: [{http: {url: \"http://10.0.0.5:8500/health\"}}, {prometheus: {url: \"http://10.0.0.6:9090\", query: up, min: 1}}]\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, policy := range []string{config.RolloutPolicyNone, config.RolloutPolicyAll} {
		if _, err := config.Merge(parseDescriptor(t, ""), env, config.DescriptorPolicy{Rollout: policy}, "demo"); err != nil {
			t.Errorf("%s: %v", policy, err)
		}
	}
}

func TestDescriptorPolicyGateURLs(t *testing.T) {
	_, err := config.Parse([]byte(`pipeline:
  descriptor_policy:
    rollout: all
    gate_urls:
      - https://metrics.example/prometheus/
      - "http://127.0.0.1:"
      - https://metrics.example
      - file:metrics
      - https://reader:pw@metrics.example/
      - https://{{ .Target.Host }}/
      - ftp://metrics.example/
`), t.TempDir())
	want := []string{
		"pipeline.descriptor_policy.gate_urls[2]: must end the host with / or : (https://repo.example.com/ or http://127.0.0.1:), or it would match other hosts",
		"pipeline.descriptor_policy.gate_urls[3]: must start with http:// or https://: a gate calls an HTTP server",
		"pipeline.descriptor_policy.gate_urls[4]: must be a URL prefix without credentials",
		"pipeline.descriptor_policy.gate_urls[5]: must be a URL prefix without placeholders",
		"pipeline.descriptor_policy.gate_urls[6]: must start with http:// or https://: a gate calls an HTTP server",
	}
	var ce *config.Error
	if !errors.As(err, &ce) {
		t.Fatalf("Parse: %v, want a *config.Error", err)
	}
	got := make([]string, len(ce.Fields))
	for i, f := range ce.Fields {
		got[i] = f.String()
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
