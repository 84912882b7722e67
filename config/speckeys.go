package config

import (
	"path/filepath"
	"strings"
)

// keyRefProblem says what is wrong with a reference of
// pipeline.custom.spec_key_refs, "" if nothing. A key must be out of reach
// of every secret reference an environment configuration may write (see
// refProblem): an env: variable without secrets.env_prefix, or a file:
// outside secrets.file_root (a relative one is relative to manent.yml).
// This checks what is written, before the paths are resolved; the server
// checks again with symbolic links resolved when it reads the keys
// (secrets.Keys).
func (c *Config) keyRefProblem(ref string) string {
	scheme, rest, _ := strings.Cut(ref, ":")
	switch scheme {
	case "env":
		if !envVarPattern.MatchString(rest) {
			return "env: must name an environment variable"
		}
		if strings.HasPrefix(rest, c.Secrets.EnvPrefix) {
			return "env: a key must not start with " + c.Secrets.EnvPrefix +
				" (secrets.env_prefix): environment configurations may read those variables"
		}
	case "file":
		if rest == "" || strings.ContainsRune(rest, 0) {
			return "file: must name a file"
		}
		if inside(filepath.Clean(c.resolve(c.Secrets.FileRoot)), filepath.Clean(c.resolve(rest))) {
			return "file: a key must be outside secrets.file_root, where environment configurations read their secrets " +
				"(give secrets.file_root a directory of its own; a relative key path is relative to manent.yml)"
		}
	default:
		return "must be env:NAME or file:path"
	}
	return ""
}
