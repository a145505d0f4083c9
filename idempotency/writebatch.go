package idempotency

import (
	"context"
	"slices"
)

// NativePipeliner is a Native that can send several pipelines in one round
// trip on one connection, each still its own transaction: PostgreSQL's
// extended protocol ends each with its own Sync, and an error skips only
// to the end of its own pipeline. With it, an SQLStore sends the handlers'
// writes and fenced statements (CommitWrites, FinishWrites) that arrive
// while another such pipeline is in flight together.
type NativePipeliner interface {
	// Pipelines sends each group of statements as one transaction, all
	// groups in one round trip, and sets out[i] to group i's outcome as
	// Pipeline reports it: Failed is the index of the statement that
	// failed, or -1 (Err then a failed commit, or nil). A group that
	// failed changes nothing and leaves the others alone.
	Pipelines(ctx context.Context, groups [][]Write, out []PipelineResult)
}

// NativeMerger is a NativePipeliner that can also send several groups as
// one transaction. With it, an SQLStore commits the pipelines of a batch
// together (mergeWrites below).
type NativeMerger interface {
	// Merged sends every group's statements in one round trip as one
	// transaction, which commits only if every statement succeeds (nil).
	// With an error, rolledBack reports that nothing of it committed (it
	// was not sent, or the server rolled it back); without it the outcome
	// is unknown, as when the connection broke.
	Merged(ctx context.Context, groups [][]Write) (rolledBack bool, err error)
}

// PipelineResult is one group's outcome in NativePipeliner.Pipelines.
type PipelineResult struct {
	Failed int
	Err    error
}

// maxWritesInFlight is how many such round trips run at once before
// further pipelines queue for the next. While each pipeline of a batch was
// its own transaction, one left cores idle at 16 clients on PostgreSQL (a
// batch's transactions ran one after another on one backend) and two
// served the most. Since a batch commits as one transaction, one serves
// the most again, at the least CPU per request: in six interleaved rounds
// at 16 clients, in process and over HTTP, one was ahead of two and three
// in five and tied in the sixth, by up to 16%, at 6 to 19% less Go CPU and
// 8 to 14% less PostgreSQL CPU per request than two. Two claims in flight
// instead of one gained nothing either (bench/server-results.md).
const maxWritesInFlight = 1

// maxWriteBatch bounds the pipelines sent together.
const maxWriteBatch = 64

// Pipelines are grouped by a batcher the way claims are: a pipeline that
// finds fewer than maxWritesInFlight in flight is sent at once, alone;
// those that arrive meanwhile queue and go together in one round trip on
// one connection, as one transaction when they can (see sendWrites). Each
// keeps its own outcome: a lost fence or a failing write of one request
// rolls back that request's writes only.
func (s *SQLStore) newWriteBatcher() *batcher[*writeCall] {
	return &batcher[*writeCall]{maxInFlight: maxWritesInFlight, take: takeFirst, send: s.sendWrites}
}

type writeCall struct {
	ctx   context.Context
	stmts []Write
	res   PipelineResult // the outcome, set by sendWrites
}

func (s *SQLStore) pipelineBatched(ctx context.Context, stmts []Write) (int, error) {
	call := &writeCall{ctx: ctx, stmts: stmts}
	if err := s.writes.do(ctx, call); err != nil {
		return -1, err // gave up while queued: committed nothing
	}
	return call.res.Failed, call.res.Err
}

// takeFirst takes the first maxWriteBatch queued pipelines.
func takeFirst(queue []*queued[*writeCall]) (next, rest []*queued[*writeCall]) {
	n := min(len(queue), maxWriteBatch)
	next = slices.Clone(queue[:n])
	return next, queue[:copy(queue, queue[n:])]
}

// A batch's pipelines commit as one transaction when they can: the
// server then runs one commit, not one per request. On PostgreSQL that
// served 14 to 21% more first attempts at 16 clients in three interleaved
// rounds (BENCHMARKS.md). Nothing a request sees changes: the groups run
// in the order they would have run as separate transactions on the one
// connection, and the merged transaction commits only if every group's
// statements succeed, the outcome each would then have had alone. When
// any statement fails, or a lock wait outlasts the merged transaction's
// short lock_timeout (merged transactions of two instances can lock rows
// of unrelated requests in opposite orders), the server rolls it all back
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
	s.writeTrips.Add(1)
	if len(batch) == 1 {
		c := batch[0]
		c.res.Failed, c.res.Err = s.native.Pipeline(c.ctx, c.stmts)
		return
	}
	s.writeBatches.Add(1)
	groups := make([][]Write, len(batch))
	for i, c := range batch {
		groups[i] = c.stmts
	}
	// The round trip serves every caller: none of them can cancel it.
	ctx := context.WithoutCancel(batch[0].ctx)
	if m, ok := s.native.(NativeMerger); ok && s.mergeWrites && s.writeFailures.Load() <= mergeBelow {
		rolledBack, err := m.Merged(ctx, groups)
		if err == nil {
			for _, c := range batch {
				c.res = PipelineResult{Failed: -1}
			}
			s.mergedBatches.Add(1)
			addToShare(&s.writeFailures, 0)
			return
		}
		if !rolledBack {
			for _, c := range batch {
				c.res = PipelineResult{Failed: -1, Err: err} // committed or not: unknown
			}
			return
		}
		s.writeTrips.Add(1) // nothing committed: each group again, on its own
	}
	out := make([]PipelineResult, len(batch))
	s.native.(NativePipeliner).Pipelines(ctx, groups, out)
	failed := false
	for i, c := range batch {
		c.res = out[i]
		failed = failed || out[i].Err != nil
	}
	sample := 0
	if failed {
		sample = 1024
	}
	addToShare(&s.writeFailures, sample)
}
