package engine_test

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"manent.dev/manent/deploy"
)

// TestCallbackRowRecordedDespiteFailures: when writing a delivery's row
// fails after the attempt was made (here a trigger refuses the first two
// writes of its outcome), the write is a step of its own that DBOS makes
// again: the row ends delivered, never left pending. Before, the failure was
// logged and swallowed, and the row stayed pending for good.
func TestCallbackRowRecordedDespiteFailures(t *testing.T) {
	e := callbackEnv(t, "")
	conn, err := pgx.Connect(e.ctx, e.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(e.ctx) })
	// A sequence, not a table: its count survives the refused transactions.
	for _, q := range []string{
		`CREATE SEQUENCE manent.test_record_failures`,
		`CREATE FUNCTION manent.test_refuse_record() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.state = 'delivered' AND nextval('manent.test_record_failures') <= 2 THEN
				RAISE EXCEPTION 'refused by the test';
			END IF;
			RETURN NEW;
		END $$`,
		`CREATE TRIGGER test_refuse_record BEFORE UPDATE ON manent.callback_deliveries
			FOR EACH ROW EXECUTE FUNCTION manent.test_refuse_record()`,
	} {
		if _, err := conn.Exec(e.ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	r := newReceiver(t, nil)
	e.submitWithCallbacks("cb-rec", "  - {url: "+r.url("/")+", events: [finished]}\n")
	d := e.wait("cb-rec", func(d *deploy.Deployment) bool {
		return len(d.Deliveries) == 1 && d.Deliveries[0].State == deploy.DeliveryDelivered
	})
	if dl := d.Deliveries[0]; dl.Attempts != 1 || len(r.requests()) != 1 {
		t.Errorf("delivery %+v after %d requests: the attempt was made again", dl, len(r.requests()))
	}
	var refused int64
	if err := conn.QueryRow(e.ctx, `SELECT last_value FROM manent.test_record_failures`).Scan(&refused); err != nil || refused < 3 {
		t.Errorf("the trigger ran %d times (%v): the failures were not injected", refused, err)
	}
}
