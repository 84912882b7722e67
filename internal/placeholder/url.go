package placeholder

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"manent.dev/manent/deploy"
)

// maxURL is the longest URL a request may get, in bytes: 8 KiB is what
// common servers and proxies accept in a request line.
const maxURL = 8 << 10

// where says in which part of a URL a placeholder stands.
type where int

const (
	inPath where = iota
	inQuery
)

// urlRef is where one placeholder of a URL stands: for the path, the index
// of its segment ("/a/b" splits into "", "a", "b").
type urlRef struct {
	where   where
	segment int
}

// urlLayout is a URL template: its parts, where each placeholder stands,
// and the scheme and host it was written with.
type urlLayout struct {
	t            *tmpl
	refs         []urlRef
	scheme, host string
}

// CheckURL holds the URL of a request to the rules of the specification:
// the scheme and the host (and port) written in full, with nothing before
// the path coming from a placeholder; https only, unless allowHTTP; no user
// info; placeholders in path segments and in query values only, never in
// a query key (a value cannot add a parameter) nor in the fragment, each
// one in s. The literal text must be a URL as it is sent: characters
// outside RFC 3986 are written percent-encoded.
func CheckURL(text string, s Scope, allowHTTP bool) error {
	l, err := parseURL(text)
	if err != nil {
		return err
	}
	if l.scheme == "http" && !allowHTTP {
		return errors.New("the URL must use https (http needs pipeline.custom.allow_http)")
	}
	return l.t.inScope(s)
}

// URL is text filled with v. Every value is percent-encoded, all but
// letters, digits and "-._~", so it stays inside its path segment or query
// value; a value may not hold a control character, bytes that are not
// UTF-8, make its path segment empty, or make it "." or ".." (also once
// decoded, as a server may decode more than once). The scheme, host and
// port are those written: the URL's own checks are made again, since the
// text may come from a stored plan rather than from CheckURL.
func URL(text string, v Values) (string, error) {
	l, err := parseURL(text)
	if err != nil {
		return "", err
	}
	return l.render(v)
}

// parseURL parses text and finds where each placeholder stands.
func parseURL(text string) (*urlLayout, error) {
	t, err := parseTemplate(text)
	if err != nil {
		return nil, err
	}
	l := &urlLayout{t: t}
	// sample is text with a value valid anywhere for each placeholder: it
	// shows where the next placeholder stands and, at the end, whether the
	// text is a URL.
	var sample strings.Builder
	for _, p := range t.parts {
		if p.ref == nil {
			if err := checkURLText(p.lit, p.pos); err != nil {
				return nil, err
			}
			sample.WriteString(p.lit)
			continue
		}
		at, err := placeIn(sample.String(), p.ref)
		if err != nil {
			return nil, err
		}
		l.refs = append(l.refs, at)
		sample.WriteString("x")
	}
	u, err := url.Parse(sample.String())
	switch {
	case err != nil, u.Opaque != "", u.Scheme != "http" && u.Scheme != "https", u.Hostname() == "":
		return nil, errors.New("the URL must be absolute, https://host/path")
	case u.User != nil:
		return nil, errors.New("the URL cannot hold user info: use run.auth")
	case !strings.HasPrefix(sample.String(), u.Scheme+"://"):
		return nil, errors.New("write the scheme of the URL in lower case")
	}
	l.scheme, l.host = u.Scheme, u.Host
	return l, nil
}

// placeIn says where a placeholder after before stands.
func placeIn(before string, r *ref) (urlRef, error) {
	_, rest, ok := strings.Cut(before, "://")
	end := strings.IndexAny(rest, "/?#")
	if !ok || end < 0 {
		return urlRef{}, fmt.Errorf("%s: a placeholder cannot stand in the scheme, the host or the port: write them in full", r.name)
	}
	rest = rest[end:]
	if strings.Contains(rest, "#") {
		return urlRef{}, fmt.Errorf("%s: a placeholder cannot stand in the fragment", r.name)
	}
	if _, query, ok := strings.Cut(rest, "?"); ok {
		if i := strings.LastIndexByte(query, '&'); i >= 0 {
			query = query[i+1:]
		}
		if !strings.Contains(query, "=") {
			return urlRef{}, fmt.Errorf("%s: a placeholder cannot stand in the name of a query parameter, only in its value (?name={{ ... }})", r.name)
		}
		return urlRef{where: inQuery}, nil
	}
	return urlRef{where: inPath, segment: strings.Count(rest, "/")}, nil
}

