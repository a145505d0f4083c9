package idempotency_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/idempotency"
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
