package main

import (
	"strings"
	"testing"
)

func TestWithDryRun(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		refused bool
	}{
		{name: "added", in: "# keep me\napplication: hello\n", want: []string{"# keep me", "application: hello", "dryRun: true"}},
		{name: "replaced", in: "dryRun: false\napplication: hello\n", want: []string{"dryRun: true\napplication: hello"}},
		{name: "json", in: `{"application": "hello", "deploy": {"targets": []}}`, want: []string{"application: hello", "dryRun: true"}},
		{name: "not a mapping", in: "- a\n- b\n", refused: true},
		{name: "not yaml", in: "a: [\n", refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := withDryRun([]byte(tt.in))
			if tt.refused {
				if msg, code := humanize(err); code != exitRefused || !strings.Contains(msg, "--dry-run") {
					t.Fatalf("err = %v (exit %d)", err, code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Count(string(out), "dryRun") != 1 {
				t.Errorf("dryRun set more than once:\n%s", out)
			}
		})
	}
}

func TestEditDescriptorChains(t *testing.T) {
	imp := func(name, id string) importFlag { return importFlag{name: name, id: id} }
	tests := []struct {
		name    string
		in      string
		edits   descriptorEdits
		want    string
		refused string
	}{
		{name: "after added", in: "# keep me\napplication: api\n",
			edits: descriptorEdits{after: []string{"db-1", "net-1"}},
			want:  "# keep me\napplication: api\nafter:\n  - db-1\n  - net-1\n"},
		{name: "after appended once", in: "application: api\nafter: [db-1]\n",
			edits: descriptorEdits{after: []string{"db-1", "net-1", "net-1"}},
			want:  "application: api\nafter: [db-1, net-1]\n"},
		{name: "import adds the binding and after", in: "application: os\ndeploy:\n  targetsFrom: [{import: infra, export: vms}]\n",
			edits: descriptorEdits{imports: []importFlag{imp("infra", "infra-42")}},
			want: "application: os\ndeploy:\n  targetsFrom: [{import: infra, export: vms}]\n" +
				"imports:\n  infra:\n    deployment: infra-42\nafter:\n  - infra-42\n"},
		{name: "import next to declared imports, producer already in after",
			in:    "after: [infra-42]\nimports:\n  web: {current: {application: web}}\n",
			edits: descriptorEdits{imports: []importFlag{imp("infra", "infra-42")}},
			want:  "after: [infra-42]\nimports:\n  web: {current: {application: web}}\n  infra:\n    deployment: infra-42\n"},
		{name: "json", in: `{"application": "api", "after": ["db-1"]}`,
			edits: descriptorEdits{after: []string{"net-1"}},
			want:  "application: api\nafter:\n  - db-1\n  - net-1\n"},
		{name: "import already declared", in: "imports:\n  infra: {deployment: infra-41}\n",
			edits: descriptorEdits{imports: []importFlag{imp("infra", "infra-42")}}, refused: "--import: the descriptor already declares import infra"},
		{name: "imports not a mapping", in: "imports: [a]\n",
			edits: descriptorEdits{imports: []importFlag{imp("infra", "infra-42")}}, refused: "imports in the descriptor is not a mapping"},
		{name: "after not a list", in: "after: db-1\n",
			edits: descriptorEdits{after: []string{"net-1"}}, refused: "--after: after in the descriptor is not a list"},
		{name: "not a mapping", in: "- a\n", edits: descriptorEdits{after: []string{"db-1"}}, refused: "--after: the descriptor is not a YAML mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := editDescriptor([]byte(tt.in), tt.edits)
			if tt.refused != "" {
				if msg, code := humanize(err); code != exitRefused || !strings.Contains(msg, tt.refused) {
					t.Fatalf("err = %v (exit %d), want %q", err, code, tt.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", out, tt.want)
			}
		})
	}
}

func TestNewDescriptorEdits(t *testing.T) {
	tests := []struct {
		name    string
		dryRun  bool
		after   []string
		imports []string
		refused string
	}{
		{name: "valid", after: []string{"db-1", "shop.db@2"}, imports: []string{"infra=infra-42", "db_2=db-1"}},
		{name: "bad after", after: []string{"DB 1"}, refused: `--after "DB 1"`},
		{name: "import without =", imports: []string{"infra"}, refused: "must be NAME=DEPLOYMENT_ID"},
		{name: "bad import name", imports: []string{"Infra=infra-42"}, refused: "the name must be"},
		{name: "bad import id", imports: []string{"infra="}, refused: "a deploy ID is"},
		{name: "import twice", imports: []string{"infra=a", "infra=b"}, refused: "--import infra is given twice"},
		{name: "with dry run", dryRun: true, after: []string{"db-1"}, refused: "--dry-run cannot be combined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := newDescriptorEdits(tt.dryRun, tt.after, tt.imports)
			if tt.refused == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(e.after) != len(tt.after) || len(e.imports) != len(tt.imports) {
					t.Fatalf("edits %+v", e)
				}
				return
			}
			if msg, code := humanize(err); code != exitRefused || !strings.Contains(msg, tt.refused) {
				t.Fatalf("err = %v (exit %d), want %q", err, code, tt.refused)
			}
		})
	}
}

func TestScheduledAt(t *testing.T) {
	for in, want := range map[string]string{
		"schedule:\n  at: 2030-01-01T09:00:00+01:00\n": "2030-01-01T08:00:00Z",
		"schedule:\n  at: '2030-01-01T08:00:00Z'\n":    "2030-01-01T08:00:00Z",
		"schedule:\n  cron: '0 3 * * *'\n":             "",
		"a: [\n":                                       "",
	} {
		if got := timestamp(scheduledAt([]byte(in))); got != want {
			t.Errorf("scheduledAt(%q) = %q, want %q", in, got, want)
		}
	}
}
