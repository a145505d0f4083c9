package idempotency_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/idempotency"
)

// TestFingerprintFollowsTheContract: "the same request" is what the
// contract's fingerprint says. Strict: another key order is another
// request. canonical-json: key order and whitespace do not count, values
// do. fingerprint_headers: the named header is part of the request.
func TestFingerprintFollowsTheContract(t *testing.T) {
	const first = `{"amount": 1000, "currency": "usd"}`
	tests := []struct {
		name, replace, with string
		header              string // Api-Version of the retry ("" = as the first)
		retry               string
		want                int // 201 replayed, or the mismatch status
	}{
		{"strict, same bytes", "", "", "", first, 201},
		{"strict, keys reordered", "", "", "", `{"currency":"usd","amount":1000}`, 409},
		{"canonical, keys reordered", "fingerprint: sha256-body", "fingerprint: canonical-json", "", "{\"currency\": \"usd\",\n \"amount\": 1000}", 201},
		{"canonical, value changed", "fingerprint: sha256-body", "fingerprint: canonical-json", "", `{"currency":"usd","amount":1001}`, 409},
		{"header counted, same", "fingerprint: sha256-body", "fingerprint: sha256-body\n  fingerprint_headers: [Api-Version]", "", first, 201},
		{"header counted, changed", "fingerprint: sha256-body", "fingerprint: sha256-body\n  fingerprint_headers: [Api-Version]", "2026-04", first, 409},
		{"header not counted, changed", "", "", "2026-04", first, 201},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var edits []string
			if tt.replace != "" {
				edits = []string{tt.replace, tt.with}
			}
			c := payoutsContract(t, edits...)
			f := newFixture(t, c, idempotency.NewMemoryStore(c), idempotency.Options{})
			send := func(body, version string) int {
				r := httptest.NewRequest("POST", "/v1/transfers", strings.NewReader(body))
				r.Header.Set("Idempotency-Key", "k1")
				r.Header.Set("X-Account", "acct_a")
				r.Header.Set("Api-Version", version)
				w := httptest.NewRecorder()
				f.h.ServeHTTP(w, r)
				return w.Code
			}
			if got := send(first, "2025-01"); got != 201 {
				t.Fatalf("first request: %d", got)
			}
			version := "2025-01"
			if tt.header != "" {
				version = tt.header
			}
			if got := send(tt.retry, version); got != tt.want {
				t.Errorf("retry answered %d, want %d", got, tt.want)
			}
		})
	}
}
