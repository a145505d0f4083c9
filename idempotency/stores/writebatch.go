package stores

import (
	"context"

	"github.com/retryspec/retryspec/idempotency/internal/batch"
	"github.com/retryspec/retryspec/idempotency/internal/native"
)

// maxWritesInFlight is how many write round trips run at once before
// further pipelines queue for the next. It is one since a batch commits
// as one transaction: two or three in flight served no more, at more CPU
// per request (BENCHMARKS.md, "Merged write batches, light HTTP clients,
// and the first replay from memory").
const maxWritesInFlight = 1

// maxWriteBatch bounds the pipelines sent together.
const maxWriteBatch = 64

// Pipelines are grouped by a batcher the way claims are: a pipeline that
// finds fewer than maxWritesInFlight in flight is sent at once, alone;
// those that arrive meanwhile queue and go together in one round trip on
// one connection, as one transaction when they can (see sendWrites). Each
// keeps its own outcome: a lost fence or a failing write of one request
// rolls back that request's writes only.
func (s *SQLStore) newWriteBatcher() *batch.Batcher[*writeCall] {
	return batch.New(maxWritesInFlight, maxWriteBatch, s.sendWrites)
}

type writeCall struct {
	ctx   context.Context
	stmts []native.Stmt
	res   native.Result // the outcome, set by sendWrites
}

func (s *SQLStore) pipelineBatched(ctx context.Context, stmts []native.Stmt) (int, error) {
	call := &writeCall{ctx: ctx, stmts: stmts}
	if err := s.writes.Do(ctx, call); err != nil {
		return -1, err // gave up while queued: committed nothing
	}
	return call.res.Failed, call.res.Err
}

// A batch's pipelines commit as one transaction when they can: the
// server then runs one commit, not one per request (BENCHMARKS.md,
// "Merged write batches, light HTTP clients, and the first replay from
// memory"). Nothing a request sees changes: the groups run in the order
// they would have run as separate transactions on the one connection, and
// the merged transaction commits only if every group's statements
// succeed, the outcome each would then have had alone. When any statement
// fails, or a lock wait outlasts the merged transaction's short
// lock_timeout (merged transactions of two instances can lock rows of
// unrelated requests in opposite orders), the server rolls it all back
// and the batch is sent again as separate transactions, so that each
// request learns its own outcome and only the failing ones commit
// nothing. What does change: the writes of a batch share one
// transaction's now() and commit at the end of the batch, not at the end
// of each group.
//
// A failed attempt costs the batch a round trip and the server's work on
// it, so the store keeps a moving average of the share of batches in
// which some group failed (alone or merged), over about eight batches,
// and merges only while at most mergeBelow of them do.
const mergeBelow = 1024 * 5 / 100

// sendWrites runs one batch of pipelines and sets each call's outcome.
func (s *SQLStore) sendWrites(batch []*writeCall) {
	s.counts.writeTrips.Add(1)
	if len(batch) == 1 {
		c := batch[0]
		c.res.Failed, c.res.Err = s.native.Pipeline(c.ctx, c.stmts)
		return
	}
	s.counts.writeBatches.Add(1)
	groups := make([][]native.Stmt, len(batch))
	for i, c := range batch {
		groups[i] = c.stmts
	}
	// The round trip serves every caller: none of them can cancel it.
	ctx := context.WithoutCancel(batch[0].ctx)
	if m, ok := s.native.(native.Merger); ok && s.mergeWrites && s.counts.writeFailures.Load() <= mergeBelow {
		rolledBack, err := m.Merged(ctx, groups)
		if err == nil {
			for _, c := range batch {
				c.res = native.Result{Failed: -1}
			}
			s.counts.mergedBatches.Add(1)
			addToShare(&s.counts.writeFailures, 0)
			return
		}
		if !rolledBack {
			for _, c := range batch {
				c.res = native.Result{Failed: -1, Err: err} // committed or not: unknown
			}
			return
		}
		s.counts.writeTrips.Add(1) // nothing committed: each group again, on its own
	}
	out := make([]native.Result, len(batch))
	s.native.(native.Pipeliner).Pipelines(ctx, groups, out)
	failed := false
	for i, c := range batch {
		c.res = out[i]
		failed = failed || out[i].Err != nil
	}
	sample := 0
	if failed {
		sample = 1024
	}
	addToShare(&s.counts.writeFailures, sample)
}
