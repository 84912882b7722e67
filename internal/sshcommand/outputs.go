package sshcommand

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"manent.dev/manent/deploy"
)

// MaxOutputBytes bounds the file $MANENT_OUTPUT (16 KiB); the finish
// script compares with maxOutputBytesText, the same number.
const (
	MaxOutputBytes     = 16 << 10
	maxOutputBytesText = "16384"
)

// keySyntax is what a key may look like to be named in an error: a line
// that sets anything else may be a value gone astray, which could be
// secret.
var keySyntax = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`)

// OutputError is an output file the step refuses: an undeclared key, a
// value that does not match its pattern, a file too large. It never holds
// a value, and names a key only when it cannot hold a secret of the run.
type OutputError struct{ Message string }

func (e *OutputError) Error() string { return "$MANENT_OUTPUT: " + e.Message }

// parseOutputs reads the key=value lines of $MANENT_OUTPUT: only the keys
// that outputs declares, each once, each value matching its pattern whole
// and valid UTF-8. A key declared and not written is no error: the step
// that reads it fails then, as a missing value does. secrets are the
// values an error must not show.
func parseOutputs(data []byte, outputs map[string]deploy.OutputSpec, secrets map[string]string) (map[string]string, error) {
	if len(data) > MaxOutputBytes {
		return nil, &OutputError{fmt.Sprintf("holds %d bytes, more than %d", len(data), MaxOutputBytes)}
	}
	out := map[string]string{}
	lines := bytes.Split(data, []byte("\n"))
	for i, raw := range lines {
		line := string(bytes.TrimSuffix(raw, []byte("\r")))
		if line == "" {
			continue
		}
		n := i + 1
		key, value, ok := strings.Cut(line, "=")
		if !ok || key == "" {
			return nil, &OutputError{fmt.Sprintf("line %d is not key=value", n)}
		}
		spec, declared := outputs[key]
		if !declared {
			return nil, &OutputError{fmt.Sprintf("line %d sets %s, which the step does not declare (%s)",
				n, showKey(key, secrets), declaredKeys(outputs))}
		}
		if _, twice := out[key]; twice {
			return nil, &OutputError{fmt.Sprintf("line %d sets %s again", n, key)}
		}
		if !utf8.ValidString(value) {
			return nil, &OutputError{fmt.Sprintf("the value of %s (line %d) is not valid UTF-8", key, n)}
		}
		re, err := deploy.CompilePattern(spec.Pattern)
		if err != nil {
			return nil, deploy.Permanentf("the pattern of output %s does not compile: %v", key, err)
		}
		if !re.MatchString(value) {
			return nil, &OutputError{fmt.Sprintf("the value of %s (line %d) does not match its pattern %s", key, n, spec.Pattern)}
		}
		out[key] = value
	}
	return out, nil
}

// showKey is key as an error may show it: a key that could be a secret
// gone astray (one that does not even look like a key, or that holds a
// secret of the run or a part of one) is not shown.
func showKey(key string, secrets map[string]string) string {
	hidden := "a key (not shown: it may be secret)"
	if !keySyntax.MatchString(key) {
		return hidden
	}
	for _, v := range secrets {
		if v != "" && (strings.Contains(key, v) || strings.Contains(v, key)) {
			return hidden
		}
	}
	return fmt.Sprintf("%q", key)
}

func declaredKeys(outputs map[string]deploy.OutputSpec) string {
	if len(outputs) == 0 {
		return "it declares no outputs"
	}
	keys := make([]string, 0, len(outputs))
	for k := range outputs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return "it declares " + strings.Join(keys, ", ")
}

// decodeHex reads od -An -v -tx1's lines back into bytes.
func decodeHex(lines []string) ([]byte, error) {
	var out []byte
	for _, l := range lines {
		for _, f := range strings.Fields(l) {
			b, err := hex.DecodeString(f)
			if err != nil || len(b) != 1 {
				return nil, errors.New("od printed something else than bytes in hexadecimal")
			}
			out = append(out, b[0])
		}
	}
	return out, nil
}
