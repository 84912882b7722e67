// Package urltemplate fills the placeholders of URLs written in
// configuration ({{ .Version }}): Go template syntax limited to a few named
// values, the scheme written in full, the host too unless the template's
// caller names the fields that may stand for it (a target's host and port,
// each checked to be one), every other value percent-encoded so that it
// stays inside one path segment or query value.
//
// It imports only the standard library.
package urltemplate
