package config_test

import (
	"testing"

	"manent.dev/manent/config"
)

// TestReviewPrometheusGateWithCredentials: docs/rollouts.md documents a
// Prometheus gate URL's user info ("https://reader:password@...") as sent
// as basic authentication and never shown, and engine/gates implements it,
// but the configuration refuses it ("must be an absolute http:// or
// https:// URL without credentials"): a Prometheus behind basic
// authentication cannot be used as a gate at all.
func TestReviewPrometheusGateWithCredentials(t *testing.T) {
	c, err := config.Parse([]byte("pipeline: {}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ParseEnvConfig([]byte(`plugin: local
targets: [{path: a}]
rollout:
  gates: [{prometheus: {url: "https://reader:password@metrics.example/prometheus", query: up, min: 1}}]
`))
	if err != nil {
		t.Errorf("a documented Prometheus URL with user info is refused: %v", err)
	}
}

// TestReviewWaveAfterAHundredPercentCount: a wave after one that takes every
// target left can never have a target and is refused (docs/rollouts.md,
// "Empty waves"), but only when the earlier wave has no count: count:
// "100%" takes every target left just the same and is let through.
func TestReviewWaveAfterAHundredPercentCount(t *testing.T) {
	c, err := config.Parse([]byte("pipeline: {}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ParseEnvConfig([]byte(`plugin: local
targets: [{path: a}]
rollout:
  waves: [{name: all, count: "100%"}, {name: never, select: {labels: {r: x}}}]
`))
	if err == nil {
		t.Errorf("waves[1] can never have a target (waves[0] takes 100%% of what is left), but it is accepted")
	}
}
