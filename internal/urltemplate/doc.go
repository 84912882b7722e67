// Package urltemplate fills the placeholders of URLs written in
// configuration ({{ .Version }}): Go template syntax limited to a few named
// values, the scheme and host written in full, every value percent-encoded
// so that it stays inside one path segment or query value.
//
// It imports only the standard library.
package urltemplate
