package chat

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// SignatureWindow is how far a request's timestamp may be from the clock:
// Slack's own advice, and what stops a captured request from being
// replayed later.
const SignatureWindow = 5 * time.Minute

// Sign is the X-Slack-Signature of body sent at timestamp (Unix seconds)
// under secret: v0= and the hex HMAC-SHA256 of v0:<timestamp>:<body>.
func Sign(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + timestamp + ":"))
	mac.Write(body)
	return "v0=" + hex.EncodeToString(mac.Sum(nil))
}

// fresh reports whether timestamp is within SignatureWindow of now.
func fresh(timestamp string, now time.Time) bool {
	sec, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return false
	}
	d := now.Sub(time.Unix(sec, 0))
	return d <= SignatureWindow && d >= -SignatureWindow
}

// validSignature compares in constant time.
func validSignature(secret, timestamp string, body []byte, signature string) bool {
	return hmac.Equal([]byte(Sign(secret, timestamp, body)), []byte(signature))
}
