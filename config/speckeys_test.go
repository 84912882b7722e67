package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"manent.dev/manent/config"
)

// TestSpecKeysOutsideTheSecretsOfEnvironmentConfigurations: an environment
// configuration, which an application team writes, names its secrets with
// env: variables of secrets.env_prefix and files of secrets.file_root. A
// signing key in that namespace could be named as one of its secrets
// ({name: db-admin, ref: "env:MANENT_SECRET_SPEC_KEY"}) and reach the
// team's targets through a command step: such a key is refused at
// start-up; a key outside it cannot be named by any environment
// configuration.
func TestSpecKeysOutsideTheSecretsOfEnvironmentConfigurations(t *testing.T) {
	dir := t.TempDir()
	parse := func(secrets, keys string) (*config.Config, error) {
		return config.Parse([]byte(secrets+"pipeline:\n  custom:\n    spec_key_refs: ["+keys+"]\n  steps:\n"+
			"    - {name: artifacts, mode: mandatory}\n    - {name: deploy, mode: mandatory}\n"), dir)
	}
	refused := []struct{ name, secrets, key, want string }{
		{name: "a variable of secrets.env_prefix", key: `"env:MANENT_SECRET_SPEC_KEY"`,
			want: "spec_key_refs[0]: env: a key must not start with MANENT_SECRET_ (secrets.env_prefix)"},
		{name: "a variable of another prefix", secrets: "secrets: {env_prefix: MANENT_}\n", key: `"env:MANENT_SPEC_KEY"`,
			want: "spec_key_refs[0]: env: a key must not start with MANENT_ (secrets.env_prefix)"},
		{name: "a file of the default root, the directory of manent.yml", key: `"file:keys/spec"`,
			want: "spec_key_refs[0]: file: a key must be outside secrets.file_root"},
		{name: "an absolute file of the root", secrets: "secrets: {file_root: secrets}\n", key: `"file:` + filepath.Join(dir, "secrets/k/../spec") + `"`,
			want: "spec_key_refs[0]: file: a key must be outside secrets.file_root"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.secrets, tt.key)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}

	c, err := parse("secrets: {file_root: secrets}\n", `"env:MANENT_SPEC_KEY", "file:keys/spec", "file:`+filepath.Join(dir, "keys/old")+`"`)
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{
		"env:MANENT_SPEC_KEY",
		"file:../keys/spec",
		"file:" + filepath.Join(dir, "keys/spec"),
		"file:" + filepath.Join(dir, "secrets/../keys/old"),
	} {
		doc := "plugin: local\ntargets: [{path: a}]\nsecrets:\n  - {name: db-admin, ref: \"" + ref + "\"}\n"
		if _, err := c.ParseEnvConfig([]byte(doc)); err == nil {
			t.Errorf("an environment configuration names the signing key %s as its secret db-admin: accepted", ref)
		}
	}
}