// checkURLText refuses literal text that a client would send otherwise than
// written: a character outside RFC 3986, or a "%" not followed by two hex
// digits. The text starts at byte pos of the URL.
func checkURLText(s string, pos int) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return fmt.Errorf("the URL has a %% at byte %d that is not followed by two hex digits", pos+i)
			}
		case unreserved(c) || strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0:
		default:
			return fmt.Errorf("the URL has %s at byte %d: write it percent-encoded", describeByte(s, i), pos+i)
		}
	}
	return nil
}

func describeByte(s string, i int) string {
	if s[i] == ' ' {
		return "a space"
	}
	if why := deploy.UnsafeText(s[i:i+1], ""); why != "" || s[i] >= 0x80 {
		return fmt.Sprintf("byte \\x%02x", s[i])
	}
	return fmt.Sprintf("%q", string(s[i]))
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// unreserved reports the characters of RFC 3986 that never need encoding.
func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// encode percent-encodes every byte of s but the unreserved ones: what
// remains cannot end a segment, a query value or the path.
func encode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if unreserved(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0xf])
	}
	return b.String()
}

func (l *urlLayout) render(v Values) (string, error) {
	out, err := l.t.render(v, func(r *ref, val string) (string, error) {
		if why := deploy.UnsafeText(val, ""); why != "" {
			return "", refused("%s: the value holds %s", r.name, why)
		}
		return encode(val), nil
	})
	if err != nil {
		return "", err
	}
	if len(out) > maxURL {
		return "", refused("the URL is %d bytes long, more than %d", len(out), maxURL)
	}
	path := urlPath(out)
	segments := strings.Split(path, "/")
	i := 0
	for _, p := range l.t.parts {
		if p.ref == nil {
			continue
		}
		at := l.refs[i]
		i++
		if at.where != inPath {
			continue
		}
		if at.segment >= len(segments) {
			return "", refused("the values change the shape of the URL")
		}
		switch seg := segments[at.segment]; {
		case seg == "":
			return "", refused("%s: the values make a path segment empty", p.ref.name)
		case dotSegment(seg):
			return "", refused("%s: the values make a path segment \".\" or \"..\"", p.ref.name)
		}
	}
	// What the client will send must be what was built: same scheme and
	// host, the path byte for byte (so no encoded "/" is read as a slash).
	u, err := url.Parse(out)
	if err != nil || u.Scheme != l.scheme || u.Host != l.host || u.EscapedPath() != path {
		return "", refused("the values change the shape of the URL")
	}
	return out, nil
}

// urlPath is the path of an absolute URL whose authority holds no "/", "?"
// or "#".
func urlPath(s string) string {
	_, rest, _ := strings.Cut(s, "://")
	start := strings.IndexAny(rest, "/?#")
	if start < 0 {
		return ""
	}
	rest = rest[start:]
	if end := strings.IndexAny(rest, "?#"); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

// maxDecode is how many times a server is assumed to decode a path at most.
const maxDecode = 4

// dotSegment reports whether seg, decoded up to maxDecode times, is or holds
// a "." or ".." segment (split at "/" or "\", which some servers also take
// for a separator), also with path parameters: Tomcat, Jetty and Spring
// drop ";..." from a segment before they resolve dot segments, so that
// /zones/..;x=1/purge is /purge to them.
// DotSegment reports whether seg (a URL path, or a part of one) holds a .
// or .. segment as a lenient server reads it: split on / and \, a path
// parameter (;…) dropped, percent-decoded again and again. Other checks of
// URLs that must stay under a prefix (descriptor_policy.gate_urls) use it.
func DotSegment(seg string) bool { return dotSegment(seg) }

func dotSegment(seg string) bool {
	for range maxDecode + 1 {
		for _, piece := range strings.FieldsFunc(seg, func(r rune) bool { return r == '/' || r == '\\' }) {
			piece, _, _ = strings.Cut(piece, ";")
			if piece == "." || piece == ".." {
				return true
			}
		}
		decoded := decodeOnce(seg)
		if decoded == seg {
			return false
		}
		seg = decoded
	}
	return false
}

// decodeOnce is s with every "%" and two hex digits decoded, as a lenient
// server decodes it: a "%" without them stays as it is.
func decodeOnce(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
