package oidc

import "testing"

func TestIssuerMatches(t *testing.T) {
	tests := []struct {
		configured, iss string
		want            bool
	}{
		{"https://login.example.com", "https://login.example.com", true},
		{"https://login.example.com", "https://login.example.com/", false},
		{"https://login.example.com", "login.example.com", false},
		{"https://accounts.google.com", "accounts.google.com", true},
		{"https://accounts.google.com", "https://accounts.google.com", true},
		{"https://login.example.com", "", false},
	}
	for _, tt := range tests {
		if got := issuerMatches(tt.configured, tt.iss); got != tt.want {
			t.Errorf("issuerMatches(%q, %q) = %v, want %v", tt.configured, tt.iss, got, tt.want)
		}
	}
}
