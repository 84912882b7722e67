package chains

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
)

func str(from, pattern string) deploy.ExportSpec {
	return deploy.ExportSpec{From: from, Pattern: pattern}
}

func tgt(from, pattern string) deploy.ExportSpec {
	return deploy.ExportSpec{From: from, Format: deploy.ExportTargets, Pattern: pattern}
}

func TestCheckExports(t *testing.T) {
	const ip = `10\.20\.\d+\.\d+`
	big := strings.Repeat("a", deploy.MaxExportValue)
	longHosts := hostList(500, func(i int) string { return fmt.Sprintf("h%03d", i) + strings.Repeat("x", 116) })
	tests := []struct {
		name    string
		specs   map[string]deploy.ExportSpec
		outputs map[string]map[string]string
		want    []deploy.Export
		// wantErr lists the paths of the problems; nil means success.
		wantErr []string
	}{
		{name: "nothing declared", outputs: map[string]map[string]string{"deploy": {"a": "b"}}},
		{name: "string",
			specs:   map[string]deploy.ExportSpec{"db_host": str("deploy.db_host", `[a-z0-9.-]{1,253}`)},
			outputs: map[string]map[string]string{"deploy": {"db_host": "db.internal", "other": "ignored"}},
			want:    []deploy.Export{{Name: "db_host", Format: "string", Value: "db.internal"}}},
		{name: "public is carried",
			specs:   map[string]deploy.ExportSpec{"v": {From: "deploy.v", Pattern: `.*`, Public: true}},
			outputs: map[string]map[string]string{"deploy": {"v": "x"}},
			want:    []deploy.Export{{Name: "v", Format: "string", Value: "x", Public: true}}},
		{name: "sorted by name, from a custom step",
			specs:   map[string]deploy.ExportSpec{"b": str("deploy.b", `b`), "a": str("smoke-test.a", `a`)},
			outputs: map[string]map[string]string{"deploy": {"b": "b"}, "smoke-test": {"a": "a"}},
			want:    []deploy.Export{{Name: "a", Format: "string", Value: "a"}, {Name: "b", Format: "string", Value: "b"}}},
		{name: "pattern anchored at the end",
			specs:   map[string]deploy.ExportSpec{"ip": str("deploy.ip", ip)},
			outputs: map[string]map[string]string{"deploy": {"ip": "10.20.1.1;rm -rf /"}},
			wantErr: []string{"exports.ip"}},
		{name: "pattern anchored at the start",
			specs:   map[string]deploy.ExportSpec{"ip": str("deploy.ip", ip)},
			outputs: map[string]map[string]string{"deploy": {"ip": "x10.20.1.1"}},
			wantErr: []string{"exports.ip"}},
		{name: "alternation anchored as a whole",
			specs:   map[string]deploy.ExportSpec{"v": str("deploy.v", `a|b`)},
			outputs: map[string]map[string]string{"deploy": {"v": "ab"}},
			wantErr: []string{"exports.v"}},
		{name: "pattern escaping the anchors is refused",
			specs:   map[string]deploy.ExportSpec{"v": str("deploy.v", `a)|(.*`)},
			outputs: map[string]map[string]string{"deploy": {"v": "anything"}},
			wantErr: []string{"exports.v"}},
		{name: "newline not matched by .",
			specs:   map[string]deploy.ExportSpec{"v": str("deploy.v", `.*`)},
			outputs: map[string]map[string]string{"deploy": {"v": "a\nb"}},
			wantErr: []string{"exports.v"}},
		{name: "string without pattern",
			specs:   map[string]deploy.ExportSpec{"v": str("deploy.v", "")},
			outputs: map[string]map[string]string{"deploy": {"v": "a"}},
			wantErr: []string{"exports.v"}},
		{name: "invalid UTF-8",
			specs:   map[string]deploy.ExportSpec{"v": str("deploy.v", `(?s).*`)},
			outputs: map[string]map[string]string{"deploy": {"v": "a\xffb"}},
			wantErr: []string{"exports.v"}},
		{name: "unknown format",
			specs:   map[string]deploy.ExportSpec{"v": {From: "deploy.v", Format: "json", Pattern: ".*"}},
			outputs: map[string]map[string]string{"deploy": {"v": "a"}},
			wantErr: []string{"exports.v"}},
		{name: "malformed from",
			specs:   map[string]deploy.ExportSpec{"v": str("deploy", ".*")},
			outputs: map[string]map[string]string{"deploy": {"v": "a"}},
			wantErr: []string{"exports.v"}},
		{name: "missing key",
			specs:   map[string]deploy.ExportSpec{"v": str("deploy.v", ".*")},
			outputs: map[string]map[string]string{"deploy": {"w": "a"}},
			wantErr: []string{"exports.v"}},
		{name: "missing step",
			specs:   map[string]deploy.ExportSpec{"v": str("smoke.v", ".*")},
			outputs: map[string]map[string]string{"deploy": {"v": "a"}},
			wantErr: []string{"exports.v"}},
		{name: "targets from plain strings, normalised",
			specs:   map[string]deploy.ExportSpec{"vms": tgt("deploy.vms", ip)},
			outputs: map[string]map[string]string{"deploy": {"vms": `["10.20.0.1", "10.20.0.2"]`}},
			want:    []deploy.Export{{Name: "vms", Format: "targets", Value: `[{"host":"10.20.0.1"},{"host":"10.20.0.2"}]`}}},
		{name: "targets from objects, normalised",
			specs:   map[string]deploy.ExportSpec{"vms": tgt("deploy.vms", ip)},
			outputs: map[string]map[string]string{"deploy": {"vms": `[ {"user":"u", "host":"10.20.0.1", "port":22} ]`}},
			want:    []deploy.Export{{Name: "vms", Format: "targets", Value: `[{"host":"10.20.0.1","port":22,"user":"u"}]`}}},
		{name: "targets without pattern",
			specs:   map[string]deploy.ExportSpec{"vms": tgt("deploy.vms", "")},
			outputs: map[string]map[string]string{"deploy": {"vms": `["anything.example"]`}},
			want:    []deploy.Export{{Name: "vms", Format: "targets", Value: `[{"host":"anything.example"}]`}}},
		{name: "a host outside the pattern",
			specs:   map[string]deploy.ExportSpec{"vms": tgt("deploy.vms", ip)},
			outputs: map[string]map[string]string{"deploy": {"vms": `["10.20.0.1", "10.30.0.1"]`}},
			wantErr: []string{"exports.vms"}},
		{name: "a host matching only in part",
			specs:   map[string]deploy.ExportSpec{"vms": tgt("deploy.vms", ip)},
			outputs: map[string]map[string]string{"deploy": {"vms": `["10.20.0.1.evil.example"]`}},
			wantErr: []string{"exports.vms"}},
		{name: "targets not a list",
			specs:   map[string]deploy.ExportSpec{"vms": tgt("deploy.vms", "")},
			outputs: map[string]map[string]string{"deploy": {"vms": `10.20.0.1`}},
			wantErr: []string{"exports.vms"}},
		{name: "500 targets",
			specs:   map[string]deploy.ExportSpec{"vms": tgt("deploy.vms", `h\d+`)},
			outputs: map[string]map[string]string{"deploy": {"vms": hostList(500, func(i int) string { return fmt.Sprint("h", i) })}}},
		{name: "501 targets",
			specs:   map[string]deploy.ExportSpec{"vms": tgt("deploy.vms", "")},
			outputs: map[string]map[string]string{"deploy": {"vms": hostList(501, func(i int) string { return fmt.Sprint("h", i) })}},
			wantErr: []string{"exports.vms"}},
		{name: "64 KiB",
			specs:   map[string]deploy.ExportSpec{"v": str("deploy.v", "a*")},
			outputs: map[string]map[string]string{"deploy": {"v": big}}},
		{name: "over 64 KiB",
			specs:   map[string]deploy.ExportSpec{"v": str("deploy.v", "a*")},
			outputs: map[string]map[string]string{"deploy": {"v": big + "a"}},
			wantErr: []string{"exports.v"}},
		{name: "over 64 KiB once normalised",
			specs:   map[string]deploy.ExportSpec{"vms": tgt("deploy.vms", "")},
			outputs: map[string]map[string]string{"deploy": {"vms": longHosts}},
			wantErr: []string{"exports.vms"}},
		{name: "256 KiB in all",
			specs: map[string]deploy.ExportSpec{
				"a": str("deploy.a", "a*"), "b": str("deploy.b", "a*"), "c": str("deploy.c", "a*"), "d": str("deploy.d", "a*")},
			outputs: map[string]map[string]string{"deploy": {"a": big, "b": big, "c": big, "d": big}}},
		{name: "over 256 KiB in all",
			specs: map[string]deploy.ExportSpec{
				"a": str("deploy.a", "a*"), "b": str("deploy.b", "a*"), "c": str("deploy.c", "a*"), "d": str("deploy.d", "a*"), "e": str("deploy.e", "a*")},
			outputs: map[string]map[string]string{"deploy": {"a": big, "b": big, "c": big, "d": big, "e": "a"}},
			wantErr: []string{"exports"}},
		{name: "more than 32 exports",
			specs: func() map[string]deploy.ExportSpec {
				m := map[string]deploy.ExportSpec{}
				for i := 0; i <= deploy.MaxExports; i++ {
					m[fmt.Sprint("e", i)] = str("deploy.v", ".*")
				}
				return m
			}(),
			outputs: map[string]map[string]string{"deploy": {"v": "x"}},
			wantErr: []string{"exports"}},
		{name: "every problem listed",
			specs: map[string]deploy.ExportSpec{
				"ok": str("deploy.ok", "ok"), "bad": str("deploy.bad", "ok"), "gone": str("deploy.gone", ".*"),
				"vms": tgt("deploy.vms", ip)},
			outputs: map[string]map[string]string{"deploy": {"ok": "ok", "bad": "nok", "vms": `["10.20.0.1", "-x", "10.99.0.1"]`}},
			wantErr: []string{"exports.bad", "exports.gone", "exports.vms", "exports.vms", "exports.vms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckExports(tt.specs, tt.outputs)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("CheckExports: %v", err)
				}
				if tt.want != nil && !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("got %+v, want %+v", got, tt.want)
				}
				if len(got) != len(tt.specs) {
					t.Fatalf("got %d exports, want %d", len(got), len(tt.specs))
				}
				return
			}
			var de *deploy.Error
			if !errors.As(err, &de) || de.Code != deploy.EUNPROCESSABLE || !de.Permanent || de.Message != MsgExportsInvalid {
				t.Fatalf("got %#v, want a permanent EUNPROCESSABLE %q", err, MsgExportsInvalid)
			}
			if got != nil {
				t.Fatalf("got exports %v with the error", got)
			}
			var paths []string
			for _, f := range de.Fields {
				paths = append(paths, f.Path)
			}
			if !reflect.DeepEqual(paths, tt.wantErr) {
				t.Fatalf("problems at %q, want %q:\n%v", paths, tt.wantErr, err)
			}
		})
	}
}

