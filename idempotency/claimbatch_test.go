package idempotency_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/dbtest"
	"github.com/retryspec/retryspec/storage"
)

// TestClaimLookupBatched: concurrent claims, which PostgreSQL sends as
// ClaimBatch or ClaimLookupBatch statements when one is in flight, answer
// exactly as
// claims sent one by one would: per key one winner, every loser the row it
// lost to (or nil, then Lookup's), a key that was complete or in flight
// before lost with its row, and a key the column refuses fails alone. The
// rounds go on until PostgreSQL has sent a batch and seen one fail (which
// concurrency makes likely in the first rounds; the bound counts rounds,
// not time).
func TestClaimLookupBatched(t *testing.T) {
	for _, name := range dbtest.Names {
		t.Run(name, func(t *testing.T) {
			c := payoutsContract(t)
			s := openStore(t, name, c).(*stores.SQLStore)
			ctx := context.Background()
			now := time.UnixMicro(1_700_000_000_000_000)
			claimOf := func(key string) keystore.NewClaim {
				return keystore.NewClaim{Operation: "POST /v1/transfers", Fingerprint: "fp-" + key, RequestBody: []byte(`{"k":"` + key + `"}`), RecoveryPoint: "started"}
			}
			done := keystore.Key{Account: "acct_a", Key: "done"}
			busy := keystore.Key{Account: "acct_b", Key: "busy"}
			for _, k := range []keystore.Key{done, busy} {
				if won, _, err := s.ClaimLookup(ctx, k, claimOf(k.Key), now); err != nil || !won {
					t.Fatalf("seeding %v: %v %v", k, won, err)
				}
			}
			resp := keystore.Response{Status: 201, Headers: map[string][]string{"Content-Type": {"application/json"}}, Body: []byte(`{"id":"tr_done"}`)}
			if ok, err := s.Complete(ctx, nil, done, 1, resp, "finished", now); err != nil || !ok {
				t.Fatalf("complete: %v %v", ok, err)
			}
			batching := s.Schema().Dialect == storage.Postgres
			for round := 0; round < 200; round++ {
				var calls []keystore.Key
				for i := range 12 {
					k := keystore.Key{Account: fmt.Sprintf("acct_%d", i%3), Key: fmt.Sprintf("r%d-k%d", round, i)}
					calls = append(calls, k, k) // each new key twice
				}
				for range 4 {
					calls = append(calls, done, busy)
				}
				tooLong := keystore.Key{Account: "acct_a", Key: fmt.Sprintf("r%d-%s", round, strings.Repeat("x", 300))}
				calls = append(calls, tooLong)
				results := claimAll(ctx, s, calls, func(k keystore.Key) keystore.NewClaim { return claimOf(k.Key) }, now.Add(time.Second))
				winners := map[keystore.Key]int{}
				for _, r := range results {
					if r.k == tooLong {
						if batching && r.err == nil {
							t.Fatalf("round %d: a key longer than its column was claimed (won %v)", round, r.won)
						}
						continue
					}
					if r.err != nil {
						t.Fatalf("round %d: %v: %v", round, r.k, r.err)
					}
					if r.won {
						winners[r.k]++
						if r.rec != nil {
							t.Fatalf("round %d: %v won with a row", round, r.k)
						}
						continue
					}
					want, err := s.Lookup(ctx, r.k)
					if err != nil || want == nil {
						t.Fatalf("round %d: lookup %v: %+v %v", round, r.k, want, err)
					}
					if r.rec == nil && (r.k == done || r.k == busy) {
						t.Fatalf("round %d: %v existed before the round, yet its claim returned no row", round, r.k)
					}
					if r.rec != nil {
						if diff := cmp.Diff(want, r.rec); diff != "" {
							t.Fatalf("round %d: %v: the claim's row differs from Lookup's (-lookup +claim):\n%s", round, r.k, diff)
						}
					}
				}
				if winners[done] != 0 || winners[busy] != 0 {
					t.Fatalf("round %d: an existing key was won again: %v", round, winners)
				}
				for _, k := range calls[:24] {
					if winners[k] != 1 {
						t.Fatalf("round %d: %v has %d winners, want 1", round, k, winners[k])
					}
				}
				sent, failed := claimBatches(s)
				if !batching {
					if sent != 0 {
						t.Fatalf("%s sent %d batches; only PostgreSQL has ClaimBatch", name, sent)
					}
					return // one round: the plain statements, concurrently
				}
				// Which statement a batch goes as (ClaimBatch while claims
				// win, ClaimLookupBatch once most lose) depends on which
				// claims finish first, and on a loaded machine every batch
				// can go as ClaimLookupBatch: TestClaimStatementFollowsLosses
				// proves the switch with rounds that only win or only lose.
				lookups := s.Stats().LookupBatches
				if failed > 0 && sent > 0 {
					t.Logf("round %d: %d batches sent (%d ClaimLookupBatch), %d failed and were claimed one by one", round, sent, lookups, failed)
					return
				}
			}
			sent, failed := claimBatches(s)
			t.Fatalf("200 rounds of 33 concurrent claims: %d batches (%d ClaimLookupBatch), %d failed; want a batch and a failure", sent, s.Stats().LookupBatches, failed)
		})
	}
}

