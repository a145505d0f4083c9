package idempotency

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/retryspec/retryspec/idempotency/keystore"
)

type stepKey struct{}

// Step is a keyed request's place in its endpoint's recovery points, as the
// handler sees it. A multi-step handler reads RecoveryPoint, skips the
// phases already committed, gets a DownstreamKey before each external call,
// and commits each phase's writes together with the next recovery point
// (Commit), so a retry after a crash resumes where the last commit left
// off and repeats no external effect.
type Step struct {
	h          *endpointHandler
	k          keystore.Key
	fence      int64
	point      string
	resumed    bool
	downstream map[string]string
	rec        *recorder
	done, lost bool
	released   bool
	stored     *keystore.Response // what Finish or FinishWrites stored
	// finishErr is the error of the last Finish or FinishWrites that
	// failed without a lost fence (nil after one succeeded): the
	// middleware then stores nothing the handler wrote (run, settle).
	finishErr error
}

// FromContext returns the Step of a request the middleware let through, or
// nil (a key: optional request sent without a key).
func FromContext(ctx context.Context) *Step {
	s, _ := ctx.Value(stepKey{}).(*Step)
	return s
}

// Key is the idempotency key the caller sent.
func (s *Step) Key() string { return s.k.Key }

// Account is the caller's account the key is scoped to ("" with scope: global).
func (s *Step) Account() string { return s.k.Account }

// Fence is the fencing token this worker holds.
func (s *Step) Fence() int64 { return s.fence }

// RecoveryPoint is the last committed recovery point: NotStarted on a
// first attempt, and on a retry before any phase committed.
func (s *Step) RecoveryPoint() string { return s.point }

// Resumed reports whether this run continues an earlier, interrupted one.
func (s *Step) Resumed() bool { return s.resumed }

// Reached reports whether the committed recovery point is point or later.
// On a first attempt nothing is reached (but "started", when the list
// begins with it): the claim commits no phase.
func (s *Step) Reached(point string) bool {
	pts := s.h.ep.RecoveryPoints
	return slices.Index(pts, s.point) >= slices.Index(pts, point) && slices.Contains(pts, point)
}

// DownstreamKey returns the idempotency key to send with external call
// `call`. The first time, it is chosen at random and persisted (fenced)
// before it is returned, so a retry after a crash sends the same key and
// the external service applies the call once.
func (s *Step) DownstreamKey(ctx context.Context, call string) (string, error) {
	return s.h.m.path.downstreamKey(s, ctx, call)
}

func (s *Step) downstreamKey(ctx context.Context, call string) (string, error) {
	if !slices.Contains(s.h.ep.ExternalCalls, call) {
		return "", fmt.Errorf("idempotency: %q is not an external call of %s in the contract", call, s.h.ep.Operation)
	}
	if k, ok := s.downstream[call]; ok {
		return k, nil
	}
	next := maps.Clone(s.downstream)
	if next == nil {
		next = map[string]string{}
	}
	next[call] = randomKey()
	if err := s.write(ctx, nil, s.point, next); err != nil {
		return "", err
	}
	s.downstream = next
	return next[call], nil
}

// Commit runs fn in one transaction with the fenced write of the next
// recovery point: both commit or neither does. fn is never handed a nil
// *sql.Tx: on a store without transactions (the in-memory one, for unit
// tests) a non-nil fn is refused with an error before it runs, and a nil
// fn (a phase without writes) commits the recovery point alone.
// ErrFenceLost means another worker owns the key now:
// return without further effects.
func (s *Step) Commit(ctx context.Context, next string, fn func(tx *sql.Tx) error) error {
	if !slices.Contains(s.h.ep.RecoveryPoints, next) {
		return fmt.Errorf("idempotency: %q is not a recovery point of %s in the contract", next, s.h.ep.Operation)
	}
	return s.inTx(ctx, fn, func(tx *sql.Tx) error {
		if err := s.write(ctx, tx, next, s.downstream); err != nil {
			return err
		}
		s.point = next
		return nil
	})
}

// Finish runs fn in one transaction with the stored response: write the
// response to the ResponseWriter first, then call Finish with the last
// phase's writes. The key is complete when it returns nil; the middleware
// then sends the response without a further statement.
//
// When Finish returns an error other than ErrFenceLost, nothing of the
// last phase committed (or its commit could not be confirmed): return
// without further effects. The middleware then does not send or store the
// response written before; it reads the key's row, sends the stored
// response if the commit did land, and otherwise releases the key and
// answers 503, so the retry resumes from the last recovery point. Calling
// Finish again (a deadlock victim retried) is allowed.
//
// A response whose status the contract does not store
// (contract.Idempotency.Stores) cannot complete the key: Finish returns
// ErrNotStored and the middleware sends the response unstored.
func (s *Step) Finish(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if err := s.refuseUnstored(ctx); err != nil {
		return err
	}
	return s.finished(s.inTx(ctx, fn, func(tx *sql.Tx) error {
		m := s.h.m
		resp := s.rec.response()
		if err := s.fenced(m.store.Complete(ctx, tx, s.k, s.fence, resp, s.h.lastPoint(), m.now())); err != nil {
			return err
		}
		s.done, s.stored = true, &resp
		return nil
	}))
}

// finished records a Finish's outcome for the middleware.
func (s *Step) finished(err error) error {
	s.finishErr = nil
	if err != nil && !errors.Is(err, ErrFenceLost) {
		s.finishErr = err
	}
	return err
}

