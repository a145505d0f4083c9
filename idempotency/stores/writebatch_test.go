package stores_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/keystore"
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
	s := openPostgres(t, c, stores.WriteBatches+"=on") // on whatever the server's synchronous_commit
	if !s.Stats().BatchingWrites {
		t.Fatal("the PostgreSQL store does not send several pipelines together")
	}
	insert, count := dbtest.EffectsTable(t, s)
	ctx := context.Background()
	now := time.UnixMicro(1_700_000_000_000_000)
	keys := make([]keystore.Key, 5)
	for i := range keys {
		keys[i] = keystore.Key{Account: "acct_a", Key: "wb-" + string(rune('1'+i))}
		claimFirst(t, s, keys[i], now)
	}
	if _, err := s.DB().Exec(`INSERT INTO effects (id, amount) VALUES ('dup', 1)`); err != nil {
		t.Fatal(err)
	}

	resp := func(id string) keystore.Response {
		return keystore.Response{Status: 201, Headers: map[string][]string{"Content-Type": {"application/json"}}, Body: []byte(`{"id":"` + id + `"}`)}
	}
	before := s.Stats().WriteBatches
	got := sendTogether(s,
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
	)
	if n := s.Stats().WriteBatches - before; n != 1 {
		t.Fatalf("%d batches of several pipelines, want 1", n)
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
	recs := make([]*keystore.Record, 5)
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
	}{{"off", true}, {"on", false}, {"local", false},
		// The URL's own parameter overrides the choice either way.
		{"on&" + stores.WriteBatches + "=on", true}, {"off&" + stores.WriteBatches + "=off", false}} {
		s, err := stores.Open(context.Background(), url+"&synchronous_commit="+tc.param, c, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Stats().BatchingWrites; got != tc.want {
			t.Errorf("synchronous_commit=%s: batching writes %v, want %v", tc.param, got, tc.want)
		}
		s.DB().Close()
	}
}

// mergingStore is a PostgreSQL store that batches its write pipelines and
// merges each batch into one transaction, with dbtest.EffectsTable's table.
func mergingStore(t *testing.T) (*stores.SQLStore, func(id string) idempotency.Write, func(id string) int) {
	t.Helper()
	s := openPostgres(t, payoutsContract(t), stores.WriteBatches+"=on&"+stores.MergedWrites+"=on")
	if st := s.Stats(); !st.BatchingWrites || !st.MergingWrites {
		t.Fatal("the PostgreSQL store does not merge its write batches")
	}
	insert, count := dbtest.EffectsTable(t, s)
	return s, insert, count
}

// claimFirst claims k, which must be new.
func claimFirst(t *testing.T, s *stores.SQLStore, k keystore.Key, now time.Time) {
	t.Helper()
	if won, err := s.Claim(context.Background(), k, keystore.NewClaim{Operation: "POST /v1/transfers", RecoveryPoint: "started"}, now); err != nil || !won {
		t.Fatalf("claim %v: %v %v", k, won, err)
	}
}

type outcome struct {
	ok  bool
	err error
}

// sendTogether queues the calls' pipelines in order, as if another were in
// flight, then lets them go as one batch, and returns their outcomes.
func sendTogether(s *stores.SQLStore, calls ...func() (bool, error)) []outcome {
	results := make([]chan outcome, len(calls))
	stores.HoldWrites(s)
	for i, call := range calls {
		results[i] = make(chan outcome, 1)
		go func() {
			ok, err := call()
			results[i] <- outcome{ok, err}
		}()
		for stores.Queued(s) < i+1 {
			runtime.Gosched() // queue them in this order; counts, not time
		}
	}
	stores.ReleaseWrites(s)
	got := make([]outcome, len(calls))
	for i := range got {
		got[i] = <-results[i]
	}
	return got
}

