package stores

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/examples/payouts"
	"github.com/retryspec/retryspec/idempotency/internal/native"
	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/storage"
)

// fakeDB is a native client over a map of claimed keys, for the claim and
// write batchers' tests without a database. It answers the PostgreSQL
// statements the store sends by name (its SQL text names it), reading
// their arguments by parameter name, and logs each statement it ran.
type fakeDB struct {
	s *SQLStore
	// failBatch makes ClaimBatch and ClaimLookupBatch fail; refuse is a
	// key whose every claim fails, as one too long for its column.
	failBatch bool
	refuse    string

	mu     sync.Mutex
	byName map[string]storage.StatementName // SQL text -> statement name
	keys   map[keystore.Key]bool            // claimed keys
	ran    []string                         // statements run, by name, with their batch size

	// merged answers a merged write batch whose statements all succeed;
	// nil commits it.
	merged func(groups [][]native.Stmt) (bool, error)
}

func newFakeDB(t *testing.T, scope string) *fakeDB {
	t.Helper()
	src := strings.Replace(string(payouts.Contract), "scope: account", "scope: "+scope, 1)
	c, err := contract.Parse("retryspec.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	schema, err := storage.Generate(c, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeDB{byName: map[string]storage.StatementName{}, keys: map[keystore.Key]bool{}}
	f.s = newSQLStore(sql.OpenDB(noConnector{}), schema, storeOptions{Native: &native.Config{Client: f, BatchClaims: true, BatchWrites: true, MergeWrites: true}})
	for _, st := range schema.Statements {
		f.byName[st.SQL] = st.Name
	}
	return f
}

// arg is the value of the statement's parameter p.
func (f *fakeDB) arg(name storage.StatementName, args []any, p string) any {
	i := slices.Index(f.s.stmts[name].Params, p)
	if i < 0 {
		panic(name.String() + " has no parameter " + p)
	}
	return args[i]
}

func (f *fakeDB) key(name storage.StatementName, args []any) keystore.Key {
	k := keystore.Key{Key: f.arg(name, args, "idempotency_key").(string)}
	if f.s.schema.Scoped {
		k.Account = f.arg(name, args, "account_id").(string)
	}
	return k
}

// claim inserts k unless it exists; refused is the statement's error.
func (f *fakeDB) claim(k keystore.Key) (won bool, refused error) {
	if k.Key == f.refuse {
		return false, errors.New("value too long for type character varying(255)")
	}
	if f.keys[k] {
		return false, nil
	}
	f.keys[k] = true
	return true, nil
}

// row fills a Lookup row's columns (dest, from operation on) for k.
func row(dest []any, k keystore.Key) {
	*dest[0].(*sql.NullString) = sql.NullString{String: "POST /v1/transfers", Valid: true}
	*dest[1].(*sql.NullString) = sql.NullString{String: "fp-" + k.Key, Valid: true}
	*dest[3].(*sql.NullInt64) = sql.NullInt64{Int64: 1, Valid: true}
}

func (f *fakeDB) QueryRow(_ context.Context, query string, args []any, dest ...any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	name := f.byName[query]
	f.ran = append(f.ran, name.String())
	k := f.key(name, args)
	switch name {
	case storage.Claim:
		won, err := f.claim(k)
		if err != nil {
			return err
		}
		if !won {
			return sql.ErrNoRows
		}
		*dest[0].(*int64) = 1
	case storage.Lookup:
		if !f.keys[k] {
			return sql.ErrNoRows
		}
		row(dest, k)
	case storage.ClaimLookup:
		won, err := f.claim(k)
		if err != nil {
			return err
		}
		*dest[0].(*bool) = won
		if !won {
			row(dest[1:], k)
		}
	default:
		return fmt.Errorf("fakeDB: QueryRow %q", name)
	}
	return nil
}

func (f *fakeDB) QueryRows(_ context.Context, query string, args []any, dest []any, each func() error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	name := f.byName[query]
	keys := f.arg(name, args, "batch_idempotency_key").([]string)
	var accounts []string
	if f.s.schema.Scoped {
		accounts = f.arg(name, args, "batch_account_id").([]string)
	}
	f.ran = append(f.ran, fmt.Sprintf("%s(%d)", name, len(keys)))
	if f.failBatch || slices.Contains(keys, f.refuse) {
		return errors.New("batch refused")
	}
	for i := range keys {
		k := keystore.Key{Key: keys[i]}
		if f.s.schema.Scoped {
			k.Account = accounts[i]
		}
		won, _ := f.claim(k)
		switch name {
		case storage.ClaimBatch:
			if !won {
				continue // ClaimBatch returns the keys won
			}
			if f.s.schema.Scoped {
				*dest[0].(*string), *dest[1].(*string) = k.Account, k.Key
			} else {
				*dest[0].(*string) = k.Key
			}
		case storage.ClaimLookupBatch:
			*dest[0].(*int64), *dest[1].(*bool) = int64(i+1), won
			for _, d := range dest[2:] {
				clearScan(d)
			}
			if !won {
				row(dest[2:], k)
			}
		}
		if err := each(); err != nil {
			return err
		}
	}
	return nil
}

func clearScan(d any) {
	switch d := d.(type) {
	case *sql.NullString:
		*d = sql.NullString{}
	case *sql.NullInt64:
		*d = sql.NullInt64{}
	case *[]byte:
		*d = nil
	}
}

func (f *fakeDB) Exec(context.Context, string, []any) (int64, error) {
	return 0, errors.New("fakeDB: Exec")
}

func (f *fakeDB) Pipeline(_ context.Context, stmts []native.Stmt) (int, error) {
	f.mu.Lock()
	f.ran = append(f.ran, "Pipeline")
	f.mu.Unlock()
	return pipelineOutcome(stmts)
}

// pipelineOutcome fails a group at its first statement whose SQL is FAIL.
func pipelineOutcome(stmts []native.Stmt) (int, error) {
	for i, st := range stmts {
		if st.SQL == "FAIL" {
			return i, errors.New("failed")
		}
	}
	return -1, nil
}

func (f *fakeDB) Pipelines(_ context.Context, groups [][]native.Stmt, out []native.Result) {
	f.mu.Lock()
	f.ran = append(f.ran, fmt.Sprintf("Pipelines(%d)", len(groups)))
	f.mu.Unlock()
	for i, g := range groups {
		out[i].Failed, out[i].Err = pipelineOutcome(g)
	}
}

func (f *fakeDB) Merged(_ context.Context, groups [][]native.Stmt) (bool, error) {
	f.mu.Lock()
	f.ran = append(f.ran, fmt.Sprintf("Merged(%d)", len(groups)))
	f.mu.Unlock()
	for _, g := range groups {
		if _, err := pipelineOutcome(g); err != nil {
			return true, err // the server rolled the whole transaction back
		}
	}
	if f.merged != nil {
		return f.merged(groups)
	}
	return false, nil
}

// together runs calls as one batch: they queue in order behind a held
// batcher, then go when it is released.
func together(t *testing.T, hold func(), queued func() int, release func(), calls []func()) {
	t.Helper()
	hold()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer release() // never leave a call queued on a failed test
	for i, call := range calls {
		wg.Add(1)
		go func() { defer wg.Done(); call() }()
		// Each call queues before the next starts; the wait counts
		// scheduling rounds, never time.
		for n := 0; queued() != i+1; n++ {
			if n == 100_000 {
				t.Fatalf("call %d did not queue", i)
			}
			runtime.Gosched()
		}
	}
}

// noConnector makes an *sql.DB that is never used: the fake store's
// statements all go to its native client.
type noConnector struct{}

func (noConnector) Connect(context.Context) (driver.Conn, error) {
	return nil, errors.New("the fake store has no database/sql connection")
}
func (noConnector) Driver() driver.Driver { return nil }

type claimOutcome struct {
	Won    bool
	HasRow bool
	Err    bool
}

// TestClaimBatchWithoutDatabase: the claim batcher on a fake PostgreSQL.
// Claims queued together go as one ClaimBatch (or ClaimLookupBatch once
// most claims lose) and each gets the answer it would get alone: won, or
// lost with the row it lost to (read with Lookup after a ClaimBatch). A
// failing batch is claimed again one by one, so only the bad key fails.
// With global keys, one key's claims from two accounts never share a batch.
func TestClaimBatchWithoutDatabase(t *testing.T) {
	for _, tc := range []struct {
		name      string
		scope     string
		taken     []keystore.Key // claimed before the batch
		claims    []keystore.Key // queued together, in this order
		failBatch bool
		refuse    string
		lossShare int64 // the recent share of lost claims, in 1/1024
		want      []claimOutcome
		wantRan   []string
	}{{
		name: "winners and a loser in one ClaimBatch", scope: "account",
		taken:   []keystore.Key{{Account: "a", Key: "k2"}},
		claims:  []keystore.Key{{Account: "a", Key: "k1"}, {Account: "a", Key: "k2"}, {Account: "b", Key: "k2"}},
		want:    []claimOutcome{{Won: true}, {HasRow: true}, {Won: true}},
		wantRan: []string{"ClaimBatch(3)", "Lookup"},
	}, {
		name: "one key twice waits for the next batch", scope: "account",
		claims:  []keystore.Key{{Account: "a", Key: "k1"}, {Account: "a", Key: "k1"}, {Account: "a", Key: "k2"}},
		want:    []claimOutcome{{Won: true}, {HasRow: true}, {Won: true}},
		wantRan: []string{"ClaimBatch(2)", "Claim", "Lookup"},
	}, {
		name: "global keys: one key from two accounts is one key", scope: "global",
		claims:  []keystore.Key{{Account: "a", Key: "k1"}, {Account: "b", Key: "k1"}, {Account: "a", Key: "k2"}},
		want:    []claimOutcome{{Won: true}, {HasRow: true}, {Won: true}},
		wantRan: []string{"ClaimBatch(2)", "Claim", "Lookup"},
	}, {
		name: "most claims lose: ClaimLookupBatch reads the rows", scope: "account", lossShare: 1024,
		taken:   []keystore.Key{{Account: "a", Key: "k2"}},
		claims:  []keystore.Key{{Account: "a", Key: "k1"}, {Account: "a", Key: "k2"}},
		want:    []claimOutcome{{Won: true}, {HasRow: true}},
		wantRan: []string{"ClaimLookupBatch(2)"},
	}, {
		name: "a failing batch is claimed one by one", scope: "account", refuse: "bad",
		taken:   []keystore.Key{{Account: "a", Key: "k2"}},
		claims:  []keystore.Key{{Account: "a", Key: "k1"}, {Account: "a", Key: "bad"}, {Account: "a", Key: "k2"}},
		want:    []claimOutcome{{Won: true}, {Err: true}, {HasRow: true}},
		wantRan: []string{"ClaimBatch(3)", "ClaimLookup", "ClaimLookup", "ClaimLookup"},
	}, {
		name: "a failing ClaimLookupBatch is claimed one by one", scope: "account", failBatch: true, lossShare: 1024,
		taken:   []keystore.Key{{Account: "a", Key: "k2"}},
		claims:  []keystore.Key{{Account: "a", Key: "k1"}, {Account: "a", Key: "k2"}},
		want:    []claimOutcome{{Won: true}, {HasRow: true}},
		wantRan: []string{"ClaimLookupBatch(2)", "ClaimLookup", "ClaimLookup"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeDB(t, tc.scope)
			s := f.s
			f.failBatch, f.refuse = tc.failBatch, tc.refuse
			for _, k := range tc.taken {
				f.keys[k] = true
			}
			s.counts.claimLoss.Store(tc.lossShare)
			got := make([]claimOutcome, len(tc.claims))
			calls := make([]func(), len(tc.claims))
			for i, k := range tc.claims {
				calls[i] = func() {
					won, rec, err := s.ClaimLookup(context.Background(), k, keystore.NewClaim{Operation: "POST /v1/transfers", Fingerprint: "fp-" + k.Key}, time.Now())
					got[i] = claimOutcome{Won: won, HasRow: rec != nil, Err: err != nil}
				}
			}
			together(t, s.claims.Hold, s.claims.Queued, s.claims.Release, calls)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
			slices.Sort(f.ran[1:]) // after the batch, the calls run alone in any order
			want := slices.Clone(tc.wantRan)
			slices.Sort(want[1:])
			if diff := cmp.Diff(want, f.ran); diff != "" {
				t.Errorf("statements (-want +got):\n%s", diff)
			}
			st := s.Stats()
			failed := int64(0)
			if tc.failBatch || tc.refuse != "" {
				failed = 1
			}
			if st.ClaimBatches != 1 || st.FailedClaimBatches != failed {
				t.Errorf("Stats: %d batches, %d failed; want 1, %d", st.ClaimBatches, st.FailedClaimBatches, failed)
			}
		})
	}
}

// TestWriteBatchWithoutDatabase: the write batcher on a fake PostgreSQL.
// Pipelines queued together commit as one merged transaction when every
// statement succeeds; when one fails the server rolls the merge back and
// the batch goes again as separate transactions, so only the failing one
// fails; when the merge's outcome is unknown every caller is told so;
// and while recent batches failed, the store does not try merging.
func TestWriteBatchWithoutDatabase(t *testing.T) {
	unknown := errors.New("connection lost")
	ok := []native.Stmt{{SQL: "INSERT"}, {SQL: "CompleteOrAbort"}}
	bad := []native.Stmt{{SQL: "INSERT"}, {SQL: "FAIL"}}
	for _, tc := range []struct {
		name       string
		groups     [][]native.Stmt
		failShare  int64
		merged     func([][]native.Stmt) (bool, error)
		want       []native.Result
		wantRan    []string
		wantMerged int64
		wantTrips  int64
	}{{
		name:    "every group succeeds: one merged transaction",
		groups:  [][]native.Stmt{ok, ok, ok},
		want:    []native.Result{{Failed: -1}, {Failed: -1}, {Failed: -1}},
		wantRan: []string{"Merged(3)"}, wantMerged: 1, wantTrips: 1,
	}, {
		name:    "one group fails: the merge is rolled back, then each alone",
		groups:  [][]native.Stmt{ok, bad, ok},
		want:    []native.Result{{Failed: -1}, {Failed: 1, Err: errors.New("failed")}, {Failed: -1}},
		wantRan: []string{"Merged(3)", "Pipelines(3)"}, wantTrips: 2,
	}, {
		name:    "the merge's outcome is unknown: every caller is told",
		groups:  [][]native.Stmt{ok, ok},
		merged:  func([][]native.Stmt) (bool, error) { return false, unknown },
		want:    []native.Result{{Failed: -1, Err: unknown}, {Failed: -1, Err: unknown}},
		wantRan: []string{"Merged(2)"}, wantTrips: 1,
	}, {
		name:   "recent batches failed: separate transactions at once",
		groups: [][]native.Stmt{ok, bad}, failShare: mergeBelow + 1,
		want:    []native.Result{{Failed: -1}, {Failed: 1, Err: errors.New("failed")}},
		wantRan: []string{"Pipelines(2)"}, wantTrips: 1,
	}, {
		name:    "a pipeline alone",
		groups:  [][]native.Stmt{bad},
		want:    []native.Result{{Failed: 1, Err: errors.New("failed")}},
		wantRan: []string{"Pipeline"}, wantTrips: 1,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeDB(t, "account")
			s := f.s
			f.merged = tc.merged
			s.counts.writeFailures.Store(tc.failShare)
			got := make([]native.Result, len(tc.groups))
			calls := make([]func(), len(tc.groups))
			for i, g := range tc.groups {
				calls[i] = func() {
					got[i].Failed, got[i].Err = s.pipelineBatched(context.Background(), g)
				}
			}
			if len(calls) == 1 {
				calls[0]() // finds none in flight: sent alone
			} else {
				together(t, s.writes.Hold, s.writes.Queued, s.writes.Release, calls)
			}
			errText := cmp.Comparer(func(a, b error) bool { return (a == nil) == (b == nil) && (a == nil || a.Error() == b.Error()) })
			if diff := cmp.Diff(tc.want, got, errText); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantRan, f.ran); diff != "" {
				t.Errorf("round trips (-want +got):\n%s", diff)
			}
			if st := s.Stats(); st.MergedWriteBatches != tc.wantMerged || st.WriteTrips != tc.wantTrips {
				t.Errorf("Stats: %d merged, %d trips; want %d, %d", st.MergedWriteBatches, st.WriteTrips, tc.wantMerged, tc.wantTrips)
			}
		})
	}
}