// TestClaimStatementFollowsLosses: while claims win, batches skip the
// lookup (ClaimBatch); once most claims lose (retries of finished keys),
// they read the losers' rows in the claim (ClaimLookupBatch); and back
// when claims win again. Every loser gets its row either way. The rounds
// are bounded by count, not time.
func TestClaimStatementFollowsLosses(t *testing.T) {
	s := openStore(t, "postgres", payoutsContract(t)).(*stores.SQLStore)
	ctx := context.Background()
	now := time.UnixMicro(1_700_000_000_000_000)
	claim := keystore.NewClaim{Operation: "POST /v1/transfers", Fingerprint: "fp", RequestBody: []byte(`{}`), RecoveryPoint: "started"}
	resp := keystore.Response{Status: 201, Headers: map[string][]string{}, Body: []byte(`{}`)}
	// round claims 16 keys at once and checks each answer: new keys won
	// once, finished ones lost with their row.
	round := func(keys []keystore.Key, wantWon bool) {
		t.Helper()
		for _, r := range claimAll(ctx, s, keys, func(keystore.Key) keystore.NewClaim { return claim }, now) {
			switch {
			case r.err != nil:
				t.Fatal(r.err)
			case r.won != wantWon:
				t.Fatalf("%v: won %v, want %v", r.k, r.won, wantWon)
			case !r.won && (r.rec == nil || !r.rec.Complete()):
				t.Fatalf("%v lost without its finished row: %+v", r.k, r.rec)
			}
		}
	}
	fresh := func(phase string, r int) []keystore.Key {
		var keys []keystore.Key
		for i := range 16 {
			keys = append(keys, keystore.Key{Account: "acct_a", Key: fmt.Sprintf("%s-%d-%d", phase, r, i)})
		}
		return keys
	}
	// Winning: batches, none of them ClaimLookupBatch.
	var finished []keystore.Key
	for r := 0; r < 200; r++ {
		keys := fresh("win", r)
		round(keys, true)
		for _, k := range keys {
			if ok, err := s.Complete(ctx, nil, k, 1, resp, "finished", now); err != nil || !ok {
				t.Fatalf("complete %v: %v %v", k, ok, err)
			}
		}
		finished = append(finished, keys...)
		if sent, _ := claimBatches(s); sent > 0 && r >= 10 {
			break
		}
	}
	sent, _ := claimBatches(s)
	if sent == 0 || s.Stats().LookupBatches != 0 {
		t.Fatalf("only winning claims: %d batches, %d of them ClaimLookupBatch; want some, none", sent, s.Stats().LookupBatches)
	}
	// Losing: retries of the finished keys switch to ClaimLookupBatch.
	for r := 0; s.Stats().LookupBatches == 0; r++ {
		if r == 200 {
			t.Fatal("200 rounds of retries and no ClaimLookupBatch")
		}
		round(finished[(r*16)%len(finished):][:16], false)
	}
	// Winning again: back to ClaimBatch.
	plain := func() int64 { sent, _ := claimBatches(s); return sent - s.Stats().LookupBatches }
	before := plain()
	for r := 0; plain() == before; r++ {
		if r == 200 {
			t.Fatal("200 rounds of new keys after the retries and no ClaimBatch")
		}
		round(fresh("again", r), true)
	}
}