// TestMergedWrites: on PostgreSQL a batch's pipelines commit as one
// transaction, under the merged lock_timeout, when all of them succeed.
// When one fails the server rolls the whole attempt back and the store
// sends each again as its own transaction, so each request still gets its
// own outcome; after such a batch the store sends batches separately until
// the failure has faded from its moving average, then merges again.
func TestMergedWrites(t *testing.T) {
	s, insert, count := mergingStore(t)
	ctx := context.Background()
	now := time.UnixMicro(1_700_000_000_000_000)
	n := 0
	claim := func() keystore.Key {
		n++
		k := keystore.Key{Account: "acct_a", Key: fmt.Sprintf("mw-%d", n)}
		claimFirst(t, s, k, now)
		return k
	}
	complete := func(k keystore.Key, fence int64, writes ...idempotency.Write) func() (bool, error) {
		return func() (bool, error) {
			return s.CompleteWrites(ctx, k, fence, keystore.Response{Status: 201, Body: []byte(`{}`)}, "finished", now, writes)
		}
	}
	// The lock_timeout, written down by the transaction itself.
	setting := idempotency.Write{SQL: "INSERT INTO effects (id, amount) VALUES (current_setting('lock_timeout'), 1)"}
	trips := func() int64 { return s.Stats().WriteTrips }
	mustCommit := func(got []outcome) {
		t.Helper()
		for i, o := range got {
			if !o.ok || o.err != nil {
				t.Fatalf("pipeline %d: ok %v, err %v; want committed", i, o.ok, o.err)
			}
		}
	}

	merged, trips0 := s.Stats().MergedWriteBatches, trips()
	mustCommit(sendTogether(s, complete(claim(), 1, insert("a1")), complete(claim(), 1, setting), complete(claim(), 1, insert("a3"))))
	if got := s.Stats().MergedWriteBatches - merged; got != 1 {
		t.Fatalf("merged batches: %d, want 1", got)
	}
	if got := trips() - trips0; got != 1 {
		t.Errorf("round trips: %d, want 1", got)
	}
	if count(stores.MergedLockTimeout) != 1 || count("a1") != 1 || count("a3") != 1 {
		t.Errorf("rows a1, a3 and the merged lock_timeout %q: %d %d %d, want 1 each", stores.MergedLockTimeout, count("a1"), count("a3"), count(stores.MergedLockTimeout))
	}
	// The setting ended with the merged transaction.
	if ok, err := complete(claim(), 1, setting)(); !ok || err != nil || count("0") != 1 {
		t.Errorf("a pipeline on its own: ok %v, err %v, rows with lock_timeout 0: %d; want committed under the server's setting", ok, err, count("0"))
	}

	// A lost fence in the middle: the merged attempt rolls back, the
	// batch goes again as three transactions, and only the middle one
	// commits nothing.
	merged, trips0 = s.Stats().MergedWriteBatches, trips()
	stale := claim()
	got := sendTogether(s, complete(claim(), 1, insert("b1")), complete(stale, 7, insert("b2")), complete(claim(), 1, insert("b3")))
	if !got[0].ok || got[0].err != nil || got[1].ok || got[1].err != nil || !got[2].ok || got[2].err != nil {
		t.Fatalf("outcomes %+v; want committed, lost fence (false, nil), committed", got)
	}
	if count("b1") != 1 || count("b2") != 0 || count("b3") != 1 {
		t.Errorf("rows b1, b2, b3: %d %d %d, want 1 0 1", count("b1"), count("b2"), count("b3"))
	}
	if rec, err := s.Lookup(ctx, stale); err != nil || rec.Complete() {
		t.Errorf("the fenced-out key: %+v %v; want still in flight", rec, err)
	}
	if m, tr := s.Stats().MergedWriteBatches-merged, trips()-trips0; m != 0 || tr != 2 {
		t.Errorf("merged batches %d, round trips %d; want 0 and 2 (the rolled-back attempt, then the groups alone)", m, tr)
	}

	// Right after a failure the store sends batches separately, and it
	// merges again once the failure has faded from its average.
	for i := 1; ; i++ {
		merged = s.Stats().MergedWriteBatches
		mustCommit(sendTogether(s, complete(claim(), 1, insert(fmt.Sprintf("c%d-1", i))), complete(claim(), 1, insert(fmt.Sprintf("c%d-2", i)))))
		if s.Stats().MergedWriteBatches > merged {
			if i == 1 {
				t.Fatal("the batch right after a failed one merged")
			}
			break
		}
		if i == 20 {
			t.Fatal("20 good batches after a failed one, and still none merged")
		}
	}
}

