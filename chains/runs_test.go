package chains

import (
	"fmt"
	"reflect"
	"testing"

	"manent.dev/manent/deploy"
)

func TestJoinRuns(t *testing.T) {
	specs := map[string]deploy.ExportSpec{"vms": tgt("deploy.vms", ""), "db_host": str("deploy.db_host", ".*")}
	tests := []struct {
		name    string
		runs    []map[string]map[string]string
		want    map[string]map[string]string
		wantErr []string
	}{
		{name: "one run unchanged",
			runs: []map[string]map[string]string{{"deploy": {"vms": `["a"]`, "db_host": "db", "x": "1"}}},
			want: map[string]map[string]string{"deploy": {"vms": `["a"]`, "db_host": "db", "x": "1"}}},
		{name: "targets joined in order, same string, last undeclared output",
			runs: []map[string]map[string]string{
				{"deploy": {"vms": `["a", "b"]`, "db_host": "db", "x": "1"}},
				{"deploy": {"vms": `[{"host":"c"}]`, "db_host": "db", "x": "2"}},
			},
			want: map[string]map[string]string{"deploy": {"vms": `[{"host":"a"},{"host":"b"},{"host":"c"}]`, "db_host": "db", "x": "2"}}},
		{name: "a run without the output",
			runs: []map[string]map[string]string{{"deploy": {"vms": `["a"]`}}, {"deploy": {}}, {"deploy": {"vms": `["b"]`}}},
			want: map[string]map[string]string{"deploy": {"vms": `[{"host":"a"},{"host":"b"}]`}}},
		{name: "different strings",
			runs:    []map[string]map[string]string{{"deploy": {"db_host": "a"}}, {"deploy": {"db_host": "b"}}},
			wantErr: []string{"exports.db_host"}},
		{name: "a run not a list",
			runs:    []map[string]map[string]string{{"deploy": {"vms": `["a"]`}}, {"deploy": {"vms": `a`}}},
			wantErr: []string{"exports.vms"}},
		{name: "more than 500 in all",
			runs: []map[string]map[string]string{
				{"deploy": {"vms": hostList(300, func(i int) string { return fmt.Sprint("a", i) })}},
				{"deploy": {"vms": hostList(201, func(i int) string { return fmt.Sprint("b", i) })}},
			},
			wantErr: []string{"exports.vms"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JoinRuns(specs, tt.runs)
			if tt.wantErr != nil {
				assertProblems(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("JoinRuns: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}