// TestClaimBatchGlobalKeys: with idempotency.scope global the key alone is
// unique, so concurrent claims of one key from two accounts, batched or
// not, have exactly one winner between them, the row stored is the
// winner's, and every other claim loses with that row.
func TestClaimBatchGlobalKeys(t *testing.T) {
	c := payoutsContract(t, "scope: account", "scope: global")
	s := openStore(t, "postgres", c).(*stores.SQLStore)
	ctx := context.Background()
	now := time.UnixMicro(1_700_000_000_000_000)
	for round := 0; round < 200; round++ {
		var keys []keystore.Key
		for i := range 8 {
			key := fmt.Sprintf("g%d-k%d", round, i)
			keys = append(keys, keystore.Key{Account: "acct_a", Key: key}, keystore.Key{Account: "acct_b", Key: key})
		}
		results := claimAll(ctx, s, keys, func(k keystore.Key) keystore.NewClaim {
			return keystore.NewClaim{Operation: "POST /v1/transfers", Fingerprint: "fp-" + k.Account, RequestBody: []byte(`{}`), RecoveryPoint: "started"}
		}, now)
		winners := map[string]int{}
		for _, r := range results {
			switch {
			case r.err != nil:
				t.Fatalf("round %d: %v: %v", round, r.k, r.err)
			case r.won:
				winners[r.k.Key]++
				if rec, err := s.Lookup(ctx, r.k); err != nil || rec == nil || rec.Fingerprint != "fp-"+r.k.Account {
					t.Fatalf("round %d: %v won, but the row stored is not its claim: %+v %v", round, r.k, rec, err)
				}
			case r.rec == nil || r.rec.Fence != 1:
				t.Fatalf("round %d: %v lost without the winner's row: %+v", round, r.k, r.rec)
			}
		}
		for _, k := range keys {
			if winners[k.Key] != 1 {
				t.Fatalf("round %d: %s has %d winners across two accounts, want 1", round, k.Key, winners[k.Key])
			}
		}
		if sent, _ := claimBatches(s); sent > 0 && round >= 10 {
			return
		}
	}
	t.Fatal("200 rounds of 16 concurrent claims sent no batch")
}

type claimResult struct {
	k   keystore.Key
	won bool
	rec *keystore.Record
	err error
}

// claimAll claims every key at once, each from its own goroutine, all
// released together, and returns the answers in the keys' order.
func claimAll(ctx context.Context, s *stores.SQLStore, keys []keystore.Key, claimOf func(keystore.Key) keystore.NewClaim, now time.Time) []claimResult {
	results := make([]claimResult, len(keys))
	var start, wg sync.WaitGroup
	start.Add(1)
	for i, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start.Wait()
			won, rec, err := s.ClaimLookup(ctx, k, claimOf(k), now)
			results[i] = claimResult{k, won, rec, err}
		}()
	}
	start.Done()
	wg.Wait()
	return results
}

// claimBatches reports how many ClaimBatch and ClaimLookupBatch statements
// s sent and how many of them failed.
func claimBatches(s *stores.SQLStore) (sent, failed int64) {
	st := s.Stats()
	return st.ClaimBatches, st.FailedClaimBatches
}
