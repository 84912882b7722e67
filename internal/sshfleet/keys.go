package sshfleet

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// keygen writes a new ed25519 key pair without passphrase at path and
// path.pub, replacing any there.
func keygen(path, comment string) error {
	for _, p := range []string{path, path + ".pub"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove old key: %w", err)
		}
	}
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ssh-keygen %s: %w: %s", path, err, bytes.TrimSpace(out))
	}
	return nil
}

// publicKey reads a .pub file as "<type> <base64>", without its comment.
func publicKey(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read public key: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return "", fmt.Errorf("public key %s: not \"<type> <base64>\"", path)
	}
	return f[0] + " " + f[1], nil
}

// fingerprint is OpenSSH's SHA-256 fingerprint of "<type> <base64>".
func fingerprint(pub string) (string, error) {
	f := strings.Fields(pub)
	if len(f) < 2 {
		return "", fmt.Errorf("public key %q: not \"<type> <base64>\"", pub)
	}
	blob, err := base64.StdEncoding.DecodeString(f[1])
	if err != nil {
		return "", fmt.Errorf("public key: %w", err)
	}
	sum := sha256.Sum256(blob)
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:]), nil
}
