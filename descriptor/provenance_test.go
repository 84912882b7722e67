package descriptor_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

func TestParseProvenance(t *testing.T) {
	head := "apiVersion: manent/v1\napplication: hello\nenvironment: staging\n"
	artifact := "artifact: {type: application, name: hello, version: 1.0.0, source: file:a.tgz"
	built := time.Date(2026, 10, 12, 12, 0, 0, 0, time.UTC)
	committed := time.Date(2026, 10, 12, 9, 30, 0, 0, time.UTC)
	tests := []struct {
		name        string
		doc         string
		remediation bool
		createdAt   *time.Time
		change      *time.Time
		errs        []string
	}{
		{name: "none given", doc: head + artifact + "}\n"},
		{
			name:      "the artifact's time, in another offset, read in UTC",
			doc:       head + artifact + ", createdAt: \"2026-10-12T14:00:00+02:00\"}\n",
			createdAt: &built, change: &built,
		},
		{
			name:        "the commit's time comes before the artifact's",
			doc:         head + artifact + ", createdAt: 2026-10-12T12:00:00Z}\ncommit: {time: 2026-10-12T09:30:00Z}\nremediation: true\n",
			remediation: true, createdAt: &built, change: &committed,
		},
		{
			name: "wrong times and an empty commit are refused on their paths",
			doc:  head + artifact + ", createdAt: yesterday}\ncommit: {}\nremediation: maybe\n",
			errs: []string{
				"remediation: must be true or false",
				"artifact.createdAt: must be an RFC 3339 time with its offset, such as 2026-10-12T14:00:00Z",
				"commit: must give time: leave commit out when it is unknown",
			},
		},
		{
			name: "a time without its offset is refused",
			doc:  head + artifact + "}\ncommit: {time: \"2026-10-12 09:30:00\", sha: abc}\n",
			errs: []string{
				"commit.sha: unknown field",
				"commit.time: must be an RFC 3339 time with its offset, such as 2026-10-12T14:00:00Z",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := descriptor.Parse([]byte(tt.doc))
			if tt.errs != nil {
				var de *deploy.Error
				if !errors.As(err, &de) || de.Code != deploy.EINVALID {
					t.Fatalf("error %v, expected EINVALID", err)
				}
				var got []string
				for _, f := range de.Fields {
					got = append(got, f.Path+": "+f.Message)
				}
				if !reflect.DeepEqual(got, tt.errs) {
					t.Fatalf("errors\n got      %q\n expected %q", got, tt.errs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Remediation != tt.remediation || !reflect.DeepEqual(d.Artifact.CreatedAt, tt.createdAt) ||
				!reflect.DeepEqual(d.ChangeTime(), tt.change) {
				t.Errorf("remediation %v, createdAt %v, change time %v", d.Remediation, d.Artifact.CreatedAt, d.ChangeTime())
			}
		})
	}
}
