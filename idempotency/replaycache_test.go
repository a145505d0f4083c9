package idempotency_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/alerting"
	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/internal/dbtest"
)

// readCounting is a Store that counts the claims and lookups it serves.
type readCounting struct {
	keystore.Store
	reads atomic.Int64
}

func (s *readCounting) Claim(ctx context.Context, k keystore.Key, c keystore.NewClaim, now time.Time) (bool, error) {
	s.reads.Add(1)
	return s.Store.Claim(ctx, k, c, now)
}

func (s *readCounting) Lookup(ctx context.Context, k keystore.Key) (*keystore.Record, error) {
	s.reads.Add(1)
	return s.Store.Lookup(ctx, k)
}

// TestReplayCache: with Options.ReplayCache a key this process completed
// or replayed is replayed without a statement, byte for byte; a different
// body under it is still refused; other accounts' keys are apart; near the
// end of the replay window the store decides again, and the least recently
// used entry leaves first.
func TestReplayCache(t *testing.T) {
	c := payoutsContract(t)
	store := &readCounting{Store: idempotency.NewMemoryStore(c)}
	f := newFixture(t, c, store, idempotency.Options{ReplayCache: 2})
	first := f.do("rc-1", "acct_a", body) // completed here, so kept
	before := store.reads.Load()
	replay := f.do("rc-1", "acct_a", body)
	again := f.do("rc-1", "acct_a", body)
	if got := store.reads.Load() - before; got != 0 {
		t.Fatalf("two replays of a key this process completed made %d store reads, want 0", got)
	}
	if again.Code != 201 || again.Body.String() != first.Body.String() || again.Body.String() != replay.Body.String() ||
		again.Header().Get("Idempotent-Replayed") != "true" {
		t.Fatalf("cached replay: %d %q %v (first %q)", again.Code, again.Body, again.Header(), first.Body)
	}
	if w := f.do("rc-1", "acct_a", `{"amount":1}`); w.Code != 409 || code(t, w) != "invalid_idempotent_request" {
		t.Fatalf("a different body under a cached key: %d %s", w.Code, w.Body)
	}
	if w := f.do("rc-1", "acct_b", body); w.Code != 201 || f.handler.runs.Load() != 2 {
		t.Fatalf("the same key for another account: %d %s, runs %d", w.Code, w.Body, f.handler.runs.Load())
	}
	if f.metrics.Get(alerting.Replays, "", "") != 2 {
		t.Errorf("replays counted %d, want 2", f.metrics.Get(alerting.Replays, "", ""))
	}

	// A minute before the 24h window ends the store decides again; past
	// it, after_window: new-request runs the handler again.
	f.clock.Add(24*time.Hour - time.Minute)
	before = store.reads.Load()
	if w := f.do("rc-1", "acct_a", body); w.Code != 201 || w.Body.String() != first.Body.String() || store.reads.Load() == before {
		t.Fatalf("near the window's end: %d %s, store reads %d", w.Code, w.Body, store.reads.Load()-before)
	}
	f.clock.Add(2 * time.Minute)
	if w := f.do("rc-1", "acct_a", body); w.Code != 201 || f.handler.runs.Load() != 3 {
		t.Fatalf("after the window: %d %s, runs %d (want a new run)", w.Code, w.Body, f.handler.runs.Load())
	}

	// Two entries at most: rc-2 and rc-3, completed here, push rc-1 out.
	for _, k := range []string{"rc-2", "rc-3"} {
		f.do(k, "acct_a", body)
	}
	before = store.reads.Load()
	f.do("rc-3", "acct_a", body)
	f.do("rc-2", "acct_a", body)
	if got := store.reads.Load() - before; got != 0 {
		t.Fatalf("replays of the two newest keys read the store %d times, want 0", got)
	}
	f.do("rc-1", "acct_a", body)
	if store.reads.Load() == before {
		t.Fatal("the least recently used key was still cached")
	}
}

