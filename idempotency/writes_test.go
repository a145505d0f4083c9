package idempotency_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/dbtest"
)

// effectsStore opens a store of the payouts contract and, on a SQL store,
// the handler's effects table (insert and count are nil in memory).
func effectsStore(t *testing.T, name string) (c *contract.Contract, store keystore.Store, insert func(string) idempotency.Write, count func(string) int) {
	t.Helper()
	c = payoutsContract(t)
	store = openStore(t, name, c)
	if s, ok := store.(*stores.SQLStore); ok {
		insert, count = dbtest.EffectsTable(t, s)
	}
	return c, store, insert, count
}

// TestWritesCommitWithTheKey: a handler's writes given to CheckpointWrites
// and CompleteWrites commit with the fenced write or not at all, on every
// SQL store (PostgreSQL: one pipeline ending in the OrAbort statement;
// elsewhere a transaction). A stale token commits nothing, the handler's
// writes included; a failing handler write leaves the key as it was.
func TestWritesCommitWithTheKey(t *testing.T) {
	for _, name := range dbtest.Names {
		t.Run(name, func(t *testing.T) {
			c := payoutsContract(t)
			s := openStore(t, name, c).(*stores.SQLStore)
			insert, count := dbtest.EffectsTable(t, s)
			ctx := context.Background()
			k := keystore.Key{Account: "acct_a", Key: "w-1"}
			now := time.UnixMicro(1_700_000_000_000_000)
			if won, err := s.Claim(ctx, k, keystore.NewClaim{Operation: "POST /v1/transfers", RecoveryPoint: "started"}, now); err != nil || !won {
				t.Fatalf("claim: %v %v", won, err)
			}

			ok, err := s.CheckpointWrites(ctx, k, 1, "transfer_created", map[string]string{"charge_bank": "dk"}, now, []idempotency.Write{insert("a")})
			if err != nil || !ok || count("a") != 1 {
				t.Fatalf("checkpoint with a write: ok %v, err %v, rows %d", ok, err, count("a"))
			}
			if rec, _ := s.Lookup(ctx, k); rec.RecoveryPoint != "transfer_created" || rec.DownstreamKeys["charge_bank"] != "dk" {
				t.Fatalf("checkpoint not stored: %+v", rec)
			}

			// The handler's own write fails (duplicate id): nothing commits.
			ok, err = s.CheckpointWrites(ctx, k, 1, "bank_charged", nil, now, []idempotency.Write{insert("b"), insert("a")})
			if err == nil || ok || !strings.Contains(err.Error(), "write 2 of 2") {
				t.Fatalf("failing handler write: ok %v, err %v", ok, err)
			}
			if rec, _ := s.Lookup(ctx, k); rec.RecoveryPoint != "transfer_created" || count("b") != 0 {
				t.Fatalf("a failed phase committed: point %q, rows of b %d", rec.RecoveryPoint, count("b"))
			}

			// A write the database cannot even prepare: an error, and the
			// key stays in flight.
			bad := idempotency.Write{SQL: "INSERT INTO no_such_table (id) VALUES (1)"}
			if ok, err := s.CompleteWrites(ctx, k, 1, keystore.Response{Status: 201}, "receipt_sent", now, []idempotency.Write{insert("c"), bad}); err == nil || ok {
				t.Fatalf("unpreparable write: ok %v, err %v", ok, err)
			}
			if rec, _ := s.Lookup(ctx, k); rec.Complete() || count("c") != 0 {
				t.Fatalf("a failed completion committed: %+v, rows of c %d", rec, count("c"))
			}

			// Another worker takes the key over: the old token's writes are
			// refused whole.
			later := now.Add(3 * time.Minute)
			if ok, err := s.Takeover(ctx, k, 1, later); err != nil || !ok {
				t.Fatalf("takeover: %v %v", ok, err)
			}
			resp := keystore.Response{Status: 201, Body: []byte(`{"id":"late"}`)}
			if ok, err := s.CompleteWrites(ctx, k, 1, resp, "receipt_sent", later, []idempotency.Write{insert("late")}); err != nil || ok {
				t.Fatalf("stale token completed: ok %v, err %v", ok, err)
			}
			if ok, err := s.CheckpointWrites(ctx, k, 1, "bank_charged", nil, later, []idempotency.Write{insert("late2")}); err != nil || ok {
				t.Fatalf("stale token checkpointed: ok %v, err %v", ok, err)
			}
			if count("late") != 0 || count("late2") != 0 {
				t.Fatalf("a stale token's writes committed (%d, %d rows)", count("late"), count("late2"))
			}
			if rec, _ := s.Lookup(ctx, k); rec.Complete() || rec.Fence != 2 {
				t.Fatalf("after the stale writes: %+v", rec)
			}

			// The new owner completes with its write.
			resp.Body = []byte(`{"id":"winner"}`)
			if ok, err := s.CompleteWrites(ctx, k, 2, resp, "receipt_sent", later, []idempotency.Write{insert("winner")}); err != nil || !ok {
				t.Fatalf("current token: ok %v, err %v", ok, err)
			}
			if rec, _ := s.Lookup(ctx, k); !rec.Complete() || string(rec.Body) != `{"id":"winner"}` || count("winner") != 1 {
				t.Fatalf("completion not stored with its write: %+v, rows %d", rec, count("winner"))
			}
		})
	}
}

