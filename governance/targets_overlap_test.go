package governance_test

import (
	"context"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/governance"
)

// TestOverlappingTargetFreezesTellTheLatestEnd: two windows over the
// eu targets in force at once, the first ending at 14:00, the second at
// 18:00. The wave is deferred until 18:00 at the earliest, which is what
// deferred_until must say; FrozenTargets answers the first calendar's end,
// so the status announces a start at 14:00 that will not happen.
func TestOverlappingTargetFreezesTellTheLatestEnd(t *testing.T) {
	at := time.Date(2026, 12, 25, 12, 0, 0, 0, time.UTC)
	eu := &config.FreezeTargets{Labels: map[string]string{"region": "eu"}}
	cfg := config.Governance{Freezes: []config.FreezeRule{
		{Name: "eu-network", Match: config.FreezeMatch{Environment: "prod"}, Targets: eu,
			Absolute: []config.AbsoluteWindow{{From: "2026-12-25T10:00:00Z", To: "2026-12-25T14:00:00Z"}}},
		{Name: "eu-power", Match: config.FreezeMatch{Environment: "prod"}, Targets: eu,
			Absolute: []config.AbsoluteWindow{{From: "2026-12-25T11:00:00Z", To: "2026-12-25T18:00:00Z"}}},
	}}
	rules, err := governance.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := deploy.GovernanceInput{Tenant: "demo", Application: "web", Environment: "prod", Time: at}
	f, err := rules.FrozenTargets(context.Background(), in, []deploy.Target{{Host: "eu-1", Labels: map[string]string{"region": "eu"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 12, 25, 18, 0, 0, 0, time.UTC); f == nil || !f.Until.Equal(want) {
		t.Fatalf("FrozenTargets = %+v: deferred until %v, want %v (the windows in force overlap)", f, f.Until, want)
	}
}