// CommitWrites is Commit for a phase whose writes need no results: they
// and the fenced recovery point commit together, in one round trip where
// the store can pipeline them (PostgreSQL through pgx) and in one
// transaction otherwise. ErrFenceLost means nothing was committed.
func (s *Step) CommitWrites(ctx context.Context, next string, writes ...Write) error {
	if !slices.Contains(s.h.ep.RecoveryPoints, next) {
		return fmt.Errorf("idempotency: %q is not a recovery point of %s in the contract", next, s.h.ep.Operation)
	}
	if s.lost {
		return ErrFenceLost
	}
	wc, ok := s.h.m.store.(keystore.WriteCommitter)
	if !ok {
		return s.Commit(ctx, next, execWrites(ctx, writes))
	}
	if err := s.fenced(wc.CheckpointWrites(ctx, s.k, s.fence, next, s.downstream, s.h.m.now(), writes)); err != nil {
		return err
	}
	s.point = next
	return nil
}

// FinishWrites is Finish for a last phase whose writes need no results:
// write the response first, then call it. On PostgreSQL through pgx the
// writes and the stored response go in one round trip, so a first attempt
// costs the claim and this pipeline. Its errors mean what Finish's do.
func (s *Step) FinishWrites(ctx context.Context, writes ...Write) error {
	if s.lost {
		return ErrFenceLost
	}
	if err := s.refuseUnstored(ctx); err != nil {
		return err
	}
	m := s.h.m
	wc, ok := m.store.(keystore.WriteCommitter)
	if !ok {
		return s.Finish(ctx, execWrites(ctx, writes))
	}
	resp := s.rec.response()
	if err := s.finished(s.fenced(wc.CompleteWrites(ctx, s.k, s.fence, resp, s.h.lastPoint(), m.now(), writes))); err != nil {
		return err
	}
	s.done, s.stored = true, &resp
	return nil
}

// ErrNotStored is Finish's answer for a response whose status the
// contract does not store: nothing of the last phase committed and the key
// was released, so a retry resumes from the last recovery point; return
// without further effects.
var ErrNotStored = errors.New("idempotency: the contract does not store this response's status, so it cannot complete the key")

// refuseUnstored releases the key and returns ErrNotStored when the
// response written so far has a status the contract does not store.
func (s *Step) refuseUnstored(ctx context.Context) error {
	status := s.rec.status
	if status == 0 {
		status = http.StatusOK
	}
	id := s.h.m.c.Idempotency
	if id.Stores(status) {
		return nil
	}
	if err := s.Release(ctx); err != nil {
		return err
	}
	return fmt.Errorf("%w (status %d, stored_outcomes %s)", ErrNotStored, status, id.Outcomes())
}

// errNoTransactions refuses a phase's writes on a store that has no
// transactions to run them in.
var errNoTransactions = errors.New("idempotency: this store has no transactions to run the handler's writes in (the in-memory store is for unit tests; use a SQL store)")

// execWrites runs writes in a Commit or Finish transaction.
func execWrites(ctx context.Context, writes []Write) func(tx *sql.Tx) error {
	if len(writes) == 0 {
		return nil // nothing to run: a store without transactions will do
	}
	return func(tx *sql.Tx) error {
		for _, w := range writes {
			if _, err := tx.ExecContext(ctx, w.SQL, w.Args...); err != nil {
				return err
			}
		}
		return nil
	}
}

// Release gives the key up without storing a response: the handler could
// not finish (an external service failed, its outcome unknown) and a retry
// should resume from the last recovery point instead of replaying this
// failure. The response the handler writes is sent but not stored.
func (s *Step) Release(ctx context.Context) error {
	if s.lost || s.done {
		return nil
	}
	if _, err := s.h.m.store.Release(ctx, s.k, s.fence); err != nil {
		return err
	}
	s.released = true
	return nil
}

func (s *Step) inTx(ctx context.Context, fn, then func(tx *sql.Tx) error) error {
	if s.lost {
		return ErrFenceLost
	}
	tx, err := s.h.m.store.Begin(ctx)
	if err != nil {
		return err
	}
	if tx == nil && fn != nil {
		// A store without transactions (the in-memory one) has nowhere
		// to run fn's writes: refuse before fn sees a nil *sql.Tx.
		return errNoTransactions
	}
	if fn != nil {
		if err := fn(tx); err != nil {
			rollback(tx)
			return err
		}
	}
	if err := then(tx); err != nil {
		rollback(tx)
		s.done = false
		return err
	}
	if tx != nil {
		if err := tx.Commit(); err != nil {
			s.done = false
			return err
		}
	}
	return nil
}

func rollback(tx *sql.Tx) {
	if tx != nil {
		_ = tx.Rollback()
	}
}

func (s *Step) write(ctx context.Context, tx *sql.Tx, point string, downstream map[string]string) error {
	m := s.h.m
	return s.fenced(m.store.Checkpoint(ctx, tx, s.k, s.fence, point, downstream, m.now()))
}

// fenced turns a fenced write's outcome into the step's: a write the fence
// refused means another worker owns the key now, and every later write of
// this step is refused too.
func (s *Step) fenced(ok bool, err error) error {
	if err != nil {
		return err
	}
	if !ok {
		s.lost = true
		return ErrFenceLost
	}
	return nil
}

func randomKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
