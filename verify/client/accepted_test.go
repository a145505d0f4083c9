package client_test

import (
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/verify/client"
)

// TestInFlightGateUnderAccepted: under in_flight.response: accepted the
// client/in-flight gate judges the 202 as the middleware sends it
// (contract.Reply's status and code): the Python snippet polls it with
// the same key until the stored result and passes; the same snippet taking
// any 2xx for the result, or polling every 202, fails the gate.
func TestInFlightGateUnderAccepted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Python through the in-flight scenarios")
	}
	t.Parallel()
	need(t, "python")
	c := scaled(t)
	c.Idempotency.InFlight.Response = contract.InFlightAccepted
	for _, tt := range []struct {
		name   string
		edits  []string
		result string
		reason string
	}{
		{"snippet", nil, "passed", ""},
		{"takes the 202 for the result", []string{"if not in_flight(status, payload):", "if True:"}, "failed", "the server saw 1 attempt, want 3"},
		{"polls every 202", []string{"status == IN_FLIGHT_STATUS and has_code(payload, IN_FLIGHT_CODE)", "status == IN_FLIGHT_STATUS"}, "failed", "handler-202-is-the-result"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := writeSnippet(t, c, "python", dir, tt.edits...)
			res := verifyClient(t, client.Options{Contract: c, Command: []string{"python3", file}, Dir: dir, Only: []string{"client/in-flight"}})
			for _, g := range res.Gates {
				if g.Gate != "client/in-flight" {
					continue
				}
				t.Logf("%s %s: %s", g.Gate, g.Result, g.Reason)
				if g.Result != tt.result {
					t.Errorf("client/in-flight %s, want %s: %s", g.Result, tt.result, g.Reason)
				}
				if tt.result == "failed" && !strings.Contains(g.Reason, tt.reason) {
					t.Errorf("reason %q lacks %q", g.Reason, tt.reason)
				}
				return
			}
			t.Fatal("client/in-flight was not judged")
		})
	}
}
