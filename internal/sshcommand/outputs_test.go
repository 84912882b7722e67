package sshcommand

import (
	"strconv"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
)

func TestParseOutputs(t *testing.T) {
	declared := map[string]deploy.OutputSpec{"applied": {Pattern: "[0-9]{1,6}"}, "url": {Pattern: "https://[a-z./]+"}}
	secrets := map[string]string{"db-admin": "hunter2-long-secret"}
	tests := []struct {
		name    string
		content string
		outputs map[string]deploy.OutputSpec
		want    map[string]string
		err     string
	}{
		{name: "values keep = and spaces after the first =", content: "url=https://a.example/x\napplied=3",
			want: map[string]string{"url": "https://a.example/x", "applied": "3"}},
		{name: "the pattern is anchored at both ends", content: "applied=12; rm -rf /\n", err: "the value of applied (line 1) does not match its pattern"},
		{name: "an alternation is anchored as a whole", content: "applied=1x\n",
			outputs: map[string]deploy.OutputSpec{"applied": {Pattern: "1|2"}}, err: "does not match its pattern 1|2"},
		{name: "no outputs declared, none written", content: "\n\n", outputs: map[string]deploy.OutputSpec{}, want: map[string]string{}},
		{name: "no outputs declared, one written", content: "applied=1\n", outputs: map[string]deploy.OutputSpec{},
			err: `line 1 sets "applied", which the step does not declare (it declares no outputs)`},
		{name: "an empty key", content: "=1\n", err: "line 1 is not key=value"},
		{name: "a key with spaces is not shown", content: "my key=1\n", err: "line 1 sets a key (not shown: it may be secret)"},
		{name: "a key that is a part of a secret is not shown", content: "hunter2=1\n", err: "line 1 sets a key (not shown: it may be secret)"},
		{name: "a key that holds a secret is not shown", content: "xhunter2-long-secretx=1\n", err: "line 1 sets a key (not shown: it may be secret)"},
		{name: "invalid UTF-8", content: "url=https://a.example/\xff\n", err: "the value of url (line 1) is not valid UTF-8"},
		{name: "a value with a newline cannot be written", content: "applied=1\n2\n", err: "line 2 is not key=value"},
		{name: "a pattern that does not compile", content: "applied=1\n", outputs: map[string]deploy.OutputSpec{"applied": {Pattern: "("}},
			err: "the pattern of output applied does not compile"},
		{name: "over the limit", content: strings.Repeat("a", MaxOutputBytes+1), err: "more than 16384"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outputs := tt.outputs
			if outputs == nil {
				outputs = declared
			}
			got, err := parseOutputs([]byte(tt.content), outputs, secrets)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, %v; want an error that says %q", got, err, tt.err)
				}
				if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "rm -rf") {
					t.Errorf("the error shows what the file holds: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

func TestDecodeHex(t *testing.T) {
	got, err := decodeHex([]string{" 61 3d 0a ff", " 00"})
	if err != nil || string(got) != "a=\n\xff\x00" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := decodeHex([]string{"zz"}); err == nil {
		t.Error("decoded zz")
	}
}

// The finish script compares the file's size with the same limit.
func TestTheScriptsLimitIsMaxOutputBytes(t *testing.T) {
	if maxOutputBytesText != strconv.Itoa(MaxOutputBytes) {
		t.Errorf("maxOutputBytesText %s, MaxOutputBytes %d", maxOutputBytesText, MaxOutputBytes)
	}
}
