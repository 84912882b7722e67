package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"
)

// Cache-Control of the web interface's files. Vite names every file of
// assets/ after a hash of its content, so a browser may keep one for ever:
// a new build has new names. index.html names them, so it is checked again
// on every load (no-cache revalidates; its ETag makes that a 304).
const (
	cacheImmutable  = "public, max-age=31536000, immutable"
	cacheRevalidate = "no-cache"
)

// assetsDir is where Vite writes the hashed files.
const assetsDir = "assets/"

// encodings are the precompressed variants the build writes beside a file
// (frontend/vite.config.ts), in the order the server prefers them.
var encodings = []struct{ name, suffix string }{
	{"br", ".br"},
	{"gzip", ".gz"},
}

// spaHandler serves the web interface: its files as they are (or a
// precompressed variant the client accepts), and its index.html for every
// other path, so that the SPA's own routes (/deployments/abc, and IDs with
// a dot, /deployments/shop-demo.api) load directly and survive a reload.
func spaHandler(files fs.FS) http.Handler {
	if files == nil {
		return notBuilt()
	}
	index, err := fs.ReadFile(files, "index.html")
	if err != nil {
		return notBuilt()
	}
	sum := sha256.Sum256(index)
	indexTag := `"` + hex.EncodeToString(sum[:16]) + `"`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !getOrHead(w, r) {
			return
		}
		name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
		if name != "" && name != "index.html" {
			st, err := fs.Stat(files, name)
			switch {
			case err == nil && !st.IsDir():
				serveFile(w, r, files, name)
				return
			case err != nil && !errors.Is(err, fs.ErrNotExist):
				http.Error(w, "internal error", http.StatusInternalServerError)
				return
			case isAssetPath(name):
				// A missing asset is a 404, not the page: a browser would
				// try to run HTML as a script.
				http.NotFound(w, r)
				return
			}
		}
		w.Header().Set("Cache-Control", cacheRevalidate)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("ETag", indexTag)
		http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(index))
	})
}

// isAssetPath tells the paths that can only be files: those under assets/
// and a name with an extension at the root (favicon.ico, robots.txt). Every
// route of the SPA has a path of its own first (/deployments/...), so an ID
// with a dot further down is a route, never a file.
func isAssetPath(name string) bool {
	if strings.HasPrefix(name+"/", assetsDir) {
		return true
	}
	return !strings.Contains(name, "/") && path.Ext(name) != ""
}

// serveFile serves name, or its precompressed variant when the client
// accepts one. The type is the file's own, not the variant's.
func serveFile(w http.ResponseWriter, r *http.Request, files fs.FS, name string) {
	h := w.Header()
	if strings.HasPrefix(name, assetsDir) {
		h.Set("Cache-Control", cacheImmutable)
	} else {
		h.Set("Cache-Control", cacheRevalidate)
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	h.Set("Content-Type", ctype)

	served, encoding := name, ""
	varies := false
	for _, e := range encodings {
		if st, err := fs.Stat(files, name+e.suffix); err != nil || st.IsDir() {
			continue
		}
		varies = true
		if encoding == "" && accepts(r.Header.Get("Accept-Encoding"), e.name) {
			served, encoding = name+e.suffix, e.name
		}
	}
	if varies {
		h.Add("Vary", "Accept-Encoding")
	}
	f, err := files.Open(served)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	defer func() { _ = f.Close() }()
	content, ok := f.(io.ReadSeeker)
	if !ok {
		b, err := io.ReadAll(f)
		if err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		content = bytes.NewReader(b)
	}
	if encoding != "" {
		h.Set("Content-Encoding", encoding)
	}
	http.ServeContent(w, r, name, time.Time{}, content)
}

// accepts reports whether an Accept-Encoding header accepts coding with a
// weight above zero, by name or by "*" (RFC 9110, 12.5.3).
func accepts(header, coding string) bool {
	star := false
	for part := range strings.SplitSeq(header, ",") {
		token, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		token = strings.ToLower(strings.TrimSpace(token))
		if token != coding && token != "*" {
			continue
		}
		weighted := weight(params) > 0
		if token == coding {
			return weighted
		}
		star = weighted
	}
	return star
}

// weight is the q parameter of an Accept-Encoding element: 1 without one,
// 0 when it cannot be read.
func weight(params string) float64 {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return 0
		}
		return q
	}
	return 1
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
