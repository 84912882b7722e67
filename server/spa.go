package server

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// spaHandler serves the web interface: its files as they are, and its
// index.html for every other path, so that the SPA's own routes
// (/deployments/abc) survive a reload.
func spaHandler(files fs.FS) http.Handler {
	if files == nil {
		return notBuilt()
	}
	if _, err := fs.Stat(files, "index.html"); err != nil {
		return notBuilt()
	}
	fileServer := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !getOrHead(w, r) {
			return
		}
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if name != "" {
			if st, err := fs.Stat(files, name); err == nil && !st.IsDir() {
				fileServer.ServeHTTP(w, r)
				return
			} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
				http.Error(w, "internal error", http.StatusInternalServerError)
				return
			}
			if path.Ext(name) != "" {
				// A missing asset is a 404, not the page: a browser would try
				// to run HTML as a script.
				http.NotFound(w, r)
				return
			}
		}
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, files, "index.html")
	})
}

func getOrHead(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return false
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	return true
}

func notBuilt() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if getOrHead(w, r) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, notBuiltPage)
		}
	})
}

// notBuiltPage is served when the binary was built without the web
// interface (frontend/dist had no index.html).
const notBuiltPage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>manent</title></head>
<body>
  <h1>manent</h1>
  <p>The web interface is not built into this server (build frontend/ before the binary).</p>
  <p>The API is available: GraphQL at <a href="/graphql"><code>/graphql</code></a>, REST at
    <code>/api/v1/deployments</code>, and the <code>manent</code> CLI.</p>
</body>
</html>
`
