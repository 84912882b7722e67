package engine

import (
	"testing"
	"time"
)

func TestTickID(t *testing.T) {
	if id := tickID("nightly", time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)); id != "nightly@20261130-020000" {
		t.Fatalf("tickID = %s", id)
	}
}
