package steps

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/safehttp"
)

// download fetches the source into the artifact path, atomically, and
// returns its size and digest.
func download(ctx context.Context, c *Context) (int64, string, error) {
	cfg := c.Env.Config
	src := c.Job.Descriptor.Artifact.Source
	if err := cfg.CheckSource(src); err != nil {
		return 0, "", deploy.Permanent(err)
	}
	if err := os.MkdirAll(c.WorkDir(), 0o700); err != nil {
		return 0, "", fmt.Errorf("create working directory: %w", err)
	}
	var body io.ReadCloser
	if strings.HasPrefix(src, "file:") {
		// Resolved first for a clear, permanent refusal of a link out of
		// the root; opened through the root, so that a link swapped in
		// between cannot lead out of it either.
		if _, err := cfg.ResolveFileSource(src); err != nil {
			return 0, "", permanentIfCoded(err)
		}
		f, err := cfg.OpenFileSource(src)
		if err != nil {
			return 0, "", permanentIfCoded(err)
		}
		body = f
	} else {
		resp, err := safehttp.Get(ctx, c.Env.HTTP, src, cfg.Artifacts.MaxSize)
		if err != nil {
			return 0, "", ClassifyHTTPError(err)
		}
		if resp.StatusCode != http.StatusOK {
			_ = resp.Body.Close() // unread, and the status is the error
			return 0, "", StatusError("download artifact", resp.StatusCode)
		}
		body = resp.Body
	}
	// Read-only: a failed close loses nothing.
	defer func() { _ = body.Close() }()
	tmp, err := os.CreateTemp(c.WorkDir(), "download-*")
	if err != nil {
		return 0, "", fmt.Errorf("create download file: %w", err)
	}
	// Only a failed download leaves the file here (a good one is renamed
	// away); a leftover is a stray temporary, not a wrong artifact.
	defer func() { _ = os.Remove(tmp.Name()) }()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(body, cfg.Artifacts.MaxSize+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if errors.Is(err, safehttp.ErrTooLarge) {
			return 0, "", deploy.Permanentf("artifact larger than artifacts.max_size (%d bytes)", cfg.Artifacts.MaxSize)
		}
		return 0, "", fmt.Errorf("download artifact: %w", err)
	}
	if n > cfg.Artifacts.MaxSize {
		return 0, "", deploy.Permanentf("artifact larger than artifacts.max_size (%d bytes)", cfg.Artifacts.MaxSize)
	}
	if err := os.Rename(tmp.Name(), c.artifactPath()); err != nil {
		return 0, "", fmt.Errorf("move artifact in place: %w", err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// permanentIfCoded marks a refusal of the configuration (a *deploy.Error:
// outside the root, not found) permanent; a failure to read is retried.
func permanentIfCoded(err error) error {
	var de *deploy.Error
	if errors.As(err, &de) {
		return deploy.Permanent(err)
	}
	return fmt.Errorf("open artifact: %w", err)
}

// ensureArtifact makes sure the verified artifact is in the working
// directory: a deploy resumed on another worker, or after the directory
// was lost, downloads it again and checks it is the same content.
func ensureArtifact(ctx context.Context, c *Context) error {
	if c.SHA256 == "" {
		return deploy.Permanentf("no verified artifact: the artifacts step did not run")
	}
	if sum, err := fileSHA256(c.artifactPath()); err == nil && sum == c.SHA256 {
		return nil
	}
	_, sum, err := download(ctx, c)
	if err != nil {
		return err
	}
	if sum != c.SHA256 {
		return deploy.Permanentf("artifact changed at its source since it was verified (sha256 %s, now %s)", c.SHA256, sum)
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read-only: a failed close loses nothing
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
