package stores

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/retryspec/retryspec/idempotency/internal/batch"
	"github.com/retryspec/retryspec/idempotency/internal/native"
	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/storage"
)

// maxClaimBatch bounds the keys of one ClaimBatch or ClaimLookupBatch
// statement.
const maxClaimBatch = 64

// maxClaimsInFlight is how many claim statements run at once before
// further claims queue for the next batch. It is one: more claims in
// flight make smaller batches and more commits, for no gain in throughput
// or latency and at more CPU per claim (BENCHMARKS.md, "Claim batching
// and the default replay cache" and "Merged write batches, light HTTP
// clients, and the first replay from memory").
const maxClaimsInFlight = 1

// Claims are grouped by a batcher, the way a database groups commits. A
// claim that finds none in flight runs at once, alone, as the plain Claim
// or ClaimLookup statement: no waiting while the service is quiet. Claims
// that arrive while one is in flight queue and go together as one
// ClaimBatch (or ClaimLookupBatch): under load a claim waits at most one
// statement longer, and the database runs one statement, one round trip
// and one commit for many keys instead of one each.
//
// Nothing of the contract changes: each key is still one insert the unique
// constraint arbitrates, a loser learns it lost from the insert's result
// and gets the row it lost to, and two claims of one key never share a
// batch (the second waits for the next), so each learns the first one's
// outcome as it would have on its own.
func (s *SQLStore) newClaimBatcher() *batch.Batcher[*claimCall] {
	return batch.Distinct(maxClaimsInFlight, maxClaimBatch, func(c *claimCall) keystore.Key { return c.k }, s.sendClaims)
}

type claimCall struct {
	ctx context.Context
	k   keystore.Key
	c   keystore.NewClaim
	now time.Time
	// The outcome, set by sendClaims: rec is the row a loser lost to when
	// the statement read it.
	won   bool
	rec   *keystore.Record
	err   error
	alone bool // the batch failed: run the plain statement instead
}

func (s *SQLStore) claimLookupBatched(ctx context.Context, k keystore.Key, c keystore.NewClaim, now time.Time) (bool, *keystore.Record, error) {
	if len(s.schema.KeyColumns) == 1 {
		// Keys are global: the account is no part of the key, so two claims
		// of one key from two accounts must not share a batch either.
		k.Account = ""
	}
	call := &claimCall{ctx: ctx, k: k, c: c, now: now}
	if err := s.claims.Do(ctx, call); err != nil {
		return false, nil, err // gave up while queued: claimed nothing
	}
	if call.alone {
		return s.claimLookupOne(ctx, k, c, now)
	}
	if call.err != nil || call.won || call.rec != nil {
		return call.won, call.rec, call.err
	}
	// Lost, with no row: ClaimBatch and Claim return only what they won,
	// and ClaimLookupBatch and ClaimLookup nothing for a row committed after
	// their statement began. Read it, as ClaimLookup promises.
	rec, err := s.Lookup(ctx, k)
	return false, rec, err
}

// Which statement claims: a claim that also reads the row it lost to
// (ClaimLookup, ClaimLookupBatch) saves a loser the round trip of Lookup,
// but costs every winner the lookup's part of the statement. First
// attempts win and retries of finished keys lose, so the batcher follows
// the recent share of lost claims (a moving average over about eight
// round trips) and reads rows in the claim only while more than
// lookupAbove of them lose: around there one Lookup round trip per loser
// costs what the lookups cost the winners (BENCHMARKS.md, "Claims without
// the lookup, and the benchmarks over HTTP"). Both ways give each caller
// the same answer.
const lookupAbove = 1024 * 15 / 100

// sendClaims runs one batch of claims and sets each call's outcome.
func (s *SQLStore) sendClaims(batch []*claimCall) {
	s.counts.claimTrips.Add(1)
	withLookup := s.counts.claimLoss.Load() > lookupAbove
	var err error
	switch {
	case len(batch) == 1 && withLookup:
		c := batch[0]
		c.won, c.rec, c.err = s.claimLookupOne(c.ctx, c.k, c.c, c.now)
	case len(batch) == 1:
		c := batch[0]
		c.won, c.err = s.Claim(c.ctx, c.k, c.c, c.now)
	case withLookup:
		err = s.claimLookupBatch(batch)
	default:
		err = s.claimBatch(batch)
	}
	if err != nil {
		s.counts.batchFailures.Add(1)
		// One bad key (say, text the column refuses) must not fail the
		// others: each runs alone and gets its own answer.
		for _, c := range batch {
			c.alone = true
		}
		return
	}
	lost := 0
	for _, c := range batch {
		if !c.won && c.err == nil {
			lost++
		}
	}
	// With more than one batch in flight two updates may race and one be
	// lost: the average is a hint, not a count.
	addToShare(&s.counts.claimLoss, lost*1024/len(batch))
}

