package chat

import (
	"testing"
	"time"
)

// TestSignKnownAnswer checks Sign against the example of Slack's guide to
// verifying requests.
func TestSignKnownAnswer(t *testing.T) {
	body := "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
	got := Sign("8f742231b10e8888abcd99yyyzzz85a5", "1531420618", []byte(body))
	if want := "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"; got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

func TestFresh(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	for ts, want := range map[string]bool{
		"1800000000": true, "1799999700": true, "1800000300": true,
		"1799999699": false, "1800000301": false, "": false, "1800000000.5": false, "abc": false,
	} {
		if got := fresh(ts, now); got != want {
			t.Errorf("fresh(%q) = %v, want %v", ts, got, want)
		}
	}
}
