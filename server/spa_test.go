package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"testing/fstest"
)

const (
	testIndex = `<!doctype html><script type="module" src="/assets/index-Ab12.js"></script>`
	testJS    = "console.log('manent');\n"
	// The server never decodes a variant: the .br bytes stand for what the
	// build's brotli encoder wrote.
	testJSBrotli = "\x1b\x16\x00brotli of index-Ab12.js"
	testCSS      = "body{margin:0}\n"
)

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := io.WriteString(zw, s); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// builtSPA is what `npm run build` leaves in frontend/dist: index.html, the
// hashed assets with their variants (the CSS has a gzip one only, the
// small chunk none), and a file of public/.
func builtSPA(t *testing.T) fstest.MapFS {
	return fstest.MapFS{
		"index.html":                   {Data: []byte(testIndex)},
		"assets/index-Ab12.js":         {Data: []byte(testJS)},
		"assets/index-Ab12.js.br":      {Data: []byte(testJSBrotli)},
		"assets/index-Ab12.js.gz":      {Data: gzipped(t, testJS)},
		"assets/index-Cd34.css":        {Data: []byte(testCSS)},
		"assets/index-Cd34.css.gz":     {Data: gzipped(t, testCSS)},
		"assets/ReleasePage-Ef56.js":   {Data: []byte("export{}")},
		"robots.txt":                   {Data: []byte("User-agent: *\n")},
		"assets/fonts/inter-Gh78.woff": {Data: []byte("wOFF")},
	}
}

func serveSPA(t *testing.T, h http.Handler, method, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestSPARoutesAndFiles(t *testing.T) {
	h := spaHandler(builtSPA(t))
	tests := []struct {
		name, path  string
		status      int
		body        string
		cache, ctyp string
	}{
		{"root", "/", 200, testIndex, "no-cache", "text/html; charset=utf-8"},
		{"a route", "/deployments/abc", 200, testIndex, "no-cache", "text/html; charset=utf-8"},
		{"a release member's ID has a dot", "/deployments/shop-demo.api", 200, testIndex, "no-cache", "text/html; charset=utf-8"},
		{"a release with a dot", "/releases/shop.v2", 200, testIndex, "no-cache", "text/html; charset=utf-8"},
		{"an application with a dot", "/environments/demo/hello.web/prod", 200, testIndex, "no-cache", "text/html; charset=utf-8"},
		{"a route with a query", "/deployments?state=ERROR", 200, testIndex, "no-cache", "text/html; charset=utf-8"},
		{"index.html by name", "/index.html", 200, testIndex, "no-cache", "text/html; charset=utf-8"},
		{"a hashed asset", "/assets/index-Ab12.js", 200, testJS, "public, max-age=31536000, immutable", "text/javascript; charset=utf-8"},
		{"a hashed stylesheet", "/assets/index-Cd34.css", 200, testCSS, "public, max-age=31536000, immutable", "text/css; charset=utf-8"},
		{"a nested asset", "/assets/fonts/inter-Gh78.woff", 200, "wOFF", "public, max-age=31536000, immutable", "font/woff"},
		{"a file of public/ is not hashed", "/robots.txt", 200, "User-agent: *\n", "no-cache", "text/plain; charset=utf-8"},
		{"a missing asset", "/assets/index-Old0.js", 404, "404 page not found\n", "", "text/plain; charset=utf-8"},
		{"a missing asset without extension", "/assets/nothing", 404, "404 page not found\n", "", "text/plain; charset=utf-8"},
		{"the assets folder", "/assets/", 404, "404 page not found\n", "", "text/plain; charset=utf-8"},
		{"a missing file at the root", "/favicon.ico", 404, "404 page not found\n", "", "text/plain; charset=utf-8"},
		{"a path out of the root", "/../../etc/passwd", 200, testIndex, "no-cache", "text/html; charset=utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := serveSPA(t, h, "GET", tt.path)
			if w.Code != tt.status || w.Body.String() != tt.body {
				t.Fatalf("GET %s: %d %q, want %d %q", tt.path, w.Code, w.Body.String(), tt.status, tt.body)
			}
			if got := w.Header().Get("Cache-Control"); got != tt.cache {
				t.Errorf("Cache-Control %q, want %q", got, tt.cache)
			}
			if got := w.Header().Get("Content-Type"); got != tt.ctyp {
				t.Errorf("Content-Type %q, want %q", got, tt.ctyp)
			}
			if got := w.Header().Get("Content-Encoding"); got != "" {
				t.Errorf("Content-Encoding %q without Accept-Encoding", got)
			}
			if got := w.Header().Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q", got)
			}
		})
	}
}

