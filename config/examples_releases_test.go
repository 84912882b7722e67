package config_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/descriptor"
)

// TestExampleRelease checks examples/releases/shop.yml as far as a server
// would before running it: the release and its members parse, every member
// has its artifact and environment configuration, the merge with the demo's
// descriptor policy accepts it (db_release comes through paramsFrom), and
// api imports the export db declares.
func TestExampleRelease(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	c, err := config.Load("../examples/manent.yml")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../examples/releases/shop.yml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := descriptor.ParseRelease(doc)
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != "shop-demo" {
		t.Errorf("id = %q", r.ID)
	}
	for i, m := range r.Deploys {
		b, err := os.ReadFile(filepath.Join("../examples/releases", m.File))
		if err != nil {
			t.Fatal(err)
		}
		r.Deploys[i].File, r.Deploys[i].Descriptor = "", string(b)
	}
	order, err := descriptor.TopoOrder(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"db", "api", "worker", "web"}; !slices.Equal(order, want) {
		t.Errorf("order = %v, want %v", order, want)
	}
	ds, err := descriptor.ValidateReleaseMembers(r)
	if err != nil {
		t.Fatal(err)
	}
	ds, err = descriptor.ResolveReleaseMembers(r, ds)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, m := range r.Deploys {
		byName[m.Name] = i
		d := ds[i]
		if err := c.CheckSource(d.Artifact.Source); err != nil {
			t.Fatal(err)
		}
		path, err := c.ResolveFileSource(d.Artifact.Source)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: artifact: %v", m.Name, err)
		}
		env, err := c.LoadEnvConfig(c.Server.DefaultTenant, d.Application, d.Environment)
		if err != nil {
			t.Fatal(err)
		}
		// What the config step merges: the imported parameter as if resolved.
		merged := *d
		if len(d.Deploy.ParamsFrom) > 0 {
			merged.Deploy.Params = map[string]string{}
			for name := range d.Deploy.ParamsFrom {
				merged.Deploy.Params[name] = "1.4.0"
			}
			merged.Deploy.ParamsFrom, merged.Imports = nil, nil
		}
		if _, err := config.Merge(&merged, env, c.Pipeline.DescriptorPolicy, c.Server.DefaultTenant); err != nil {
			t.Errorf("%s: %v", m.Name, err)
		}
	}
	db, api := ds[byName["db"]], ds[byName["api"]]
	if e, ok := db.Exports["release"]; !ok || e.From != "deploy.release" {
		t.Errorf("db exports = %+v", db.Exports)
	}
	if imp := api.Imports["db"]; imp.Deployment != "shop-demo.db" || !slices.Contains(api.After, "shop-demo.db") {
		t.Errorf("api imports = %+v, after = %v", api.Imports, api.After)
	}
	if ref := api.Deploy.ParamsFrom["db_release"]; ref.Import != "db" || ref.Export != "release" {
		t.Errorf("api paramsFrom = %+v", api.Deploy.ParamsFrom)
	}
}