// TestReplayCacheDefaults: the cache is on with zero Options, off with a
// negative ReplayCache, and ReplayCacheBytes bounds what it holds (a
// response over an eighth of it is never kept; older entries leave to make
// room).
func TestReplayCacheDefaults(t *testing.T) {
	c := payoutsContract(t)
	readsOfThirdReplay := func(opts idempotency.Options, key string) int64 {
		store := &readCounting{Store: idempotency.NewMemoryStore(c)}
		f := newFixture(t, c, store, opts)
		f.do(key, "acct_a", body)
		f.do(key, "acct_a", body)
		before := store.reads.Load()
		if w := f.do(key, "acct_a", body); w.Code != 201 || w.Header().Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay: %d %s", w.Code, w.Body)
		}
		return store.reads.Load() - before
	}
	if got := readsOfThirdReplay(idempotency.Options{}, "d-1"); got != 0 {
		t.Errorf("default options: a repeated replay read the store %d times, want 0 (cache on)", got)
	}
	if got := readsOfThirdReplay(idempotency.Options{ReplayCache: -1}, "d-2"); got == 0 {
		t.Error("ReplayCache -1: a repeated replay was answered without the store")
	}
	// The fixture's responses are about 100 bytes; an entry counts 256
	// more. 8 KiB / 8 = 1 KiB per entry at most: kept.
	if got := readsOfThirdReplay(idempotency.Options{ReplayCacheBytes: 8 << 10}, "d-3"); got != 0 {
		t.Errorf("8 KiB budget: a small response was not kept (%d reads)", got)
	}
	// 2 KiB / 8 = 256 bytes: below one entry's size, so nothing is kept.
	if got := readsOfThirdReplay(idempotency.Options{ReplayCacheBytes: 2 << 10}, "d-4"); got == 0 {
		t.Error("2 KiB budget: a response over an eighth of it was kept")
	}
	// 4 KiB holds at most 4096/(256+~150) < 11 entries: of 20 keys replayed
	// the first ones must have left.
	store := &readCounting{Store: idempotency.NewMemoryStore(c)}
	f := newFixture(t, c, store, idempotency.Options{ReplayCacheBytes: 4 << 10})
	for i := range 20 {
		k := fmt.Sprintf("b-%d", i)
		f.do(k, "acct_a", body)
		f.do(k, "acct_a", body)
	}
	before := store.reads.Load()
	f.do("b-0", "acct_a", body)
	if store.reads.Load() == before {
		t.Error("4 KiB budget: the oldest of 20 cached keys was still cached")
	}
	before = store.reads.Load()
	f.do("b-19", "acct_a", body)
	if store.reads.Load() != before {
		t.Error("4 KiB budget: the newest cached key was not cached")
	}
}

// TestCachedReplayIsTheStoredOne: the response a first attempt keeps in the
// replay cache is the one its store holds. On each SQL store, a replay from
// the cache of the process that completed the key (by returning, or through
// Step.FinishWrites) and a replay read from the store by a process without
// a cache are byte for byte the same: status, headers and body.
func TestCachedReplayIsTheStoredOne(t *testing.T) {
	c := payoutsContract(t)
	var runs atomic.Int64
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := runs.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("X-Trace", "a")
		w.Header().Add("X-Trace", "b")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id":"tr_%d","note":"<\u0026>"}`, n)
		if step := idempotency.FromContext(r.Context()); step.Key() == "finish-writes" {
			if err := step.FinishWrites(r.Context()); err != nil {
				t.Error(err)
			}
		}
	})
	for _, name := range dbtest.Names {
		t.Run(name, func(t *testing.T) {
			store := openStore(t, name, c)
			serve := func(cache int) func(key string) *httptest.ResponseRecorder {
				mw, err := idempotency.New(c, store, idempotency.Options{ReplayCache: cache,
					Account: func(r *http.Request) (string, bool) { return "acct_a", true }})
				if err != nil {
					t.Fatal(err)
				}
				h, err := mw.Handle("POST /v1/transfers", handler)
				if err != nil {
					t.Fatal(err)
				}
				return func(key string) *httptest.ResponseRecorder {
					r := httptest.NewRequest("POST", "/v1/transfers", strings.NewReader(body))
					r.Header.Set("Idempotency-Key", key)
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					return w
				}
			}
			withCache, fromStore := serve(0), serve(-1)
			for _, key := range []string{"returns", "finish-writes"} {
				before := runs.Load()
				first := withCache(key)
				cached := withCache(key)
				stored := fromStore(key)
				if first.Code != 201 || runs.Load() != before+1 {
					t.Fatalf("%s: first attempt %d %s, %d runs", key, first.Code, first.Body, runs.Load()-before)
				}
				if diff := cmp.Diff(dump(stored), dump(cached)); diff != "" {
					t.Errorf("%s: the cached replay differs from the stored one (-store +cache):\n%s", key, diff)
				}
				if cached.Header().Get("Idempotent-Replayed") != "true" || cached.Body.String() != first.Body.String() {
					t.Errorf("%s: cached replay %v %q, first attempt %q", key, cached.Header(), cached.Body, first.Body)
				}
			}
		})
	}
}

// dump is what a client receives of a response.
func dump(w *httptest.ResponseRecorder) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", w.Code)
	_ = w.Header().Write(&b)
	b.WriteString(w.Body.String())
	return b.String()
}