// TestMergedWritesHotRows: requests that each update one of two hot rows
// cannot deadlock alone, but merged batches of them lock both rows in
// whatever order their requests arrived. One store sends one batch at a
// time; two instances of a service, two stores on one database, send two,
// which can deadlock. A merged attempt that waits past its lock_timeout,
// or that the server picks as a deadlock victim, is rolled back and its
// requests commit as their own transactions: every request commits once.
func TestMergedWritesHotRows(t *testing.T) {
	c := payoutsContract(t)
	url := dbtest.Fresh(t, "postgres", os.Getenv)
	instances := make([]*stores.SQLStore, 2)
	for i := range instances {
		s, err := stores.Open(context.Background(), url+"&"+stores.WriteBatches+"=on", c, true)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.DB().Close() })
		instances[i] = s
	}
	if _, err := instances[0].DB().Exec(`CREATE TABLE hot (id TEXT PRIMARY KEY, n BIGINT NOT NULL); INSERT INTO hot VALUES ('h0', 0), ('h1', 0)`); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := time.UnixMicro(1_700_000_000_000_000)
	const clients, each = 16, 40
	var wg sync.WaitGroup
	errs := make(chan error, clients*each)
	for cl := range clients {
		s := instances[cl%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				k := keystore.Key{Account: "acct_a", Key: fmt.Sprintf("hot-%d-%d", cl, i)}
				if won, err := s.Claim(ctx, k, keystore.NewClaim{Operation: "POST /v1/transfers", RecoveryPoint: "started"}, now); err != nil || !won {
					errs <- fmt.Errorf("claim %v: %v %v", k, won, err)
					return
				}
				row := fmt.Sprintf("h%d", (cl/2+i)%2)
				ok, err := s.CompleteWrites(ctx, k, 1, keystore.Response{Status: 201, Body: []byte(`{}`)}, "finished", now,
					[]idempotency.Write{{SQL: "UPDATE hot SET n = n + 1 WHERE id = $1", Args: []any{row}}})
				if !ok || err != nil {
					errs <- fmt.Errorf("complete %v: %v %v", k, ok, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var total int
	if err := instances[0].DB().QueryRow(`SELECT sum(n) FROM hot`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	if total != clients*each {
		t.Errorf("increments: %d, want %d", total, clients*each)
	}
	for i, s := range instances {
		t.Logf("instance %d: %d batches of several pipelines, %d of them merged", i, s.Stats().WriteBatches, s.Stats().MergedWriteBatches)
	}
}

// TestMergedWritesAfterSchemaChange: a table altered under a statement the
// merge connections prepared (here one whose RETURNING row changes shape)
// fails that statement once (SQLSTATE 0A000); the batch still commits,
// as separate transactions, and merging resumes with the statement
// prepared anew instead of failing on that connection for good.
func TestMergedWritesAfterSchemaChange(t *testing.T) {
	s, _, count := mergingStore(t)
	ctx := context.Background()
	now := time.UnixMicro(1_700_000_000_000_000)
	n := 0
	pipeline := func() func() (bool, error) {
		n++
		k := keystore.Key{Account: "acct_a", Key: fmt.Sprintf("sc-%d", n)}
		claimFirst(t, s, k, now)
		w := idempotency.Write{SQL: "INSERT INTO effects (id, amount) VALUES ($1, 1) RETURNING *", Args: []any{k.Key}}
		return func() (bool, error) {
			return s.CompleteWrites(ctx, k, 1, keystore.Response{Status: 201, Body: []byte(`{}`)}, "finished", now, []idempotency.Write{w})
		}
	}
	batch := func() {
		t.Helper()
		for i, o := range sendTogether(s, pipeline(), pipeline()) {
			if !o.ok || o.err != nil {
				t.Fatalf("batch of sc-%d: pipeline %d: ok %v, err %v", n, i, o.ok, o.err)
			}
		}
	}
	// Prepare the statement on both merge connections.
	for range 4 {
		batch()
	}
	if s.Stats().MergedWriteBatches == 0 {
		t.Fatal("no batch merged")
	}
	if _, err := s.DB().Exec(`ALTER TABLE effects ADD COLUMN note TEXT`); err != nil {
		t.Fatal(err)
	}
	for i := 1; ; i++ {
		merged := s.Stats().MergedWriteBatches
		batch()
		if s.Stats().MergedWriteBatches > merged {
			break
		}
		if i == 40 {
			t.Fatal("40 batches after the table changed, and none merged")
		}
	}
	if got := count(fmt.Sprintf("sc-%d", n)); got != 1 {
		t.Errorf("the last key's row: %d, want 1", got)
	}
}

// openPostgres opens a fresh PostgreSQL store whose URL adds params.
func openPostgres(t *testing.T, c *contract.Contract, params string) *stores.SQLStore {
	t.Helper()
	s, err := stores.Open(context.Background(), dbtest.Fresh(t, "postgres", os.Getenv)+"&"+params, c, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.DB().Close() })
	return s
}
