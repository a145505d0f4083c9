package stores

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/retryspec/retryspec/idempotency/internal/native"
	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/storage"
)

// TestQueuedCallGivesUp: a claim or a pipeline waiting for the next batch
// whose request ends leaves the queue, claiming or committing nothing.
func TestQueuedCallGivesUp(t *testing.T) {
	for _, tc := range []struct {
		name string
		// queue sets up s with a batch in flight; call makes the call that
		// queues and returns what it claimed or committed.
		queue func(s *SQLStore) func() int
		call  func(ctx context.Context, s *SQLStore) (any, error)
		want  any
	}{{
		name: "claim",
		queue: func(s *SQLStore) func() int {
			s.claims = s.newClaimBatcher()
			s.claims.Hold()
			return s.claims.Queued
		},
		call: func(ctx context.Context, s *SQLStore) (any, error) {
			won, rec, err := s.claimLookupBatched(ctx, keystore.Key{Key: "k"}, keystore.NewClaim{}, time.Now())
			return won || rec != nil, err
		},
		want: false, // neither won nor given a row
	}, {
		name: "pipeline",
		queue: func(s *SQLStore) func() int {
			s.writes = s.newWriteBatcher()
			s.writes.Hold()
			return s.writes.Queued
		},
		call: func(ctx context.Context, s *SQLStore) (any, error) {
			return s.pipelineBatched(ctx, []native.Stmt{{SQL: "INSERT INTO t VALUES (1)"}})
		},
		want: -1, // no statement failed: none ran
	}} {
		t.Run(tc.name, func(t *testing.T) {
			s := &SQLStore{schema: &storage.Schema{KeyColumns: []string{"account_id", "idempotency_key"}}}
			queued := tc.queue(s)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			got, err := tc.call(ctx, s)
			if got != tc.want || !errors.Is(err, context.Canceled) {
				t.Fatalf("got %v %v, want %v and context.Canceled", got, err, tc.want)
			}
			if n := queued(); n != 0 {
				t.Fatalf("the queue still holds %d calls", n)
			}
		})
	}
}
