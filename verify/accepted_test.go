package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestAcceptedInFlight: under in_flight.response: accepted, the 202 a
// concurrent copy gets is the contract's in-flight answer, not a second
// outcome; the gate then repeats the request until it completes and judges
// the effects after. A server that answers 202 and runs the copy anyway is
// still caught, on its effects.
func TestAcceptedInFlight(t *testing.T) {
	c := payouts(t)
	c.Idempotency.InFlight.Response = contract.InFlightAccepted
	for flaw, want := range map[string]Outcome{"accepted": Passed, "accepted-runs-anyway": Failed} {
		t.Run(flaw, func(t *testing.T) {
			_, srv := newFakeAPI(t, flaw)
			res, err := Run(context.Background(), Options{Contract: c, Plan: fakePlan(t, srv.URL, ""), Only: []string{GateConcurrency}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Gates) != 1 || res.Gates[0].Result != want {
				t.Fatalf("concurrency gate: want %s\n%s", want, text(t, res))
			}
			g := res.Gates[0]
			switch want {
			case Passed:
				// The copies met the key in flight: the 202 was seen, and waited out.
				if !strings.Contains(g.Reason, "in-flight 202s") || strings.Contains(g.Reason, " 0 in-flight 202s") {
					t.Errorf("the gate saw no in-flight 202: %s", g.Reason)
				}
			case Failed:
				if !strings.Contains(g.Reason, "effects, not 1") {
					t.Errorf("failed for another reason than the second effect: %s", g.Reason)
				}
			}
		})
	}
}
