package idempotency_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/dbtest"
)

// TestStats: SQLStore.Stats reports each store's connections as
// stores.Open set them up, whether it batches, and counts the claim
// batcher's round trips. On PostgreSQL the pool figures are pgx's pool's
// (sized stores.PoolSize, and acquired from by the claims); elsewhere
// there is no native pool and nothing is batched.
func TestStats(t *testing.T) {
	for _, name := range dbtest.Names {
		t.Run(name, func(t *testing.T) {
			s := openStore(t, name, payoutsContract(t)).(*stores.SQLStore)
			postgres := name == "postgres"
			before := s.Stats()
			ctx := context.Background()
			now := time.UnixMicro(1_700_000_000_000_000)
			const claims = 5
			for i := range claims {
				// One after another: each is sent alone, one round trip.
				k := keystore.Key{Account: "acct_a", Key: fmt.Sprintf("stats-%d", i)}
				if won, _, err := s.ClaimLookup(ctx, k, keystore.NewClaim{Operation: "POST /v1/transfers", RecoveryPoint: "started"}, now); err != nil || !won {
					t.Fatalf("claim %d: %v %v", i, won, err)
				}
			}
			st := s.Stats()
			wantMax := map[string]int{"sqlite": 1, "mysql": 64, "postgres": stores.PoolSize}[name]
			if st.DB.MaxOpenConnections != wantMax {
				t.Errorf("DB.MaxOpenConnections %d, want %d", st.DB.MaxOpenConnections, wantMax)
			}
			if st.BatchingClaims != postgres || st.MergingWrites != postgres {
				t.Errorf("batching claims %v, merging writes %v; want both %v", st.BatchingClaims, st.MergingWrites, postgres)
			}
			wantTrips := int64(0)
			if postgres {
				wantTrips = claims
			}
			if got := st.ClaimTrips - before.ClaimTrips; got != wantTrips {
				t.Errorf("claim round trips %d, want %d", got, wantTrips)
			}
			if st.ClaimBatches != 0 || st.ClaimsQueued != 0 || st.WritesQueued != 0 {
				t.Errorf("claims sent one by one: %d batches, %d and %d queued; want none", st.ClaimBatches, st.ClaimsQueued, st.WritesQueued)
			}
			if !postgres {
				if st.PoolMaxConns != 0 || st.PoolAcquires != 0 {
					t.Errorf("%s has no native pool, yet Stats reports one: %+v", name, st)
				}
				return
			}
			if st.PoolMaxConns != stores.PoolSize || st.PoolTotalConns < 1 || st.PoolTotalConns > st.PoolMaxConns {
				t.Errorf("pool: max %d (want %d), open %d", st.PoolMaxConns, stores.PoolSize, st.PoolTotalConns)
			}
			if got := st.PoolAcquires - before.PoolAcquires; got < claims {
				t.Errorf("pool acquires grew by %d over %d claims on the pool", got, claims)
			}
			if st.PoolIdleConns+st.PoolAcquiredConns != st.PoolTotalConns {
				t.Errorf("pool: %d idle + %d in use != %d open", st.PoolIdleConns, st.PoolAcquiredConns, st.PoolTotalConns)
			}
		})
	}
}

// TestStoreURLSwitches: the store URL's batching switches, which
// stores.Open strips before connecting, turn each kind of batching off on
// PostgreSQL (where all three are on under .ci/with-databases), and a
// value other than on or off is refused with the values it takes.
func TestStoreURLSwitches(t *testing.T) {
	c := payoutsContract(t)
	for _, param := range []string{stores.ClaimBatches, stores.WriteBatches, stores.MergedWrites} {
		_, err := stores.Open(context.Background(), "sqlite:"+t.TempDir()+"/k.db?"+param+"=maybe", c, true)
		if err == nil || !strings.Contains(err.Error(), param+`="maybe"`) || !strings.Contains(err.Error(), "the values are on and off") {
			t.Errorf("%s=maybe: %v", param, err)
		}
	}
	url := dbtest.Fresh(t, "postgres", os.Getenv)
	for _, tc := range []struct {
		params string
		want   [3]bool // batching claims, batching writes, merging writes
	}{
		{stores.WriteBatches + "=on", [3]bool{true, true, true}},
		{stores.WriteBatches + "=on&" + stores.ClaimBatches + "=off", [3]bool{false, true, true}},
		{stores.WriteBatches + "=on&" + stores.MergedWrites + "=off", [3]bool{true, true, false}},
		{stores.WriteBatches + "=off", [3]bool{true, false, false}},
	} {
		s, err := stores.Open(context.Background(), url+"&"+tc.params, c, true)
		if err != nil {
			t.Fatal(err)
		}
		st := s.Stats()
		if got := [3]bool{st.BatchingClaims, st.BatchingWrites, st.MergingWrites}; got != tc.want {
			t.Errorf("%s: batching claims, writes, merging %v, want %v", tc.params, got, tc.want)
		}
		s.DB().Close()
	}
}
