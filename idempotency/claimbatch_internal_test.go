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
	s := &SQLStore{}
	s.batch = s.newClaimBatcher()
	b := s.batch
	b.busy = maxClaimsInFlight // a statement is in flight
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	won, rec, err := s.claimLookupBatched(ctx, Key{Key: "k"}, NewClaim{}, time.Now())
	if won || rec != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v %v %v, want context.Canceled", won, rec, err)
	}
	if len(b.queue) != 0 {
		t.Fatalf("the queue still holds %d calls", len(b.queue))
	}
}

// TestQueuedWriteGivesUp: a pipeline waiting for the next batch whose
// request ends leaves the queue and commits nothing.
func TestQueuedWriteGivesUp(t *testing.T) {
	s := &SQLStore{}
	s.writes = s.newWriteBatcher()
	b := s.writes
	b.busy = maxWritesInFlight // a pipeline is in flight
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	failed, err := s.pipelineBatched(ctx, []Write{{SQL: "INSERT INTO t VALUES (1)"}})
	if failed != -1 || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %d %v, want -1 and context.Canceled", failed, err)
	}
	if len(b.queue) != 0 {
		t.Fatalf("the queue still holds %d calls", len(b.queue))
	}
}
