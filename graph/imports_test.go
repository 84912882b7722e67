package graph

import (
	"reflect"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

func TestToModelImports(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name string
		d    deploy.Descriptor
		want []model.DeploymentImport
	}{
		{name: "none", want: []model.DeploymentImport{}},
		{
			name: "a deployment import used twice and a current import",
			d: deploy.Descriptor{
				Tenant: "demo", Environment: "staging",
				Imports: map[string]deploy.Import{
					"infra": {Deployment: "infra-42"},
					"db":    {Current: &deploy.CurrentImport{Application: "shop-db"}},
				},
				Deploy: deploy.DeploySection{
					TargetsFrom: []deploy.ImportRef{{Import: "infra", Export: "vms"}},
					ParamsFrom: map[string]deploy.ImportRef{
						"db_host": {Import: "infra", Export: "db_host"},
						"vms_too": {Import: "infra", Export: "vms"},
						"release": {Import: "db", Export: "release"},
					},
				},
			},
			want: []model.DeploymentImport{
				{Name: "db", Current: str("demo/shop-db/staging"), Exports: []string{"release"}},
				{Name: "infra", DeploymentID: str("infra-42"), Exports: []string{"db_host", "vms"}},
			},
		},
		{
			name: "an import not used yet has no exports",
			d:    deploy.Descriptor{Imports: map[string]deploy.Import{"db": {Deployment: "shop-demo.db"}}},
			want: []model.DeploymentImport{{Name: "db", DeploymentID: str("shop-demo.db"), Exports: []string{}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := toModelImports(&tt.d); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("toModelImports() = %+v, want %+v", got, tt.want)
			}
		})
	}
}
