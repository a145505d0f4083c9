package idempotency_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/dbtest"
	"github.com/retryspec/retryspec/storage"
)

// TestClaimLookup: the claim that also reads the row it lost to returns
// what Claim then Lookup would, on every SQL store (one statement where the
// dialect has ClaimLookup, PostgreSQL; two elsewhere).
func TestClaimLookup(t *testing.T) {
	for _, name := range dbtest.Names {
		t.Run(name, func(t *testing.T) {
			c := payoutsContract(t)
			s := openStore(t, name, c).(*stores.SQLStore)
			_, one := s.Schema().Statement(storage.ClaimLookup)
			if want := s.Schema().Dialect == storage.Postgres; one != want {
				t.Fatalf("%s has a ClaimLookup statement: %v, want %v", s.Schema().Dialect, one, want)
			}
			ctx := context.Background()
			k := keystore.Key{Account: "acct_a", Key: "cl-1"}
			claim := keystore.NewClaim{Operation: "POST /v1/transfers", Fingerprint: "fp", RequestBody: []byte(`{"a":1}`), RecoveryPoint: "started"}
			now := time.UnixMicro(1_700_000_000_000_000)
			won, rec, err := s.ClaimLookup(ctx, k, claim, now)
			if err != nil || !won || rec != nil {
				t.Fatalf("first claim: won %v, rec %+v, err %v; want won, no row", won, rec, err)
			}
			check := func(stage string) *keystore.Record {
				t.Helper()
				won, rec, err := s.ClaimLookup(ctx, k, claim, now.Add(time.Second))
				if err != nil || won || rec == nil {
					t.Fatalf("%s: won %v, rec %+v, err %v; want lost with the row", stage, won, rec, err)
				}
				want, err := s.Lookup(ctx, k)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, rec); diff != "" {
					t.Fatalf("%s: ClaimLookup's row differs from Lookup's (-lookup +claimlookup):\n%s", stage, diff)
				}
				return rec
			}
			if rec := check("in flight"); rec.Complete() || rec.Fence != 1 || rec.Fingerprint != "fp" {
				t.Fatalf("in flight: %+v", rec)
			}
			resp := keystore.Response{Status: 201, Headers: map[string][]string{"Content-Type": {"application/json"}}, Body: []byte(`{"id":"tr_1"}`)}
			if ok, err := s.Complete(ctx, nil, k, 1, resp, "finished", now); err != nil || !ok {
				t.Fatalf("complete: %v %v", ok, err)
			}
			if rec := check("complete"); rec.Status != 201 || string(rec.Body) != `{"id":"tr_1"}` {
				t.Fatalf("complete: %+v", rec)
			}
			other := keystore.Key{Account: "acct_b", Key: "cl-1"}
			if won, rec, err := s.ClaimLookup(ctx, other, claim, now); err != nil || !won || rec != nil {
				t.Fatalf("same key, other account: won %v, rec %+v, err %v; want won", won, rec, err)
			}
		})
	}
}