// A plugin that wrongly puts a secret in an output must not see it copied
// into the deploy's error, which every reader of the deploy sees.
func TestCheckExportsDoesNotEchoValues(t *testing.T) {
	const secret = "s3cr3t-P4ssw0rd-do-not-leak"
	specs := map[string]deploy.ExportSpec{
		"s": str("deploy.s", `[a-z]+`), "t": tgt("deploy.t", `[a-z]+`), "u": tgt("deploy.u", ""),
	}
	outputs := map[string]map[string]string{"deploy": {
		"s": secret, "t": fmt.Sprintf("[%q]", secret), "u": fmt.Sprintf(`[{"host":"a","user":%q}]`, "-"+secret),
	}}
	_, err := CheckExports(specs, outputs)
	if err == nil {
		t.Fatal("accepted")
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), secret[:len(secret)/2+1]) {
		t.Fatalf("the error shows the value: %v", err)
	}
}

func TestCompilePattern(t *testing.T) {
	tests := []struct {
		pattern string
		value   string
		match   bool
		bad     bool
	}{
		{pattern: `[a-z]+`, value: "abc", match: true},
		{pattern: `[a-z]+`, value: "abc1", match: false},
		{pattern: `a|b`, value: "b", match: true},
		{pattern: `a|b`, value: "ba", match: false},
		{pattern: `(?m)a$`, value: "a\nb", match: false},
		{pattern: `a)|(.*`, bad: true},
		{pattern: `(`, bad: true},
	}
	for _, tt := range tests {
		re, err := CompilePattern(tt.pattern)
		if (err != nil) != tt.bad {
			t.Errorf("CompilePattern(%q): %v", tt.pattern, err)
			continue
		}
		if err == nil && re.MatchString(tt.value) != tt.match {
			t.Errorf("%q on %q = %v, want %v", tt.pattern, tt.value, !tt.match, tt.match)
		}
	}
}
