package server

import (
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// demoHandler serves the files under dir read-only, for the demo (see
// Config.DemoTargets): a directory answers its index.html, and anything
// else that is not a regular file is not found, so that a health check of
// a release without index.html fails as a real service's would. No
// listings, no redirects.
func demoHandler(dir string) http.Handler {
	root := http.Dir(dir)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := path.Clean("/" + strings.TrimPrefix(r.URL.Path, "/demo/"))
		f, info, ok := openRegular(root, name)
		if !ok {
			f, info, ok = openRegular(root, path.Join(name, "index.html"))
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		defer func() { _ = f.Close() }() // read-only
		http.ServeContent(w, r, info.Name(), info.ModTime(), f)
	})
}

// openRegular opens name if it is a regular file.
func openRegular(root http.Dir, name string) (http.File, fs.FileInfo, bool) {
	f, err := root.Open(name)
	if err != nil {
		return nil, nil, false
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		_ = f.Close() // read-only
		return nil, nil, false
	}
	return f, info, true
}
