package engine

import (
	"testing"
	"time"
)

// The waits between attempts follow the documented schedule (5s, 5m, 30m,
// 2h, 5h, then 10h) within ±20 %, at both ends of the jitter.
func TestRetryWait(t *testing.T) {
	want := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
		10 * time.Hour, 10 * time.Hour, 10 * time.Hour}
	for i, base := range want {
		n := i + 1
		for _, tt := range []struct {
			jitter float64
			want   time.Duration
		}{{0, base * 8 / 10}, {0.5, base}, {1, base * 12 / 10}} {
			if got := retryWait(5*time.Second, n, tt.jitter); got != tt.want {
				t.Errorf("wait after attempt %d, jitter %v: %s, want %s", n, tt.jitter, got, tt.want)
			}
		}
	}
	if got := retryWait(20*time.Millisecond, 2, 0.5); got != 1200*time.Millisecond {
		t.Errorf("first_retry 20ms, second wait %s", got)
	}
}

// Sign is Standard Webhooks' signature: the example of its specification.
func TestSignMatchesTheSpecification(t *testing.T) {
	key := SigningKey("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	got := Sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	if string(SigningKey("not-a-whsec")) != "not-a-whsec" {
		t.Errorf("a raw key is its own bytes")
	}
}
