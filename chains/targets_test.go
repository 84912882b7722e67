package chains

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
)

func hostList(n int, host func(i int) string) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf("%q", host(i))
	}
	return "[" + strings.Join(items, ",") + "]"
}

func TestParseTargets(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		want    []deploy.Target
		wantErr []string // paths of the problems
	}{
		{name: "plain strings", value: `["10.20.0.1", "web-1.example.com"]`,
			want: []deploy.Target{{Host: "10.20.0.1"}, {Host: "web-1.example.com"}}},
		{name: "objects", value: `[{"host":"10.20.0.1","port":2222,"user":"deploy","labels":{"zone":"a"}}]`,
			want: []deploy.Target{{Host: "10.20.0.1", Port: 2222, User: "deploy", Labels: map[string]string{"zone": "a"}}}},
		{name: "both shapes mixed", value: `["a", {"host":"b"}]`,
			want: []deploy.Target{{Host: "a"}, {Host: "b"}}},
		{name: "path of a local target", value: `[{"path":"/srv/db"}]`,
			want: []deploy.Target{{Path: "/srv/db"}}},
		{name: "empty list", value: `[]`, want: []deploy.Target{}},
		{name: "surrounding space", value: " [\"a\"]\n", want: []deploy.Target{{Host: "a"}}},
		{name: "500 targets", value: hostList(500, func(i int) string { return fmt.Sprintf("h%d", i) }),
			want: func() []deploy.Target {
				ts := make([]deploy.Target, 500)
				for i := range ts {
					ts[i] = deploy.Target{Host: fmt.Sprintf("h%d", i)}
				}
				return ts
			}()},
		{name: "501 targets", value: hostList(501, func(i int) string { return "h" }), wantErr: []string{""}},
		{name: "null", value: `null`, wantErr: []string{""}},
		{name: "not JSON", value: `10.0.0.1`, wantErr: []string{""}},
		{name: "an object, not a list", value: `{"host":"a"}`, wantErr: []string{""}},
		{name: "trailing data", value: `["a"] ["b"]`, wantErr: []string{""}},
		{name: "a number", value: `["a", 5]`, wantErr: []string{"[1]"}},
		{name: "unknown key", value: `[{"hostname":"a"}]`, wantErr: []string{"[0]"}},
		{name: "no host nor path", value: `[{"user":"u"}]`, wantErr: []string{"[0]"}},
		{name: "empty string", value: `[""]`, wantErr: []string{"[0]"}},
		{name: "host read as an option", value: `["-oProxyCommand=x"]`, wantErr: []string{"[0].host"}},
		{name: "host with a space", value: `["a b"]`, wantErr: []string{"[0].host"}},
		{name: "port 0", value: `[{"host":"a","port":0}]`, wantErr: []string{"[0].port"}},
		{name: "port too high", value: `[{"host":"a","port":65536}]`, wantErr: []string{"[0].port"}},
		{name: "port not a number", value: `[{"host":"a","port":"22"}]`, wantErr: []string{"[0]"}},
		{name: "bad user", value: `[{"host":"a","user":"-root"}]`, wantErr: []string{"[0].user"}},
		{name: "bad label key", value: `[{"host":"a","labels":{"Zone":"a"}}]`, wantErr: []string{"[0].labels"}},
		{name: "path with a control character", value: `[{"path":"/a\nb"}]`, wantErr: []string{"[0].path"}},
		{name: "every problem", value: `["-x", {"host":"a","port":0}, 3]`, wantErr: []string{"[0].host", "[1].port", "[2]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTargets(tt.value)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("ParseTargets: %v", err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("got %+v, want %+v", got, tt.want)
				}
				return
			}
			var de *deploy.Error
			if !errors.As(err, &de) || de.Code != deploy.EUNPROCESSABLE {
				t.Fatalf("got %v, want an EUNPROCESSABLE *deploy.Error", err)
			}
			var paths []string
			for _, f := range de.Fields {
				paths = append(paths, f.Path)
			}
			if !reflect.DeepEqual(paths, tt.wantErr) {
				t.Fatalf("problems at %q, want %q (%v)", paths, tt.wantErr, err)
			}
		})
	}
}

func TestFormatTargetsRoundTrip(t *testing.T) {
	in := []deploy.Target{{Host: "a"}, {Host: "b", Port: 22, User: "u", Labels: map[string]string{"k": "<v>"}}, {Path: "/srv/x"}}
	v := formatTargets(in)
	want := `[{"host":"a"},{"host":"b","port":22,"user":"u","labels":{"k":"<v>"}},{"path":"/srv/x"}]`
	if v != want {
		t.Fatalf("formatTargets = %s, want %s", v, want)
	}
	out, err := ParseTargets(v)
	if err != nil || !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip = %+v, %v", out, err)
	}
}

func TestPrefixNeverShowsWholeValue(t *testing.T) {
	for _, v := range []string{"", "a", "ab", "secret", "correct-horse-battery-staple", "żółć-ąę"} {
		got := prefix(v)
		if v != "" && strings.Contains(got, fmt.Sprintf("%q", v)) {
			t.Errorf("prefix(%q) = %s: shows the whole value", v, got)
		}
		if n := len([]rune(v)); n > 2*prefixLen && strings.Contains(got, v[:len(v)/2]) {
			t.Errorf("prefix(%q) = %s: shows more than %d runes", v, got, prefixLen)
		}
	}
}
