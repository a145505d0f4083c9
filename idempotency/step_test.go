package idempotency_test

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/alerting"
	"github.com/retryspec/retryspec/idempotency/keystore"
)

// TestNoNilTransaction: on a store without transactions (the in-memory
// one) a phase with writes is refused with an error before the handler's
// function runs, so no caller of Commit, Finish, CommitWrites or
// FinishWrites is ever handed a nil *sql.Tx; a phase without writes
// commits as on any store.
func TestNoNilTransaction(t *testing.T) {
	tests := []struct {
		name    string
		call    func(ctx context.Context, s *idempotency.Step, fn func(*sql.Tx) error) error
		refused bool
	}{
		{"Commit with writes", func(ctx context.Context, s *idempotency.Step, fn func(*sql.Tx) error) error {
			return s.Commit(ctx, "transfer_created", fn)
		}, true},
		{"Finish with writes", func(ctx context.Context, s *idempotency.Step, fn func(*sql.Tx) error) error {
			return s.Finish(ctx, fn)
		}, true},
		{"CommitWrites with writes", func(ctx context.Context, s *idempotency.Step, _ func(*sql.Tx) error) error {
			return s.CommitWrites(ctx, "transfer_created", idempotency.Write{SQL: "UPDATE transfers SET status = 'x'"})
		}, true},
		{"FinishWrites with writes", func(ctx context.Context, s *idempotency.Step, _ func(*sql.Tx) error) error {
			return s.FinishWrites(ctx, idempotency.Write{SQL: "UPDATE transfers SET status = 'x'"})
		}, true},
		{"Commit without writes", func(ctx context.Context, s *idempotency.Step, _ func(*sql.Tx) error) error {
			return s.Commit(ctx, "transfer_created", nil)
		}, false},
		{"CommitWrites without writes", func(ctx context.Context, s *idempotency.Step, _ func(*sql.Tx) error) error {
			return s.CommitWrites(ctx, "transfer_created")
		}, false},
		{"FinishWrites without writes", func(ctx context.Context, s *idempotency.Step, _ func(*sql.Tx) error) error {
			return s.FinishWrites(ctx)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := payoutsContract(t)
			f := newFixture(t, c, idempotency.NewMemoryStore(c), idempotency.Options{})
			var err error
			var sawNil, ran bool
			f.handler.onRun = func(s *idempotency.Step) {
				err = tt.call(context.Background(), s, func(tx *sql.Tx) error {
					ran, sawNil = true, tx == nil
					return nil
				})
			}
			w := f.do("k", "acct_a", body)
			if sawNil {
				t.Fatal("the phase's function was handed a nil *sql.Tx")
			}
			if !tt.refused {
				if err != nil || w.Code != 201 {
					t.Errorf("a phase without writes: %v, answer %d %s", err, w.Code, w.Body)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "no transactions") || errors.Is(err, idempotency.ErrFenceLost) || ran {
				t.Errorf("a phase with writes on the in-memory store: err %v, function ran %v", err, ran)
			}
		})
	}
}

// TestDownstreamKeyIsStored: a downstream key is stored before it is
// returned, so the retry of an attempt that gave up sends the external
// call the same key; a call the contract does not list gets no key.
func TestDownstreamKeyIsStored(t *testing.T) {
	c := payoutsContract(t)
	f := newFixture(t, c, idempotency.NewMemoryStore(c), idempotency.Options{})
	var keys []string
	var unlisted error
	f.handler.onRun = func(s *idempotency.Step) {
		k, err := s.DownstreamKey(context.Background(), "charge_bank")
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
		_, unlisted = s.DownstreamKey(context.Background(), "charge_card")
		if len(keys) == 1 {
			_ = s.Release(context.Background()) // the bank call failed: give the key up
		}
	}
	f.do("resume", "acct_a", body)
	f.do("resume", "acct_a", body)
	if len(keys) != 2 || keys[0] != keys[1] {
		t.Errorf("charge_bank's keys on the attempt and its retry: %q, want one key twice", keys)
	}
	if unlisted == nil || !strings.Contains(unlisted.Error(), "not an external call") {
		t.Errorf("a call the contract does not list: %v", unlisted)
	}
}

// TestUnknownRecoveryPoint: Commit and CommitWrites refuse a recovery
// point the contract does not list for the endpoint, and commit nothing.
func TestUnknownRecoveryPoint(t *testing.T) {
	c := payoutsContract(t)
	f := newFixture(t, c, idempotency.NewMemoryStore(c), idempotency.Options{})
	var errs []error
	var points []string
	f.handler.onRun = func(s *idempotency.Step) {
		errs = append(errs, s.Commit(context.Background(), "bank_charge", nil), s.CommitWrites(context.Background(), "bank_charge"))
		points = append(points, s.RecoveryPoint())
	}
	f.do("points", "acct_a", body)
	for _, err := range errs {
		if err == nil || !strings.Contains(err.Error(), `"bank_charge" is not a recovery point`) {
			t.Errorf("an unlisted recovery point: %v", err)
		}
	}
	if points[0] != idempotency.NotStarted {
		t.Errorf("recovery point after the refused commits: %q", points[0])
	}
}

// TestLostFenceSticks: once a run's fenced write is refused (another
// worker took the key over), the run owns nothing: its Release is a
// no-op, and the middleware answers the in-flight conflict and counts a
// possible duplicate effect instead of sending what the handler wrote.
func TestLostFenceSticks(t *testing.T) {
	c := payoutsContract(t)
	store := idempotency.NewMemoryStore(c)
	f := newFixture(t, c, store, idempotency.Options{})
	var commitErr error
	f.handler.onRun = func(s *idempotency.Step) {
		ctx := context.Background()
		f.clock.Add(3 * time.Minute) // past lock_timeout: another worker takes the key over
		if ok, err := store.Takeover(ctx, keystore.Key{Key: s.Key(), Account: s.Account()}, s.Fence(), f.clock.Now()); !ok || err != nil {
			t.Fatalf("takeover: %v %v", ok, err)
		}
		commitErr = s.Commit(ctx, "transfer_created", nil)
		_ = s.Release(ctx)
	}
	w := f.do("taken", "acct_a", body)
	if !errors.Is(commitErr, idempotency.ErrFenceLost) || w.Code != http.StatusConflict || f.metrics.Get(alerting.DuplicateEffects, "", "") != 1 {
		t.Errorf("a run whose key was taken over: commit %v, answer %d %s, duplicate effects %d",
			commitErr, w.Code, w.Body, f.metrics.Get(alerting.DuplicateEffects, "", ""))
	}
}

// TestReached: a recovery point is reached once it or a later one
// committed; on a first attempt only the list's own "started" is.
func TestReached(t *testing.T) {
	c := payoutsContract(t)
	f := newFixture(t, c, idempotency.NewMemoryStore(c), idempotency.Options{})
	var got []string
	reached := func(s *idempotency.Step) {
		var r []string
		for _, p := range []string{"started", "transfer_created", "bank_charged", "receipt_sent", "finished", "no_such_point"} {
			if s.Reached(p) {
				r = append(r, p)
			}
		}
		got = append(got, strings.Join(r, " "))
	}
	f.handler.onRun = func(s *idempotency.Step) {
		reached(s)
		for _, p := range []string{"transfer_created", "bank_charged"} {
			if err := s.Commit(context.Background(), p, nil); err != nil {
				t.Fatal(err)
			}
			reached(s)
		}
	}
	f.do("phases", "acct_a", body)
	want := []string{"started", "started transfer_created", "started transfer_created bank_charged"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("reached points: %q, want %q", got, want)
	}
}
