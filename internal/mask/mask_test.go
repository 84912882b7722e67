package mask

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func TestNewRefusesShortSecrets(t *testing.T) {
	tests := []struct {
		name    string
		secrets map[string]string
		refused []string // the names the error gives
	}{
		{"none", nil, nil},
		{"empty map", map[string]string{}, nil},
		{"8 bytes", map[string]string{"api-key": "12345678"}, nil},
		{"7 bytes", map[string]string{"api-key": "1234567"}, []string{`"api-key"`}},
		{"empty value", map[string]string{"empty": ""}, []string{`"empty"`}},
		// A final line break (a file's, a vault value's) is not the secret:
		// what a script prints is the 7 bytes before it.
		{"7 bytes and a line break", map[string]string{"pin": "1234567\r\n"}, []string{`"pin"`}},
		{"two of three", map[string]string{"b-short": "abc", "ok": "long enough", "a-short": "xyz"},
			[]string{`"a-short", "b-short"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New(tt.secrets)
			if len(tt.refused) == 0 {
				if err != nil || m == nil {
					t.Fatalf("New = %v, %v; want a masker", m, err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrTooShort) {
				t.Fatalf("New = %v, %v; want ErrTooShort", m, err)
			}
			for _, name := range tt.refused {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("error %q does not name %s", err, name)
				}
			}
			for _, v := range tt.secrets {
				if v = strings.TrimSpace(v); v != "" && strings.Contains(err.Error(), v) {
					t.Errorf("error %q shows the value %q", err, v)
				}
			}
		})
	}
}

func TestString(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString
	tests := []struct {
		name    string
		secrets map[string]string
		in      string
		want    string
	}{
		{"no secret", nil, "nothing to hide", "nothing to hide"},
		{"text without the secret stays", map[string]string{"k": "hunter2hunter2"},
			`a %41 \u0041 \x41 \n + = hunter2hunter hunter2-hunter2`, `a %41 \u0041 \x41 \n + = hunter2hunter hunter2-hunter2`},
		{"every occurrence", map[string]string{"k": "hunter2hunter2"},
			"hunter2hunter2 and hunter2hunter2", "*** and ***"},
		{"one secret the start of another: the longest wins",
			map[string]string{"short": "password1234", "long": "password1234567890"},
			"x password1234567890 y password1234 z", "x *** y *** z"},
		{"overlapping secrets: nothing of either shows",
			map[string]string{"a": "alpha-bravo-1", "b": "bravo-1-charlie"},
			"[alpha-bravo-1-charlie]", "[***]"},
		{"mixed-case URL escapes", map[string]string{"k": "a/b c+d=e&f"},
			"q=a%2Fb+c%2bd%3De%26f", "q=***"},
		{"JSON escapes of every kind", map[string]string{"k": "say \"hi\" <b>\\o/</b>"},
			`{"m":"say \"hi\" \u003cb\u003e\\o\/\u003C/b\u003E"}`, `{"m":"***"}`},
		{"a surrogate pair", map[string]string{"k": "emoji-😀-secret"},
			`"emoji-\ud83d\ude00-secret"`, `"***"`},
		{"\\ufffd for a byte that is not UTF-8", map[string]string{"k": "bin\xff\xfeary-secret"},
			`"bin\ufffd\ufffdary-secret"`, `"***"`},
		{"% of the secret written as it is and escaped", map[string]string{"k": "100%%%%%sure"},
			"a 100%%25%%25%sure b / 100%25%25%25%25%25sure", "a *** b / ***"},
		{"\\ of the secret written as it is and escaped", map[string]string{"k": `C:\\\\\\\\x`},
			`[C:\\\\\\\\\\\\x]`, `[***]`},
		{"base64 of the secret alone", map[string]string{"k": "hunter2hunter2"},
			"Authorization: Basic " + b64([]byte("hunter2hunter2")), "Authorization: Basic ***"},
		{"base64 of user:secret", map[string]string{"k": "hunter2hunter2"},
			"Basic " + b64([]byte("admin:hunter2hunter2")), "Basic YWRtaW46***"},
		{"base64 of the secret two bytes into a group", map[string]string{"k": "hunter2hunter2"},
			"Basic " + b64([]byte("root:hunter2hunter2")), "Basic cm9vdDp***"},
		{"a value with a final line break, in base64 without it", map[string]string{"k": "token-value-1\n"},
			"echo " + b64([]byte("token-value-1")) + " | base64 -d", "echo *** | base64 -d"},
		{"each line of a key", map[string]string{"key": "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nshort\n-----END KEY-----\n"},
			"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC and short", "*** and short"},
		{"a multi-line secret JSON-escaped", map[string]string{"key": "line one\nline two"},
			`"line one\nline two"`, `"***"`},
		{"masking again what masking brought together", map[string]string{"k": "ab***cdefgh"},
			"abab***cdefghcdefgh", "***"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New(tt.secrets)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// A Masker is used by the stdout and the stderr of a run at once.
func TestStringConcurrent(t *testing.T) {
	m, err := New(map[string]string{"k": "hunter2hunter2"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string)
	for range 4 {
		go func() {
			got := ""
			for range 200 {
				got = m.String(`x "hunter2\u0068unter2" y`)
			}
			done <- got
		}()
	}
	for range 4 {
		if got := <-done; got != `x "***" y` {
			t.Errorf("String = %q", got)
		}
	}
}
