package deploy

import (
	"encoding/json"
	"testing"
	"time"
)

func TestApprovalRequirementJSON(t *testing.T) {
	in := ApprovalRequirement{Count: 2, Groups: []string{"ops"}, Expiry: 90 * time.Minute}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"count":2,"groups":["ops"],"expiry":"1h30m0s"}` {
		t.Fatalf("marshal = %s", b)
	}
	for _, doc := range []string{string(b), `{"count":2,"groups":["ops"],"expiry":5400000000000}`} {
		var out ApprovalRequirement
		if err := json.Unmarshal([]byte(doc), &out); err != nil {
			t.Fatal(err)
		}
		if out.Count != 2 || out.Expiry != 90*time.Minute || len(out.Groups) != 1 {
			t.Fatalf("unmarshal %s = %+v", doc, out)
		}
	}
	var bad ApprovalRequirement
	if err := json.Unmarshal([]byte(`{"expiry":"soon"}`), &bad); err == nil {
		t.Fatal("a bad expiry was accepted")
	}
}
