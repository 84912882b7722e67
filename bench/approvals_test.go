package bench

import (
	"fmt"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// runningBeside is how many running deploys BenchmarkPendingApprovals
// puts beside the deploys that await an approval.
const runningBeside = 2000

// awaitingApprovals is how many deploys await the approver's approval on
// both sides of BenchmarkPendingApprovals.
const awaitingApprovals = 20

// BenchmarkPendingApprovals compares an approver's inbox (Service.
// PendingApprovals, the read behind `manent approvals`, the pendingApprovals
// query and each push of its subscription) beside runningBeside running
// deploys with the same inbox beside none, alternating which goes first;
// both hold awaitingApprovals deploys awaiting the approver. What the inbox
// reads must follow what awaits an approval, not what runs:
//
//	busy-ms    the inbox beside runningBeside running deploys (median)
//	quiet-ms   the inbox beside none (median)
//	ratio      busy-ms ÷ quiet-ms
//
// ns/op is zeroed: an iteration reads both inboxes.
func BenchmarkPendingApprovals(b *testing.B) {
	busy := newManent(b, setup{environments: 1})
	quiet := newManent(b, setup{environments: 1})
	for _, m := range []*manent{busy, quiet} {
		for i := range awaitingApprovals {
			id := fmt.Sprintf("asks-%d", i)
			d := deploy.Deployment{ID: id, Tenant: "demo", Application: "app", Environment: envName(0),
				State: deploy.StateAwaitingApproval, Requester: "token:bench",
				Decision:   deploy.Decision{Rule: "prod", Approvals: &deploy.ApprovalRequirement{Count: 1}},
				Descriptor: deploy.Descriptor{APIVersion: "manent/v1", ID: id, Application: "app", Environment: envName(0)}}
			if _, _, err := m.store.CreateDeployment(m.ctx, d, func(any) error { return nil }); err != nil {
				b.Fatalf("create %s: %v", id, err)
			}
		}
	}
	// Newer than those awaiting, as deploys that started since: the order
	// a list of the newest reads first.
	if _, err := busy.db.ExecContext(busy.ctx,
		`INSERT INTO manent.deployments (id, tenant, application, environment, state, created_at)
		 SELECT 'running-' || g, 'demo', 'app', 'env-' || (g % 50), 'ENQUEUED', now() + g * interval '1 ms'
		 FROM generate_series(1, $1) AS g`, runningBeside); err != nil {
		b.Fatalf("seed the running deploys: %v", err)
	}
	// Through the states a deploy goes through, as the lifecycle's trigger
	// wants.
	if _, err := busy.db.ExecContext(busy.ctx,
		`UPDATE manent.deployments SET state = 'PENDING', started_at = created_at WHERE id LIKE 'running-%'`); err != nil {
		b.Fatalf("start the running deploys: %v", err)
	}
	approver := func(m *manent) time.Duration {
		start := time.Now()
		got, err := m.eng.PendingApprovals(deploy.WithIdentity(m.ctx, deploy.Identity{Subject: "token:approver"}))
		if err != nil {
			b.Fatalf("pending approvals: %v", err)
		}
		if len(got) != awaitingApprovals {
			b.Fatalf("the inbox holds %d deploys, want %d", len(got), awaitingApprovals)
		}
		return time.Since(start)
	}
	approver(busy)
	approver(quiet)
	var inBusy, inQuiet []time.Duration
	for b.Loop() {
		if len(inBusy)%2 == 0 {
			inBusy = append(inBusy, approver(busy))
			inQuiet = append(inQuiet, approver(quiet))
		} else {
			inQuiet = append(inQuiet, approver(quiet))
			inBusy = append(inBusy, approver(busy))
		}
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(ms(median(inBusy)), "busy-ms")
	b.ReportMetric(ms(median(inQuiet)), "quiet-ms")
	b.ReportMetric(float64(median(inBusy))/float64(median(inQuiet)), "ratio")
}
