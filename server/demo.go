package server

import (
	"crypto/x509"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"manent.dev/manent/internal/democdn"
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

// demoFleetHandler answers for a fleet of the demo's local targets as a load
// balancer in front of them would: GET /demo-fleet/<dir>?max_failing=N looks
// at every target directory under dir that serves a release (it has a
// current link) and answers 503 when more than N of them fail to serve
// current/index.html, else 200. The demo's rollout gates call it: a broken
// release on one canary is within what the fleet absorbs, the same release
// on a whole wave is not, which is what waves are there to catch.
func demoFleetHandler(dir string) http.Handler {
	root := http.Dir(dir)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		maxFailing := 0
		if v := r.URL.Query().Get("max_failing"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				http.Error(w, "max_failing: want a count such as 1", http.StatusBadRequest)
				return
			}
			maxFailing = n
		}
		fleet := path.Clean("/" + r.PathValue("path"))
		serving, failing, err := fleetHealth(root, fleet)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		status := http.StatusOK
		if len(failing) > maxFailing {
			status = http.StatusServiceUnavailable
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, "%d of %d serving targets fail (at most %d tolerated): %s\n",
			len(failing), serving, maxFailing, strings.Join(failing, ", "))
	})
}

// fleetHealth counts the targets under fleet that serve a release and names
// those whose release has no index.html.
func fleetHealth(root http.Dir, fleet string) (serving int, failing []string, err error) {
	d, err := root.Open(fleet)
	if err != nil {
		return 0, nil, err
	}
	entries, err := d.Readdir(-1)
	_ = d.Close() // read-only
	if err != nil {
		return 0, nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, name := range names {
		cur, err := root.Open(path.Join(fleet, name, "current"))
		if err != nil {
			continue // nothing deployed there: not behind the balancer
		}
		_ = cur.Close() // read-only
		serving++
		f, _, ok := openRegular(root, path.Join(fleet, name, "current", "index.html"))
		if !ok {
			failing = append(failing, name)
			continue
		}
		_ = f.Close() // read-only
	}
	return serving, failing, nil
}

// demoCDNDir is where the demo CDN writes its certificate authority, under
// the data directory.
const demoCDNDir = "demo-cdn"

// startDemoCDN serves the demo's CDN (Config.DemoCDN) and returns its
// certificate authority, for HTTP steps to trust. A CDN that cannot start
// (its port is taken) leaves the rest of the demo as it is: the log says
// so, and the demo's cdn-purge step would fail on its connection.
func (s *Server) startDemoCDN(c Config) []*x509.Certificate {
	if c.DemoCDN == "" {
		return nil
	}
	caFile, err := filepath.Abs(filepath.Join(c.DataDir, demoCDNDir, "ca.pem"))
	if err != nil {
		s.log.Warn("the demo CDN is not served: the demo's cdn-purge step will fail", "error", err)
		return nil
	}
	cdn, err := democdn.Start(c.DemoCDN, caFile, s.log)
	if err != nil {
		s.log.Warn("the demo CDN is not served: the demo's cdn-purge step will fail; "+
			"give manent-server dev --demo-cdn-listen another loopback address, and the URLs of cdn-purge in manent.yml the same",
			"error", err)
		return nil
	}
	s.onClose("demo CDN", cdn.Close)
	s.log.Info("demo CDN serving", "url", cdn.URL(), "ca_file", caFile)
	return []*x509.Certificate{cdn.CA()}
}