// TestFinishWrites: through the middleware, a handler finishing with
// FinishWrites runs once per key, its write commits once, and a retry
// replays; a worker whose key was taken over while it ran commits nothing.
func TestFinishWrites(t *testing.T) {
	for _, name := range allStores {
		t.Run(name, func(t *testing.T) {
			c, store, insert, count := effectsStore(t, name)
			f := newFixture(t, c, store, idempotency.Options{})
			var gate chan struct{}
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := f.handler.runs.Add(1)
				if gate != nil && n == 11 {
					<-gate
				}
				id := fmt.Sprintf("tr_%d", n)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				fmt.Fprintf(w, `{"id":%q}`, id)
				var writes []idempotency.Write
				if insert != nil {
					writes = append(writes, insert(id))
				}
				err := idempotency.FromContext(r.Context()).FinishWrites(r.Context(), writes...)
				if err != nil && !errors.Is(err, idempotency.ErrFenceLost) {
					t.Errorf("FinishWrites: %v", err)
				}
			})
			var err error
			if f.h, err = f.mw.Handle("POST /v1/transfers", h); err != nil {
				t.Fatal(err)
			}
			first := f.do("fw-1", "acct_a", body)
			again := f.do("fw-1", "acct_a", body)
			if first.Code != 201 || again.Code != 201 || first.Body.String() != again.Body.String() || again.Header().Get("Idempotent-Replayed") == "" {
				t.Fatalf("first %d %s, retry %d %s %v", first.Code, first.Body, again.Code, again.Body, again.Header())
			}
			if f.handler.runs.Load() != 1 || (count != nil && count("tr_1") != 1) {
				t.Fatalf("runs %d, want 1 run and 1 row", f.handler.runs.Load())
			}

			// A paused worker loses the key to a takeover: its write is not committed.
			f.handler.runs.Store(10)
			gate = make(chan struct{})
			done := make(chan struct{})
			go func() { defer close(done); f.do("fw-2", "acct_a", body) }()
			for f.handler.runs.Load() == 10 {
				time.Sleep(time.Millisecond) // waits for the run to start; not a time bound
			}
			f.clock.Add(2*time.Minute + time.Second)
			if w := f.do("fw-2", "acct_a", body); w.Code != 201 || !strings.Contains(w.Body.String(), "tr_12") {
				t.Fatalf("takeover: %d %s", w.Code, w.Body)
			}
			close(gate)
			<-done
			if count != nil && (count("tr_11") != 0 || count("tr_12") != 1) {
				t.Fatalf("rows: paused worker %d (want 0), new owner %d (want 1)", count("tr_11"), count("tr_12"))
			}
		})
	}
}
