package sshcommand

import (
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/sshexec"
)

func TestContractEnv(t *testing.T) {
	c := Contract{DeploymentID: "shop-1.5.0", Step: "db-migrate", Application: "shop", Environment: "prod",
		Version: "1.5.0", Target: "web1", ArtifactSHA256: "ab", DryRun: true,
		Params:  map[string]string{"database": "shop"},
		Outputs: map[string]map[string]string{"post-test": {"url": "u", "build.id": "7"}}}
	env, err := c.Env()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"MANENT_DEPLOYMENT_ID": "shop-1.5.0", "MANENT_STEP": "db-migrate", "MANENT_APPLICATION": "shop",
		"MANENT_ENVIRONMENT": "prod", "MANENT_VERSION": "1.5.0", "MANENT_TARGET": "web1",
		"MANENT_ARTIFACT_SHA256": "ab", "MANENT_DRY_RUN": "true", "MANENT_PARAM_DATABASE": "shop",
		"MANENT_OUTPUT_POST_TEST_URL": "u", "MANENT_OUTPUT_POST_TEST_BUILD_ID": "7",
	}
	if len(env) != len(want) {
		t.Errorf("env %v, want %v", env, want)
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	if err := checkEnv(env); err != nil {
		t.Errorf("the contract's own variables are refused: %v", err)
	}
	c.DryRun = false
	if env, _ := c.Env(); env["MANENT_DRY_RUN"] != "false" {
		t.Errorf("MANENT_DRY_RUN = %q outside a dry run", env["MANENT_DRY_RUN"])
	}
}

func TestContractEnvRefusesNamesThatMeetInOneVariable(t *testing.T) {
	tests := []struct {
		name string
		c    Contract
		want string
	}{
		{"two outputs", Contract{Outputs: map[string]map[string]string{"a-b": {"c": "1"}, "a": {"b-c": "2"}}},
			"output a.b-c and output a-b.c both give the variable MANENT_OUTPUT_A_B_C"},
		{"two parameters", Contract{Params: map[string]string{"x.y": "1", "x_y": "2"}},
			"parameter x.y and parameter x_y both give the variable MANENT_PARAM_X_Y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.c.Env()
			if err == nil || !deploy.IsPermanent(err) || err.Error() != tt.want {
				t.Fatalf("got %v, want the permanent error %q", err, tt.want)
			}
		})
	}
}

func TestEnvFileQuotesEveryValue(t *testing.T) {
	got := string(envFile(map[string]string{"MANENT_PARAM_X": "it's $(x)\n`y`"}, 900, 5))
	want := "export MANENT_PARAM_X=" + sshexec.Quote("it's $(x)\n`y`") + "\nmanent_timeout=900\nmanent_kill=5\n"
	if !strings.HasSuffix(got, want) {
		t.Errorf("env file %q, want it to end with %q", got, want)
	}
}
