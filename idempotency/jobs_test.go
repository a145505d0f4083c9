package idempotency_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/alerting"
	"github.com/retryspec/retryspec/idempotency/keystore"
)

// abandon claims k and leaves it in flight at recovery point rp.
func abandon(t *testing.T, f *fixture, k keystore.Key, rp string) {
	t.Helper()
	ctx := context.Background()
	if won, err := f.store.Claim(ctx, k, keystore.NewClaim{Operation: "POST /v1/transfers", RequestBody: []byte(body), RecoveryPoint: "started"}, f.clock.Now()); err != nil || !won {
		t.Fatal(won, err)
	}
	if ok, err := f.store.Checkpoint(ctx, nil, k, 1, rp, nil, f.clock.Now()); err != nil || !ok {
		t.Fatal(ok, err)
	}
}

// TestCompleterBacksOff: a key the completer cannot finish (its handler
// releases it every time) is not run again on the next tick, but after a
// wait that doubles; each failure is logged with key and account.
func TestCompleterBacksOff(t *testing.T) {
	for _, name := range []string{"memory", "sqlite"} {
		t.Run(name, func(t *testing.T) {
			c := payoutsContract(t)
			var logs bytes.Buffer
			f := newFixture(t, c, openStore(t, name, c), idempotency.Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				f.handler.runs.Add(1)
				_ = idempotency.FromContext(r.Context()).Release(r.Context())
				w.WriteHeader(http.StatusBadGateway)
			})
			var err error
			if f.h, err = f.mw.Handle("POST /v1/transfers", h); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			abandon(t, f, keystore.Key{Account: "acct_a", Key: "stuck"}, "bank_charged")
			f.clock.Add(2*time.Minute + time.Second)
			tick := func(want int64) {
				t.Helper()
				if _, err := f.mw.Complete(ctx, 10); err != nil {
					t.Fatal(err)
				}
				if n := f.handler.runs.Load(); n != want {
					t.Fatalf("handler ran %d times, want %d", n, want)
				}
			}
			tick(1)
			tick(1) // the next tick leaves it alone
			f.clock.Add(2*time.Minute + time.Second)
			tick(2)
			f.clock.Add(2*time.Minute + time.Second)
			tick(2) // the second wait is twice the first
			f.clock.Add(2 * time.Minute)
			tick(3)
			if !strings.Contains(logs.String(), "key=stuck account=acct_a recovery_point=bank_charged") {
				t.Errorf("backoff not logged with key and account:\n%s", logs.String())
			}
		})
	}
}

// TestReaperLogsUnfinished: the reaper logs and counts each key it deletes
// while still in flight, with key, account and last recovery point; a
// completed key is deleted without that warning.
func TestReaperLogsUnfinished(t *testing.T) {
	for _, name := range []string{"memory", "sqlite"} {
		t.Run(name, func(t *testing.T) {
			c := payoutsContract(t)
			var logs bytes.Buffer
			f := newFixture(t, c, openStore(t, name, c), idempotency.Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
			abandon(t, f, keystore.Key{Account: "acct_a", Key: "never-finished"}, "bank_charged")
			f.do("finished", "acct_a", body)
			f.clock.Add(73 * time.Hour)
			if n, err := f.mw.Reap(context.Background(), 10); err != nil || n != 2 {
				t.Fatalf("reaped %d (%v), want 2", n, err)
			}
			out := logs.String()
			if !strings.Contains(out, "key=never-finished account=acct_a recovery_point=bank_charged") || strings.Contains(out, "key=finished") {
				t.Errorf("reaper log:\n%s", out)
			}
			if n := f.metrics.Get(alerting.ReapedUnfinished, "", ""); n != 1 {
				t.Errorf("unfinished keys reaped counted: %d, want 1", n)
			}
		})
	}
}

// TestFirstPointNotReachedOnFirstAttempt: with the recovery points `check`
// suggests (no "started" first), the documented handler pattern runs its
// first phase on a first attempt. Before, the claim recorded the first
// point, Reached said it was done, and the insert was skipped.
func TestFirstPointNotReachedOnFirstAttempt(t *testing.T) {
	for _, name := range []string{"memory", "sqlite"} {
		t.Run(name, func(t *testing.T) {
			c := payoutsContract(t, "recovery_points: [started, transfer_created, bank_charged, receipt_sent, finished]",
				"recovery_points: [transfer_created, bank_charged, receipt_sent]")
			f := newFixture(t, c, openStore(t, name, c), idempotency.Options{})
			var phases []string
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ctx := r.Context()
				step := idempotency.FromContext(ctx)
				for _, p := range []string{"transfer_created", "bank_charged"} {
					if !step.Reached(p) {
						phases = append(phases, p)
						if err := step.Commit(ctx, p, nil); err != nil {
							t.Error(err)
						}
					}
				}
				w.WriteHeader(http.StatusCreated)
				if err := step.Finish(ctx, nil); err != nil {
					t.Error(err)
				}
			})
			var err error
			if f.h, err = f.mw.Handle("POST /v1/transfers", h); err != nil {
				t.Fatal(err)
			}
			if w := f.do("first", "acct_a", body); w.Code != 201 || strings.Join(phases, ",") != "transfer_created,bank_charged" {
				t.Fatalf("first attempt: %d, phases run %v", w.Code, phases)
			}
		})
	}
}
