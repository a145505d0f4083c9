package idempotency_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/alerting"
	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/dbtest"
)

// finishHandler answers 201 and finishes with the insert of its row; a
// run whose FinishWrites fails calls it again when retryFinish says so
// (as a handler retrying a deadlock victim does), then returns.
func finishHandler(f *fixture, insert func(string) idempotency.Write, id func(run int64) string, retryFinish bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := f.handler.runs.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id":%q}`, id(n))
		var writes []idempotency.Write
		if insert != nil {
			writes = append(writes, insert(id(n)))
		}
		step := idempotency.FromContext(r.Context())
		if err := step.FinishWrites(r.Context(), writes...); err != nil && retryFinish {
			_ = step.FinishWrites(r.Context(), writes...)
		}
	})
}

// TestFailedFinishIsNotStored: a last transaction that fails (here a
// constraint on the handler's own row) stores nothing the handler wrote:
// the caller gets 503, the key is released, and the retry runs the last
// phase again and commits it once. Today's code stored the 201 through a
// separate Complete, and every retry replayed a payout that never
// committed.
func TestFailedFinishIsNotStored(t *testing.T) {
	for _, name := range allStores {
		t.Run(name, func(t *testing.T) {
			c, store, insert, count := effectsStore(t, name)
			if s, ok := store.(*stores.SQLStore); ok {
				// The first run's row collides with one already there.
				dup := insert("tr_dup")
				if _, err := s.DB().Exec(dup.SQL, dup.Args...); err != nil {
					t.Fatal(err)
				}
			}
			f := newFixture(t, c, store, idempotency.Options{})
			id := func(n int64) string {
				if n == 1 {
					return "tr_dup"
				}
				return fmt.Sprintf("tr_%d", n)
			}
			h := finishHandler(f, insert, id, false)
			if insert == nil {
				h = memoryFailingFirst(f, h)
			}
			var err error
			if f.h, err = f.mw.Handle("POST /v1/transfers", h); err != nil {
				t.Fatal(err)
			}
			first := f.do("ff-1", "acct_a", body)
			if first.Code != http.StatusServiceUnavailable || first.Header().Get("Retry-After") == "" {
				t.Fatalf("failed finish answered %d %s", first.Code, first.Body)
			}
			rec, err := f.store.Lookup(context.Background(), keystore.Key{Account: "acct_a", Key: "ff-1"})
			if err != nil || rec == nil || rec.Complete() {
				t.Fatalf("after a failed finish the key is %+v (%v), want in flight and released", rec, err)
			}
			if n := f.metrics.Get(alerting.StoreFailures, "", alerting.StoreFinish); n != 1 {
				t.Errorf("store failures of kind finish: %d, want 1", n)
			}
			again := f.do("ff-1", "acct_a", body)
			if again.Code != http.StatusCreated || again.Body.String() != `{"id":"tr_2"}` || f.handler.runs.Load() != 2 {
				t.Fatalf("retry after a failed finish: %d %s after %d runs", again.Code, again.Body, f.handler.runs.Load())
			}
			third := f.do("ff-1", "acct_a", body)
			if third.Code != http.StatusCreated || third.Body.String() != again.Body.String() || f.handler.runs.Load() != 2 || (count != nil && count("tr_2") != 1) {
				t.Fatalf("replay: %d %s after %d runs", third.Code, third.Body, f.handler.runs.Load())
			}
			if n := f.metrics.Get(alerting.DuplicateEffects, "", ""); n != 0 {
				t.Errorf("duplicate effects counted: %d", n)
			}
		})
	}
}

// memoryFailingFirst makes the first run's FinishWrites fail on the
// in-memory store, which has no transaction to fail: it gets a write,
// which that store refuses.
func memoryFailingFirst(f *fixture, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.handler.runs.Load() == 0 {
			f.handler.runs.Add(1)
			w.WriteHeader(http.StatusCreated)
			err := idempotency.FromContext(r.Context()).FinishWrites(r.Context(), idempotency.Write{SQL: "INSERT"})
			if err == nil {
				panic("the in-memory store ran a write")
			}
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ackLost is a real store whose CompleteWrites commits and then reports a
// lost connection, as a driver does when the link breaks between the
// commit and its acknowledgement.
type ackLost struct{ *stores.SQLStore }

func (s ackLost) CompleteWrites(ctx context.Context, k keystore.Key, fence int64, r keystore.Response, rp string, now time.Time, writes []idempotency.Write) (bool, error) {
	ok, err := s.SQLStore.CompleteWrites(ctx, k, fence, r, rp, now, writes)
	if err == nil && ok {
		err = errors.New("read tcp 127.0.0.1:5432: connection reset by peer")
	}
	return ok, err
}

// TestFinishCommittedButUnacknowledged: a last transaction that committed
// but whose acknowledgement was lost is a success: the caller gets the
// stored 201, whether the handler gives up or calls FinishWrites again
// (whose fenced write is then refused), never a 409 nor a duplicate-effect
// count, and the retry replays it.
func TestFinishCommittedButUnacknowledged(t *testing.T) {
	for _, name := range allStores[1:] {
		for _, retryFinish := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/retry=%v", name, retryFinish), func(t *testing.T) {
				c := payoutsContract(t)
				s := openStore(t, name, c).(*stores.SQLStore)
				insert, count := dbtest.EffectsTable(t, s)
				f := newFixture(t, c, ackLost{s}, idempotency.Options{})
				h := finishHandler(f, insert, func(n int64) string { return fmt.Sprintf("tr_%d", n) }, retryFinish)
				var err error
				if f.h, err = f.mw.Handle("POST /v1/transfers", h); err != nil {
					t.Fatal(err)
				}
				first := f.do("ack-1", "acct_a", body)
				if first.Code != http.StatusCreated || first.Body.String() != `{"id":"tr_1"}` {
					t.Fatalf("committed finish answered %d %s", first.Code, first.Body)
				}
				again := f.do("ack-1", "acct_a", body)
				if again.Code != http.StatusCreated || again.Body.String() != first.Body.String() || f.handler.runs.Load() != 1 || count("tr_1") != 1 {
					t.Fatalf("retry: %d %s after %d runs, %d rows", again.Code, again.Body, f.handler.runs.Load(), count("tr_1"))
				}
				if n := f.metrics.Get(alerting.DuplicateEffects, "", ""); n != 0 {
					t.Errorf("duplicate effects counted: %d", n)
				}
				if n := f.metrics.Get(alerting.StoreFailures, "", alerting.StoreFinishUnacknowledged); n != 1 {
					t.Errorf("unacknowledged finishes counted: %d, want 1", n)
				}
			})
		}
	}
}
