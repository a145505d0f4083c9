package idempotency_test

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/dbtest"
)

// TestWriteBatchFailsAlone: on PostgreSQL, pipelines that queue behind one
// in flight travel together in one round trip, each its own transaction.
// Here five requests share one: the first's insert breaks the unique
// constraint, the third holds a token the key never had, the fifth has a
// write the database cannot prepare, the second and fourth are fine. Exactly the failing ones commit nothing, each gets
// its own outcome, and the others commit their writes with their keys.
func TestWriteBatchFailsAlone(t *testing.T) {
	c := payoutsContract(t)
	s := openStore(t, "postgres", c).(*idempotency.SQLStore)
	if _, ok := s.Native().(idempotency.NativePipeliner); !ok {
		t.Fatal("the PostgreSQL store's native client cannot send several pipelines together")
	}
	s.BatchWrites(true) // on whatever the server's synchronous_commit
	insert, count := writesTable(t, s)
	ctx := context.Background()
	now := time.UnixMicro(1_700_000_000_000_000)
	keys := make([]idempotency.Key, 5)
	for i := range keys {
		keys[i] = idempotency.Key{Account: "acct_a", Key: "wb-" + string(rune('1'+i))}
		if won, err := s.Claim(ctx, keys[i], idempotency.NewClaim{Operation: "POST /v1/transfers", RecoveryPoint: "started"}, now); err != nil || !won {
			t.Fatalf("claim %v: %v %v", keys[i], won, err)
		}
	}
	if _, err := s.DB().Exec(`INSERT INTO effects (id, amount) VALUES ('dup', 1)`); err != nil {
		t.Fatal(err)
	}

	type outcome struct {
		ok  bool
		err error
	}
	results := make([]chan outcome, 5)
	resp := func(id string) idempotency.Response {
		return idempotency.Response{Status: 201, Headers: map[string][]string{"Content-Type": {"application/json"}}, Body: []byte(`{"id":"` + id + `"}`)}
	}
	calls := []func() (bool, error){
		func() (bool, error) { // the handler's insert breaks the unique constraint
			return s.CompleteWrites(ctx, keys[0], 1, resp("dup"), "finished", now, []idempotency.Write{insert("e0"), insert("dup")})
		},
		func() (bool, error) {
			return s.CompleteWrites(ctx, keys[1], 1, resp("e1"), "finished", now, []idempotency.Write{insert("e1")})
		},
		func() (bool, error) { // a token the key never had: the fence refuses
			return s.CompleteWrites(ctx, keys[2], 7, resp("e2"), "finished", now, []idempotency.Write{insert("e2")})
		},
		func() (bool, error) {
			return s.CheckpointWrites(ctx, keys[3], 1, "transfer_created", map[string]string{"charge_bank": "dk"}, now, []idempotency.Write{insert("e3")})
		},
		func() (bool, error) { // a write the database cannot prepare: never sent
			return s.CompleteWrites(ctx, keys[4], 1, resp("e4"), "finished", now, []idempotency.Write{insert("e4"), {SQL: "INSERT INTO no_such_table (id) VALUES (1)"}})
		},
	}
	before := idempotency.WriteBatches(s)
	idempotency.HoldWrites(s)
	for i, call := range calls {
		results[i] = make(chan outcome, 1)
		go func() {
			ok, err := call()
			results[i] <- outcome{ok, err}
		}()
		for idempotency.Queued(s) < i+1 {
			runtime.Gosched() // queue them in this order; counts, not time
		}
	}
	idempotency.ReleaseWrites(s)
	got := make([]outcome, 5)
	for i := range got {
		got[i] = <-results[i]
	}
	if n := idempotency.WriteBatches(s) - before; n != 1 {
		t.Fatalf("%d round trips carried several pipelines, want 1", n)
	}

	if got[0].ok || got[0].err == nil || !strings.Contains(got[0].err.Error(), "write 2 of 2") || !strings.Contains(got[0].err.Error(), "23505") {
		t.Errorf("unique violation: ok %v, err %v; want the handler's write 2 of 2 failing with SQLSTATE 23505", got[0].ok, got[0].err)
	}
	if !got[1].ok || got[1].err != nil {
		t.Errorf("second request: ok %v, err %v; want committed", got[1].ok, got[1].err)
	}
	if got[2].ok || got[2].err != nil {
		t.Errorf("stale token: ok %v, err %v; want a lost fence (false, nil)", got[2].ok, got[2].err)
	}
	if !got[3].ok || got[3].err != nil {
		t.Errorf("fourth request: ok %v, err %v; want committed", got[3].ok, got[3].err)
	}

	if got[4].ok || got[4].err == nil || !strings.Contains(got[4].err.Error(), "no_such_table") {
		t.Errorf("unpreparable write: ok %v, err %v; want its error", got[4].ok, got[4].err)
	}

	for id, want := range map[string]int{"e0": 0, "dup": 1, "e1": 1, "e2": 0, "e3": 1, "e4": 0} {
		if n := count(id); n != want {
			t.Errorf("rows of %s: %d, want %d", id, n, want)
		}
	}
	recs := make([]*idempotency.Record, 5)
	for i, k := range keys {
		var err error
		if recs[i], err = s.Lookup(ctx, k); err != nil || recs[i] == nil {
			t.Fatalf("lookup %v: %v %v", k, recs[i], err)
		}
	}
	if recs[0].Complete() || recs[0].RecoveryPoint != "started" {
		t.Errorf("the failed request's key changed: %+v", recs[0])
	}
	if !recs[1].Complete() || string(recs[1].Body) != `{"id":"e1"}` {
		t.Errorf("the second request's response was not stored: %+v", recs[1])
	}
	if recs[2].Complete() || recs[2].Fence != 1 {
		t.Errorf("the fenced-out request changed its key: %+v", recs[2])
	}
	if recs[3].Complete() || recs[3].RecoveryPoint != "transfer_created" || recs[3].DownstreamKeys["charge_bank"] != "dk" {
		t.Errorf("the fourth request's checkpoint was not stored: %+v", recs[3])
	}
	if recs[4].Complete() {
		t.Errorf("the unpreparable request completed its key: %+v", recs[4])
	}
}

// TestWriteBatchingNeedsAsyncCommits: stores.Open sends write pipelines
// together only when the connections' commits do not wait for a WAL flush
// (the test cluster runs with synchronous_commit off); with synchronous
// commits, set here in the URL, each batched transaction would wait for
// its own flush in turn, so every pipeline keeps its own connection.
func TestWriteBatchingNeedsAsyncCommits(t *testing.T) {
	c := payoutsContract(t)
	url := dbtest.Fresh(t, "postgres", os.Getenv)
	for _, tc := range []struct {
		param string
		want  bool
	}{{"off", true}, {"on", false}, {"local", false}} {
		s, err := stores.Open(context.Background(), url+"&synchronous_commit="+tc.param, c, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := idempotency.BatchingWrites(s); got != tc.want {
			t.Errorf("synchronous_commit=%s: batching writes %v, want %v", tc.param, got, tc.want)
		}
		s.DB().Close()
	}
}
