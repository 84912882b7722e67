// Package frontend embeds the built web interface (frontend/dist) so that
// manent-server serves it without files beside the binary. The build output
// is not committed: dist holds only .gitkeep in a fresh checkout (go:embed
// needs the folder), and the server then serves a page saying the web
// interface is not built.
//
// It imports only the standard library.
package frontend
