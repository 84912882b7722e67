package descriptor_test

import (
	"errors"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

// FuzzParse checks that Parse never panics and always answers with either a
// descriptor or an EINVALID error listing at least one problem.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		minimal,
		minimal + "deploy: {targets: [{host: a, port: 22}, {path: /b}], params: {a: b}}\nsteps: {qa: true}\n",
		`{"apiVersion":"manent/v1","application":"a","environment":"b","artifact":{"type":"t","name":"n","version":"1","source":"file:x"}}`,
		"a: &a [*a]\n",
		"kind: Release\n",
		"---\n---\n",
		"labels: {<<: {a: b}}\n",
		"deploy: {targets: [[[[]]]]}\n",
		"\xff\xfe",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := descriptor.Parse(data)
		if err == nil {
			if d == nil || d.APIVersion != descriptor.APIVersion || d.Kind != descriptor.KindDeployment {
				t.Fatalf("accepted without a valid descriptor: %+v", d)
			}
			return
		}
		var e *deploy.Error
		if !errors.As(err, &e) || e.Code != deploy.EINVALID || len(e.Fields) == 0 {
			t.Fatalf("error %v is not an EINVALID with fields", err)
		}
	})
}
