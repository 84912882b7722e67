package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// post sends body to path on the rig's server as the CI token and returns
// the answer.
func (r *rig) post(path, contentType string, body []byte) ([]byte, int) {
	r.t.Helper()
	return r.postAs(tokenCI, path, contentType, body)
}

// postAs is post with another token; no Content-Type when contentType is "".
func (r *rig) postAs(token, path, contentType string, body []byte) ([]byte, int) {
	r.t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.srv.URL()+path, bytes.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatalf("POST %s: %v", path, err)
	}
	return b, resp.StatusCode
}

type fieldError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// TestSourcesOutsideTheFileRootRefusedAtSubmit: check 3 of the spec refuses
// a file: source outside artifacts.file_root, and any absolute one, before
// anything is stored, the
// same way through the CLI (exit 2), REST (422) and GraphQL (UNPROCESSABLE),
// each naming artifact.source.
func TestSourcesOutsideTheFileRootRefusedAtSubmit(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "qa", "deploy", "activation"}, maxRecovery: 3})
	r.env("staging", "plugin: local\ntargets: [{path: targets/hello}]\n")
	r.srv.start()
	outside := "is outside artifacts.file_root"
	// An absolute path has one answer wherever it points, so that none
	// tells where the root is.
	absolute := "is an absolute path: file: sources are names under artifacts.file_root"
	for i, tt := range []struct{ source, problem string }{
		{"file:../../etc/passwd", outside},
		{"file:../../../../etc/passwd", outside},
		{"file:///etc/passwd", absolute},
		{"file://" + filepath.Join(r.dir, "artifacts", "hello-1.0.0.tar.gz"), absolute},
	} {
		source, want := tt.source, fieldError{Path: "artifact.source", Message: tt.problem}
		t.Run(source, func(t *testing.T) {
			id := fmt.Sprintf("outside-%d", i)
			path := r.descriptorFrom(id, "staging", "1.0.0", source, "")
			for _, cmd := range []string{"deploy", "validate"} {
				_, errOut, code := r.manent(tokenCI, cmd, "-f", path)
				if code != 2 || !strings.Contains(errOut, want.Path+": "+want.Message) {
					t.Errorf("manent %s: exit %d, want 2 naming %s\n%s", cmd, code, want.Path, errOut)
				}
			}

			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			answer, status := r.post("/api/v1/deployments", "application/yaml", body)
			var rest struct {
				Error struct {
					Code   string       `json:"code"`
					Errors []fieldError `json:"errors"`
				} `json:"error"`
			}
			if err := json.Unmarshal(answer, &rest); err != nil || status != http.StatusUnprocessableEntity ||
				rest.Error.Code != "UNPROCESSABLE" || !slices.Equal(rest.Error.Errors, []fieldError{want}) {
				t.Errorf("REST: %d %s (%v), want 422 UNPROCESSABLE on %s", status, answer, err, want.Path)
			}

			query, err := json.Marshal(map[string]any{
				"query":     `mutation($d: String!) { submitDeployment(descriptor: $d) { deployment { id } } }`,
				"variables": map[string]string{"d": string(body)},
			})
			if err != nil {
				t.Fatal(err)
			}
			answer, status = r.post("/graphql", "application/json", query)
			var gql struct {
				Errors []struct {
					Extensions struct {
						Code   string       `json:"code"`
						Errors []fieldError `json:"errors"`
					} `json:"extensions"`
				} `json:"errors"`
			}
			if err := json.Unmarshal(answer, &gql); err != nil || len(gql.Errors) != 1 ||
				gql.Errors[0].Extensions.Code != "UNPROCESSABLE" || !slices.Equal(gql.Errors[0].Extensions.Errors, []fieldError{want}) {
				t.Errorf("GraphQL: %d %s (%v), want UNPROCESSABLE on %s", status, answer, err, want.Path)
			}

			if _, status := r.get("/api/v1/deployments/" + id); status != http.StatusNotFound {
				t.Errorf("GET the refused deploy: %d, want 404: nothing stored", status)
			}
		})
	}
}

// TestManyDirectoriesRefusedAtQA: the 150,000-directory archive of the
// issue (some 700 KB compressed) fails its deploy at qa, with the limit to
// raise named, and the target is never written.
func TestManyDirectoriesRefusedAtQA(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "qa", "deploy", "activation"}, maxRecovery: 3})
	r.env("staging", "plugin: local\ntargets: [{path: targets/hello}]\n")
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for i := range 150_000 {
		if err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("d%06d/", i), Mode: 0o755, Typeflag: tar.TypeDir}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(r.dir, "artifacts", "dirs.tar.gz"), buf.String())
	r.srv.start()

	path := r.descriptorFrom("many-dirs", "staging", "6.6.6", "file:dirs.tar.gz", "")
	out, errOut, code := r.manent(tokenCI, "deploy", "-f", path, "-o", "json", "--timeout", "2m")
	if code != 1 {
		t.Fatalf("manent deploy: exit %d, want 1 (the deploy failed)\n%s\n%s", code, out, errOut)
	}
	var st deployStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status JSON: %v\n%s", err, out)
	}
	if st.State != "ERROR" || !strings.Contains(st.errorText(), "more than 100000 entries") ||
		!strings.Contains(st.errorText(), "artifacts.max_entries") {
		t.Errorf("state %s, error %q; want ERROR naming artifacts.max_entries", st.State, st.errorText())
	}
	for _, s := range st.Steps {
		if s.Name == "qa" && (s.State != "ERROR" || s.Attempts != 1) {
			t.Errorf("qa: %s after %d attempts, want ERROR at once", s.State, s.Attempts)
		}
		if s.Name == "deploy" && s.State == "SUCCESS" {
			t.Errorf("deploy ran")
		}
	}
	if _, err := os.Stat(r.target("targets/hello")); !os.IsNotExist(err) {
		t.Errorf("the target directory: %v, want it never created", err)
	}
}
