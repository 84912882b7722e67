package placeholder

import (
	"fmt"

	"manent.dev/manent/deploy"
)

// maxHeader is the longest header value a request may get, in bytes: 8 KiB
// is what common servers accept for a header line.
const maxHeader = 8 << 10

// CheckHeader holds the value of a header of run.headers to the rules of
// Check, and its literal text to those of a header value: no control
// character but a tab.
func CheckHeader(text string, s Scope) error {
	t, err := parseHeader(text)
	if err != nil {
		return err
	}
	return t.inScope(s)
}

// Header is the value of a header filled with v. No value may bring a CR,
// an LF or any other control character, nor bytes that are not UTF-8: a
// line break would end the header and start another one. A value written
// with text may not be made empty by the values, which a server would read
// as a header without a value.
func Header(text string, v Values) (string, error) {
	t, err := parseHeader(text)
	if err != nil {
		return "", err
	}
	out, err := t.render(v, func(r *ref, val string) (string, error) {
		if why := deploy.UnsafeText(val, ""); why != "" {
			return "", refused("%s: the value holds %s", r.name, why)
		}
		return val, nil
	})
	switch {
	case err != nil:
		return "", err
	case out == "" && text != "":
		return "", refused("the values make the header value empty")
	case len(out) > maxHeader:
		return "", refused("the header value is %d bytes long, more than %d", len(out), maxHeader)
	}
	return out, nil
}

func parseHeader(text string) (*tmpl, error) {
	t, err := parseTemplate(text)
	if err != nil {
		return nil, err
	}
	for _, p := range t.parts {
		if why := deploy.UnsafeText(p.lit, "\t"); why != "" {
			return nil, fmt.Errorf("a header value cannot hold %s", why)
		}
	}
	return t, nil
}
