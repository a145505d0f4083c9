package idempotency

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestQueuedClaimGivesUp: a claim waiting for the next batch whose request
// ends leaves the queue and claims nothing.
func TestQueuedClaimGivesUp(t *testing.T) {
	b := &claimBatcher{busy: maxClaimsInFlight} // a statement is in flight
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	won, rec, err := b.claimLookup(ctx, Key{Key: "k"}, NewClaim{}, time.Now())
	if won || rec != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v %v %v, want context.Canceled", won, rec, err)
	}
	if len(b.queue) != 0 {
		t.Fatalf("the queue still holds %d calls", len(b.queue))
	}
}