// addToShare adds sample (in 1/1024) to a moving average of a share kept
// in 1/1024, with weight 1/8: about the last eight samples count.
func addToShare(share *atomic.Int64, sample int) {
	old := share.Load()
	share.Store(old + (int64(sample)-old)/8)
}

// batchParams sorts calls by key, so that two batches claiming the same
// keys lock them in one order, and returns them with the batched claims'
// parameters: one array per column, one element per call in that order.
func batchParams(calls []*claimCall) ([]*claimCall, []param) {
	sorted := slices.Clone(calls)
	slices.SortFunc(sorted, func(a, b *claimCall) int {
		return cmp.Or(cmp.Compare(a.k.Account, b.k.Account), cmp.Compare(a.k.Key, b.k.Key))
	})
	n := len(sorted)
	accounts, keys, ops, fps, points, targets := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	bodies, nows := make([][]byte, n), make([]int64, n)
	for i, c := range sorted {
		accounts[i], keys[i], ops[i], fps[i], points[i] = c.k.Account, c.k.Key, c.c.Operation, c.c.Fingerprint, c.c.RecoveryPoint
		bodies[i], targets[i], nows[i] = nonNil(c.c.RequestBody), c.c.RequestTarget, micros(c.now)
	}
	return sorted, []param{{"batch_account_id", accounts}, {"batch_idempotency_key", keys}, {"batch_operation", ops}, {"batch_fingerprint", fps}, {"batch_request_body", bodies}, {"batch_request_target", targets}, {"batch_recovery_point", points}, {"batch_now", nows}}
}

// claimBatch runs ClaimBatch for calls of distinct keys and sets each
// call's outcome: won for the keys the statement returns, and for the
// others lost with no row, which their callers read with Lookup (as they
// do when a plain claim loses). The statement runs without the callers'
// cancellation: it serves them all.
func (s *SQLStore) claimBatch(calls []*claimCall) error {
	sorted, vals := batchParams(calls)
	n := len(sorted)
	s.counts.batches.Add(1)
	st, args := s.args(storage.ClaimBatch, vals)
	// A row is the key columns of one key won: the account and the key when
	// keys are per account, the key alone when they are global (and the
	// calls' accounts empty: claimLookupBatched).
	var won keystore.Key
	dest := []any{&won.Key}
	if len(s.schema.KeyColumns) == 2 {
		dest = []any{&won.Account, &won.Key}
	}
	byKey := make(map[keystore.Key]*claimCall, n)
	for _, c := range sorted {
		byKey[c.k] = c
	}
	err := s.native.(native.Querier).QueryRows(context.WithoutCancel(calls[0].ctx), st.SQL, args, dest, func() error {
		c := byKey[won]
		if c == nil || c.won {
			return fmt.Errorf("returned %q, not one of the %d keys sent", won.Key, n)
		}
		c.won = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("idempotency: ClaimBatch: %w", err)
	}
	return nil
}

// claimLookupBatch runs ClaimLookupBatch for calls of distinct keys and
// sets each call's outcome, a loser's with the row it lost to (or none
// when that row is newer than the statement). The statement runs without
// the callers' cancellation: it serves them all.
func (s *SQLStore) claimLookupBatch(calls []*claimCall) error {
	// ord maps each row back to its call.
	sorted, vals := batchParams(calls)
	n := len(sorted)
	s.counts.batches.Add(1)
	s.counts.lookupBatches.Add(1)
	st, args := s.args(storage.ClaimLookupBatch, vals)
	var ord int64
	var won bool
	var r rowScan
	got := 0
	err := s.native.(native.Querier).QueryRows(context.WithoutCancel(calls[0].ctx), st.SQL, args,
		append([]any{&ord, &won}, r.dest()...), func() error {
			if ord < 1 || ord > int64(n) {
				return fmt.Errorf("row %d of %d keys", ord, n)
			}
			c := sorted[ord-1]
			c.won, c.rec = won, nil
			if !won && r.operation.Valid {
				rec, err := r.record(storage.ClaimLookupBatch)
				if err != nil {
					return err
				}
				c.rec = rec
			}
			r = rowScan{}
			got++
			return nil
		})
	if err == nil && got != n {
		err = errors.New("missing rows")
	}
	if err != nil {
		return fmt.Errorf("idempotency: ClaimLookupBatch: %w", err)
	}
	return nil
}