func TestSPAPrecompressed(t *testing.T) {
	h := spaHandler(builtSPA(t))
	tests := []struct {
		path, accept string
		encoding     string
		vary         bool
	}{
		{"/assets/index-Ab12.js", "br", "br", true},
		{"/assets/index-Ab12.js", "gzip, deflate, br, zstd", "br", true},
		{"/assets/index-Ab12.js", "gzip", "gzip", true},
		{"/assets/index-Ab12.js", "br;q=0, gzip;q=0.8", "gzip", true},
		{"/assets/index-Ab12.js", "BR", "br", true},
		{"/assets/index-Ab12.js", "*", "br", true},
		{"/assets/index-Ab12.js", "br;q=0, *", "gzip", true},
		{"/assets/index-Ab12.js", "*;q=0", "", true},
		{"/assets/index-Ab12.js", "identity", "", true},
		{"/assets/index-Ab12.js", "deflate", "", true},
		{"/assets/index-Ab12.js", "gzip;q=bad", "", true},
		{"/assets/index-Ab12.js", "", "", true},
		// The stylesheet has no brotli variant: gzip, or nothing.
		{"/assets/index-Cd34.css", "br, gzip", "gzip", true},
		{"/assets/index-Cd34.css", "br", "", true},
		// A chunk too small to gain from compression has no variant.
		{"/assets/ReleasePage-Ef56.js", "br, gzip", "", false},
		// index.html is not precompressed: it is small and revalidated.
		{"/deployments/shop-demo.api", "br, gzip", "", false},
	}
	for _, tt := range tests {
		w := serveSPA(t, h, "GET", tt.path, "Accept-Encoding", tt.accept)
		if w.Code != 200 {
			t.Fatalf("%s (%q): %d", tt.path, tt.accept, w.Code)
		}
		if got := w.Header().Get("Content-Encoding"); got != tt.encoding {
			t.Errorf("%s (Accept-Encoding %q): Content-Encoding %q, want %q", tt.path, tt.accept, got, tt.encoding)
		}
		if got := w.Header().Get("Vary") == "Accept-Encoding"; got != tt.vary {
			t.Errorf("%s (Accept-Encoding %q): Vary %q", tt.path, tt.accept, w.Header().Get("Vary"))
		}
		if got := w.Header().Get("Content-Type"); tt.path == "/assets/index-Ab12.js" && got != "text/javascript; charset=utf-8" {
			t.Errorf("%s (%q): Content-Type %q: the type is the file's, not the variant's", tt.path, tt.accept, got)
		}
	}

	// What is served is the variant's bytes, and they are the file.
	w := serveSPA(t, h, "GET", "/assets/index-Ab12.js", "Accept-Encoding", "br")
	if w.Body.String() != testJSBrotli {
		t.Errorf("brotli body %q", w.Body.String())
	}
	w = serveSPA(t, h, "GET", "/assets/index-Ab12.js", "Accept-Encoding", "gzip")
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(zr); err != nil || string(b) != testJS {
		t.Errorf("gzip body decodes to %q, %v", b, err)
	}
	if got := w.Header().Get("Content-Length"); got != "" && got != strconv.Itoa(len(gzipped(t, testJS))) {
		t.Errorf("Content-Length %s is not the variant's", got)
	}
}

func TestSPARevalidatesIndex(t *testing.T) {
	h := spaHandler(builtSPA(t))
	first := serveSPA(t, h, "GET", "/activity")
	tag := first.Header().Get("ETag")
	if tag == "" {
		t.Fatal("index.html has no ETag: no-cache would download it again on every load")
	}
	again := serveSPA(t, h, "GET", "/deployments/shop-demo.api", "If-None-Match", tag)
	if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Errorf("revalidation: %d %q", again.Code, again.Body.String())
	}
	other := spaHandler(fstest.MapFS{"index.html": {Data: []byte(testIndex + "<!-- new build -->")}})
	if w := serveSPA(t, other, "GET", "/activity", "If-None-Match", tag); w.Code != 200 || w.Header().Get("ETag") == tag {
		t.Errorf("a new build answers %d with ETag %s", w.Code, w.Header().Get("ETag"))
	}

	head := serveSPA(t, h, "HEAD", "/assets/index-Ab12.js", "Accept-Encoding", "br")
	if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Encoding") != "br" || head.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Errorf("HEAD: %d %q %v", head.Code, head.Body.String(), head.Header())
	}
	if w := serveSPA(t, h, "POST", "/assets/index-Ab12.js"); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", w.Code)
	}
}
