package idempotency_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/examples/payouts"
	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/alerting"
	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/dbtest"
)

// payoutsContract is the example contract with some values replaced.
func payoutsContract(t testing.TB, replace ...string) *contract.Contract {
	t.Helper()
	src := string(payouts.Contract)
	for i := 0; i+1 < len(replace); i += 2 {
		if !strings.Contains(src, replace[i]) {
			t.Fatalf("contract has no %q", replace[i])
		}
		src = strings.Replace(src, replace[i], replace[i+1], 1)
	}
	c, err := contract.Parse("retryspec.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// counted is a handler whose every run is one effect.
type counted struct {
	runs atomic.Int64
	// status is what it answers (default 201).
	status int
	// gate, when set, holds the first gated runs until it is closed.
	gate      chan struct{}
	gatedRuns int64
	// onRun sees each run's Step.
	onRun func(*idempotency.Step)
}

func (h *counted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := h.runs.Add(1)
	if h.onRun != nil {
		h.onRun(idempotency.FromContext(r.Context()))
	}
	if h.gate != nil && n <= h.gatedRuns {
		<-h.gate
	}
	status := h.status
	if status == 0 {
		status = http.StatusCreated
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Run", fmt.Sprint(n))
	w.WriteHeader(status)
	account := "" // no Step: a request the middleware let through without a key
	if s := idempotency.FromContext(r.Context()); s != nil {
		account = s.Account()
	}
	fmt.Fprintf(w, `{"id":"tr_%d","account":%q}`, n, account)
}

type fixture struct {
	c       *contract.Contract
	store   keystore.Store
	mw      *idempotency.Middleware
	h       http.Handler
	handler *counted
	clock   *clock
	metrics *idempotency.Counters
}

func newFixture(t testing.TB, c *contract.Contract, store keystore.Store, opts idempotency.Options) *fixture {
	t.Helper()
	f := &fixture{c: c, store: store, handler: &counted{}, clock: newClock(), metrics: idempotency.NewCounters()}
	opts.Now = f.clock.Now
	opts.Metrics = f.metrics
	if opts.Account == nil {
		opts.Account = func(r *http.Request) (string, bool) {
			a := r.Header.Get("X-Account")
			return a, a != ""
		}
	}
	mw, err := idempotency.New(c, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	f.mw = mw
	if f.h, err = mw.Handle("POST /v1/transfers", f.handler); err != nil {
		t.Fatal(err)
	}
	return f
}

func openStore(t testing.TB, name string, c *contract.Contract) keystore.Store {
	t.Helper()
	if name == "memory" {
		return idempotency.NewMemoryStore(c)
	}
	s, err := stores.Open(context.Background(), dbtest.Fresh(t, name, os.Getenv), c, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.DB().Close() })
	return s
}

func (f *fixture) do(key, account, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", "/v1/transfers", strings.NewReader(body))
	if key != "" {
		r.Header.Set("Idempotency-Key", key)
	}
	if account != "" {
		r.Header.Set("X-Account", account)
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return w
}

func code(t testing.TB, w *httptest.ResponseRecorder) string {
	t.Helper()
	var v struct{ Code string }
	_ = json.Unmarshal(w.Body.Bytes(), &v)
	return v.Code
}

var allStores = append([]string{"memory"}, dbtest.Names...)

const body = `{"amount":1000,"currency":"usd","destination":"acct_1"}`

// TestContractBehaviour checks each row of the contract's promise on every store.
func TestContractBehaviour(t *testing.T) {
	for _, name := range allStores {
		t.Run(name, func(t *testing.T) {
			c := payoutsContract(t)
			f := newFixture(t, c, openStore(t, name, c), idempotency.Options{})

			// No key: the contract's missing_key answer; nothing runs.
			w := f.do("", "acct_a", body)
			if w.Code != 400 || code(t, w) != "missing_idempotency_key" {
				t.Errorf("missing key: %d %s", w.Code, w.Body)
			}
			// Over-long key: 400.
			if w := f.do(strings.Repeat("k", 256), "acct_a", body); w.Code != 400 {
				t.Errorf("256-character key: %d %s", w.Code, w.Body)
			}
			if w := f.do(strings.Repeat("k", 255), "acct_a", body); w.Code != 201 {
				t.Errorf("255-character key: %d %s", w.Code, w.Body)
			}
			// First attempt and its verbatim replay with replay_header.
			first := f.do("key-1", "acct_a", body)
			again := f.do("key-1", "acct_a", body)
			if first.Code != 201 || again.Code != 201 || !bytes.Equal(first.Body.Bytes(), again.Body.Bytes()) {
				t.Errorf("replay: %d %q then %d %q", first.Code, first.Body, again.Code, again.Body)
			}
			if first.Header().Get("Idempotent-Replayed") != "" || again.Header().Get("Idempotent-Replayed") != "true" {
				t.Errorf("replay header: first %q, replay %q", first.Header().Get("Idempotent-Replayed"), again.Header().Get("Idempotent-Replayed"))
			}
			if again.Header().Get("X-Run") != first.Header().Get("X-Run") {
				t.Errorf("replayed headers differ: %v vs %v", again.Header(), first.Header())
			}
			// Same key, other body: payload_mismatch.
			if w := f.do("key-1", "acct_a", strings.Replace(body, "1000", "1001", 1)); w.Code != 409 || code(t, w) != "invalid_idempotent_request" {
				t.Errorf("mismatch: %d %s", w.Code, w.Body)
			}
			// Same key, other account: a separate request (scope: account).
			other := f.do("key-1", "acct_b", body)
			if other.Code != 201 || bytes.Equal(other.Body.Bytes(), first.Body.Bytes()) {
				t.Errorf("other account got %d %s", other.Code, other.Body)
			}
			if got := f.handler.runs.Load(); got != 3 {
				t.Errorf("handler ran %d times, want 3", got)
			}
			// After the replay window (24h), the key is a new request.
			f.clock.Add(24*time.Hour + time.Second)
			if w := f.do("key-1", "acct_a", body); w.Code != 201 || w.Header().Get("Idempotent-Replayed") != "" || bytes.Equal(w.Body.Bytes(), first.Body.Bytes()) {
				t.Errorf("after the window: %d %s %v", w.Code, w.Body, w.Header())
			}
			if got, want := f.metrics.Get(alerting.Replays, "", ""), int64(1); got != want {
				t.Errorf("replays metric %d, want %d", got, want)
			}
			if got := f.metrics.Get(alerting.Conflicts, "", alerting.KindPayloadMismatch); got != 1 {
				t.Errorf("mismatch metric %d, want 1", got)
			}
		})
	}
}

// TestInFlightAndTakeover: a running key answers the in_flight conflict
// with Retry-After; past lock_timeout a retry takes it over, and the paused
// first worker's late completion is refused by the fence.
func TestInFlightAndTakeover(t *testing.T) {
	for _, name := range allStores {
		t.Run(name, func(t *testing.T) {
			c := payoutsContract(t)
			f := newFixture(t, c, openStore(t, name, c), idempotency.Options{})
			f.handler.gate, f.handler.gatedRuns = make(chan struct{}), 1
			done := make(chan *httptest.ResponseRecorder)
			go func() { done <- f.do("slow", "acct_a", body) }()
			for f.handler.runs.Load() == 0 {
				time.Sleep(time.Millisecond) // waits for the first run to start; not a time bound
			}
			w := f.do("slow", "acct_a", body)
			if w.Code != 409 || code(t, w) != "concurrent_idempotent_requests" || w.Header().Get("Retry-After") == "" {
				t.Errorf("in flight: %d %s %v", w.Code, w.Body, w.Header())
			}
			f.clock.Add(2*time.Minute + time.Second)
			// The retry takes over; its own run is not held.
			f.handler.runs.Store(100)
			w = f.do("slow", "acct_a", body)
			if w.Code != 201 || !strings.Contains(w.Body.String(), "tr_101") {
				t.Errorf("takeover: %d %s", w.Code, w.Body)
			}
			close(f.handler.gate)
			late := <-done
			if late.Code != 409 {
				t.Errorf("the paused worker's late completion answered %d %s, want the in-flight conflict", late.Code, late.Body)
			}
			if w := f.do("slow", "acct_a", body); !strings.Contains(w.Body.String(), "tr_101") {
				t.Errorf("stored response is not the new owner's: %s", w.Body)
			}
			if got := f.metrics.Get(alerting.Takeovers, "", ""); got != 1 {
				t.Errorf("takeovers %d, want 1", got)
			}
			if got := f.metrics.Get(alerting.DuplicateEffects, "", ""); got != 1 {
				t.Errorf("duplicate effects detected %d, want 1", got)
			}
		})
	}
}

// TestTakeoverRace: two workers past lock_timeout take over one key at
// once; exactly one wins, and only the winner's token completes it.
func TestTakeoverRace(t *testing.T) {
	for _, name := range allStores {
		t.Run(name, func(t *testing.T) {
			c := payoutsContract(t)
			store := openStore(t, name, c)
			ctx := context.Background()
			k := keystore.Key{Account: "acct_a", Key: "race"}
			t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			won, err := store.Claim(ctx, k, keystore.NewClaim{Operation: "POST /v1/transfers", RecoveryPoint: "started"}, t0)
			if err != nil || !won {
				t.Fatalf("claim: %v %v", won, err)
			}
			later := t0.Add(2*time.Minute + time.Second)
			for round := 0; round < 20; round++ {
				rec, err := store.Lookup(ctx, k)
				if err != nil {
					t.Fatal(err)
				}
				var wins atomic.Int64
				var wg sync.WaitGroup
				start := make(chan struct{})
				for range 2 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						ok, err := store.Takeover(ctx, k, rec.Fence, later)
						if err != nil {
							t.Error(err)
						}
						if ok {
							wins.Add(1)
						}
					}()
				}
				close(start)
				wg.Wait()
				if wins.Load() != 1 {
					t.Fatalf("round %d: %d takeovers won, want 1", round, wins.Load())
				}
				// The token before the takeover is dead for every write.
				resp := keystore.Response{Status: 201, Body: []byte("late")}
				if ok, err := store.Complete(ctx, nil, k, rec.Fence, resp, "finished", later); err != nil || ok {
					t.Fatalf("round %d: stale token completed the key (%v, %v)", round, ok, err)
				}
				if ok, err := store.Checkpoint(ctx, nil, k, rec.Fence, "bank_charged", nil, later); err != nil || ok {
					t.Fatalf("round %d: stale token checkpointed (%v, %v)", round, ok, err)
				}
				later = later.Add(2*time.Minute + time.Second)
			}
			rec, _ := store.Lookup(ctx, k)
			if rec.Fence != 21 {
				t.Errorf("fence %d after 20 takeovers, want 21", rec.Fence)
			}
			ok, err := store.Complete(ctx, nil, k, rec.Fence, keystore.Response{Status: 201, Body: []byte("winner")}, "finished", later)
			if err != nil || !ok {
				t.Fatalf("current token refused: %v %v", ok, err)
			}
			if rec, _ := store.Lookup(ctx, k); string(rec.Body) != "winner" || !rec.Complete() {
				t.Errorf("stored %q", rec.Body)
			}
		})
	}
}

// TestConcurrentOneKey: 64 identical requests at once while the first run
// is held: one run, and the 63 others get the in-flight conflict. The run is
// released once they have all answered (or at once if a second run starts,
// so a broken claim fails on the count instead of hanging).
func TestConcurrentOneKey(t *testing.T) {
	for _, name := range allStores {
		t.Run(name, func(t *testing.T) {
			c := payoutsContract(t)
			f := newFixture(t, c, openStore(t, name, c), idempotency.Options{})
			f.handler.gate, f.handler.gatedRuns = make(chan struct{}), 1
			var answered atomic.Int64
			go func() {
				for answered.Load() < 63 && f.handler.runs.Load() < 2 {
					time.Sleep(time.Millisecond) // polls a count; no time bound
				}
				close(f.handler.gate)
			}()
			res := fire(f, 64, "same-key", &answered)
			if got := f.handler.runs.Load(); got != 1 {
				t.Fatalf("handler ran %d times, want 1", got)
			}
			final := f.do("same-key", "acct_a", body)
			conflicts, originals := 0, 0
			for _, w := range res {
				switch {
				case w.Code == 409 && code(t, w) == "concurrent_idempotent_requests" && w.Header().Get("Retry-After") != "":
					conflicts++
				case w.Code == 201 && bytes.Equal(w.Body.Bytes(), final.Body.Bytes()):
					originals++
				default:
					t.Errorf("unexpected answer %d %s", w.Code, w.Body)
				}
			}
			if conflicts != 63 || originals != 1 {
				t.Errorf("%d in-flight conflicts and %d originals, want 63 and 1", conflicts, originals)
			}
			if got := f.metrics.Get(alerting.Conflicts, "", alerting.KindInFlight); got != 63 {
				t.Errorf("in-flight conflict metric %d, want 63", got)
			}
		})
	}
}

func fire(f *fixture, n int, key string, answered *atomic.Int64) []*httptest.ResponseRecorder {
	res := make([]*httptest.ResponseRecorder, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res[i] = f.do(key, "acct_a", body)
			answered.Add(1)
		}()
	}
	close(start)
	wg.Wait()
	return res
}

func TestStoredFailures(t *testing.T) {
	for _, policy := range []string{"replay", "reattempt"} {
		t.Run(policy, func(t *testing.T) {
			c := payoutsContract(t, "stored_failures: replay", "stored_failures: "+policy)
			f := newFixture(t, c, idempotency.NewMemoryStore(c), idempotency.Options{})
			f.handler.status = 500
			f.do("fails", "acct_a", body)
			f.handler.status = 0
			w := f.do("fails", "acct_a", body)
			runs := f.handler.runs.Load()
			if policy == "replay" && (w.Code != 500 || runs != 1) {
				t.Errorf("replay: %d after %d runs", w.Code, runs)
			}
			if policy == "reattempt" && (w.Code != 201 || runs != 2) {
				t.Errorf("reattempt: %d after %d runs", w.Code, runs)
			}
		})
	}
}

func TestAfterWindowError(t *testing.T) {
	c := payoutsContract(t, "after_window: new-request", "after_window: error",
		"docs:\n", "lint:\n  waive:\n    - rule: window/expiry-errors\n      because: the test needs the error mode\ndocs:\n")
	f := newFixture(t, c, idempotency.NewMemoryStore(c), idempotency.Options{})
	f.do("old", "acct_a", body)
	f.clock.Add(25 * time.Hour)
	if w := f.do("old", "acct_a", body); w.Code != 422 || code(t, w) != "idempotency_key_expired" || f.handler.runs.Load() != 1 {
		t.Errorf("after the window with after_window: error: %d %s", w.Code, w.Body)
	}
}

// lostClaims is the in-memory store, counting the claims it refuses and
// telling each on lost. Its claims and lookups run shielded from the
// caller's cancel, so a test that cancels a waiting request sees the wait
// answer it wherever the request is in its poll, never a statement it
// interrupted ("caller gone before the claim" is that path's own row).
type lostClaims struct {
	keystore.Store
	n    *atomic.Int64
	lost chan struct{}
}

func (s lostClaims) Lookup(ctx context.Context, k keystore.Key) (*keystore.Record, error) {
	return s.Store.Lookup(context.WithoutCancel(ctx), k)
}

func newLostClaims(c *contract.Contract) lostClaims {
	return lostClaims{idempotency.NewMemoryStore(c), new(atomic.Int64), make(chan struct{}, 1)}
}

func (s lostClaims) Claim(ctx context.Context, k keystore.Key, c keystore.NewClaim, now time.Time) (bool, error) {
	won, err := s.Store.Claim(context.WithoutCancel(ctx), k, c, now)
	if err == nil && !won {
		s.n.Add(1)
		select {
		case s.lost <- struct{}{}:
		default: // one wake-up pending is enough: the waiter reads n
		}
	}
	return won, err
}

// awaitWaiting returns once a request for a key in flight is provably
// waiting for it: it lost its claim, found the key in flight and, instead
// of answering, claimed it again (the poll of in_flight.response: block).
// An answer before that fails the test: the request did not wait.
func awaitWaiting(t *testing.T, store lostClaims, answer <-chan *httptest.ResponseRecorder) {
	t.Helper()
	for store.n.Load() < 2 {
		select {
		case <-store.lost:
		case w := <-answer:
			t.Fatalf("the request for a key in flight answered %d %s without waiting for it", w.Code, w.Body)
		}
	}
}

// awaitRun returns once the handler has started its first run.
func awaitRun(h *counted) {
	for h.runs.Load() == 0 {
		time.Sleep(time.Millisecond) // waits for the run to start; not a time bound
	}
}

// TestBlockMode: under in_flight.response: block a retry that arrives
// while the first attempt runs waits for it and answers its response. The
// first run is held until the retry is provably waiting (it claimed the
// key a second time: an event, not a sleep), so with blocking removed the
// retry answers 409 first and the test fails every time.
func TestBlockMode(t *testing.T) {
	c := payoutsContract(t, "response: conflict", "response: block")
	store := newLostClaims(c)
	f := newFixture(t, c, store, idempotency.Options{})
	f.handler.gate, f.handler.gatedRuns = make(chan struct{}), 1
	first, second := make(chan *httptest.ResponseRecorder, 1), make(chan *httptest.ResponseRecorder, 1)
	go func() { first <- f.do("b", "acct_a", body) }()
	awaitRun(f.handler)
	go func() { second <- f.do("b", "acct_a", body) }()
	awaitWaiting(t, store, second)
	close(f.handler.gate)
	a, b := <-first, <-second
	if a.Code != 201 || b.Code != 201 || !bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) || f.handler.runs.Load() != 1 {
		t.Errorf("block: %d %s / %d %s after %d runs", a.Code, a.Body, b.Code, b.Body, f.handler.runs.Load())
	}
}

// TestBlockModeCallerGone: a blocked request whose context ends answers
// the contract's in-flight conflict, never an empty 200.
func TestBlockModeCallerGone(t *testing.T) {
	c := payoutsContract(t, "response: conflict", "response: block")
	store := newLostClaims(c)
	f := newFixture(t, c, store, idempotency.Options{})
	f.handler.gate, f.handler.gatedRuns = make(chan struct{}), 1
	defer close(f.handler.gate)
	go f.do("gone", "acct_a", body)
	awaitRun(f.handler)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := httptest.NewRequest("POST", "/v1/transfers", strings.NewReader(body)).WithContext(ctx)
	r.Header.Set("Idempotency-Key", "gone")
	r.Header.Set("X-Account", "acct_a")
	answer := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		w := httptest.NewRecorder()
		f.h.ServeHTTP(w, r)
		answer <- w
	}()
	awaitWaiting(t, store, answer)
	cancel()
	w := <-answer
	if w.Code != 409 || code(t, w) != "concurrent_idempotent_requests" || w.Header().Get("Retry-After") == "" {
		t.Errorf("blocked request whose caller left: %d %q %v", w.Code, w.Body, w.Header())
	}
	if n := f.metrics.Get(alerting.Conflicts, "", alerting.KindInFlight); n != 1 {
		t.Errorf("in-flight conflicts counted: %d, want 1", n)
	}
}

func TestSFStringKey(t *testing.T) {
	c := payoutsContract(t, "header_value: plain", "header_value: sf-string")
	f := newFixture(t, c, idempotency.NewMemoryStore(c), idempotency.Options{})
	if w := f.do(`"abc"`, "acct_a", body); w.Code != 201 {
		t.Errorf("quoted key: %d %s", w.Code, w.Body)
	}
	if w := f.do(`abc`, "acct_a", body); w.Code != 400 {
		t.Errorf("bare key under sf-string: %d", w.Code)
	}
}

func TestStartupRefusals(t *testing.T) {
	c := payoutsContract(t)
	ctx := context.Background()
	bad := payoutsContract(t, "mechanism: unique-constraint", "mechanism: check-then-insert")
	if _, err := idempotency.New(bad, idempotency.NewMemoryStore(bad), idempotency.Options{Account: func(*http.Request) (string, bool) { return "", false }}); err == nil || !strings.Contains(err.Error(), "claim/check-then-insert") {
		t.Errorf("contract with errors: %v", err)
	}
	if _, err := idempotency.New(c, idempotency.NewMemoryStore(c), idempotency.Options{}); err == nil || !strings.Contains(err.Error(), "Options.Account") {
		t.Errorf("no account function: %v", err)
	}
	if _, err := stores.Open(ctx, "postgres://nobody@127.0.0.1:1/none?connect_timeout=5", c, false); err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("unreachable postgres: %v", err)
	}
	if _, err := stores.Open(ctx, "redis://x", c, false); err == nil || !strings.Contains(err.Error(), "unknown store") {
		t.Errorf("unknown scheme: %v", err)
	}
	// A table without one column: the error names it.
	url := dbtest.Fresh(t, "sqlite", os.Getenv)
	s, err := stores.Open(ctx, url, c, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec("ALTER TABLE idempotency_keys DROP COLUMN downstream_keys"); err != nil {
		t.Fatal(err)
	}
	s.DB().Close()
	if _, err := stores.Open(ctx, url, c, false); err == nil || !strings.Contains(err.Error(), "has no column downstream_keys") {
		t.Errorf("missing column: %v", err)
	}
	if _, err := stores.Open(ctx, "sqlite:"+t.TempDir()+"/empty.db", c, false); err == nil || !strings.Contains(err.Error(), "table idempotency_keys is missing") {
		t.Errorf("missing table: %v", err)
	}
}

// TestCompleterAndReaper: an abandoned request is finished by the completer
// from its stored body and recovery point; the reaper deletes keys past
// reaper_after.
func TestCompleterAndReaper(t *testing.T) {
	for _, name := range []string{"memory", "sqlite"} {
		t.Run(name, func(t *testing.T) {
			c := payoutsContract(t)
			f := newFixture(t, c, openStore(t, name, c), idempotency.Options{})
			ctx := context.Background()
			k := keystore.Key{Account: "acct_a", Key: "abandoned"}
			won, err := f.store.Claim(ctx, k, keystore.NewClaim{Operation: "POST /v1/transfers", RequestBody: []byte(body), RecoveryPoint: "started"}, f.clock.Now())
			if err != nil || !won {
				t.Fatal(won, err)
			}
			if ok, err := f.store.Checkpoint(ctx, nil, k, 1, "bank_charged", map[string]string{"charge_bank": "dk-1"}, f.clock.Now()); err != nil || !ok {
				t.Fatal(ok, err)
			}
			if n, err := f.mw.Complete(ctx, 10); err != nil || n != 0 {
				t.Fatalf("completer took a live key: %d %v", n, err)
			}
			f.clock.Add(2*time.Minute + time.Second)
			var seen *idempotency.Step
			f.handler.onRun = func(s *idempotency.Step) { seen = s }
			if n, err := f.mw.Complete(ctx, 10); err != nil || n != 1 {
				t.Fatalf("completer finished %d (%v), want 1", n, err)
			}
			if seen == nil || seen.RecoveryPoint() != "bank_charged" || seen.Account() != "acct_a" || seen.Fence() != 2 {
				t.Fatalf("completer ran the handler with %+v", seen)
			}
			rec, err := f.store.Lookup(ctx, k)
			if err != nil || rec == nil || rec.Status != 201 {
				t.Fatalf("after the completer: %+v %v", rec, err)
			}
			f.clock.Add(71 * time.Hour)
			if n, err := f.mw.Reap(ctx, 1); err != nil || n != 0 {
				t.Fatalf("reaped %d keys inside reaper_after (%v)", n, err)
			}
			f.clock.Add(2 * time.Hour)
			if n, err := f.mw.Reap(ctx, 1); err != nil || n != 1 {
				t.Fatalf("reaped %d keys past reaper_after (%v), want 1", n, err)
			}
			if rec, _ := f.store.Lookup(ctx, k); rec != nil {
				t.Errorf("key still stored after the reaper")
			}
		})
	}
}

// TestKeyReusedOnAnotherOperation: a key completed on one operation and
// sent with the same body to another is the contract's payload mismatch,
// not a replay of the first operation's response nor a run of the
// second; under fingerprint: none the operation alone tells them apart.
func TestKeyReusedOnAnotherOperation(t *testing.T) {
	for _, fp := range []string{"sha256-body", "none"} {
		t.Run(fp, func(t *testing.T) {
			waive := "docs:\n"
			if fp == "none" {
				waive = "lint:\n  waive:\n    - rule: key/no-fingerprint\n      because: the test needs a contract without a fingerprint\ndocs:\n"
			}
			memory := func(c *contract.Contract) keystore.Store { return idempotency.NewMemoryStore(c) }
			f, p, mux := payoutsFixture(t, memory, idempotency.Options{}, "fingerprint: sha256-body", "fingerprint: "+fp, "docs:\n", waive)
			if w := f.do("shared", "acct_a", body); w.Code != http.StatusCreated {
				t.Fatalf("first use: %d %s", w.Code, w.Body)
			}
			w := postPayout(mux, "shared")
			if w.Code != http.StatusConflict || code(t, w) != "invalid_idempotent_request" || p.runs != 0 {
				t.Errorf("the key reused on %s: %d %s after %d runs, want the payload mismatch", payoutsOp, w.Code, w.Body, p.runs)
			}
		})
	}
}

// TestBodyTooLarge: a body above MaxBodyBytes gets the contract's 413 and
// runs nothing.
func TestBodyTooLarge(t *testing.T) {
	c := payoutsContract(t)
	f := newFixture(t, c, idempotency.NewMemoryStore(c), idempotency.Options{MaxBodyBytes: int64(len(body)) - 1})
	if w := f.do("big", "acct_a", body); w.Code != http.StatusRequestEntityTooLarge || f.handler.runs.Load() != 0 {
		t.Errorf("a body above MaxBodyBytes: %d %s after %d runs", w.Code, w.Body, f.handler.runs.Load())
	}
}

// TestPanicReleasesTheKey: a handler that panics gets the contract's 503
// (never a connection closed without an answer) and leaves its key to the
// next retry at once, which runs instead of meeting a key in flight.
func TestPanicReleasesTheKey(t *testing.T) {
	c := payoutsContract(t)
	f := newFixture(t, c, idempotency.NewMemoryStore(c), idempotency.Options{})
	f.handler.onRun = func(*idempotency.Step) {
		if f.handler.runs.Load() == 1 {
			panic("the handler failed")
		}
	}
	if w := f.do("panics", "acct_a", body); w.Code != http.StatusServiceUnavailable || code(t, w) != "idempotency_store_unavailable" {
		t.Errorf("a panicking handler: %d %s", w.Code, w.Body)
	}
	if w := f.do("panics", "acct_a", body); w.Code != http.StatusCreated || f.handler.runs.Load() != 2 {
		t.Errorf("the retry after a panic: %d %s after %d runs", w.Code, w.Body, f.handler.runs.Load())
	}
}

// vanishing is a store where every claim loses and every row has gone by
// the time it is read: Claim and Lookup disagree for ever.
type vanishing struct{ keystore.Store }

func (vanishing) Claim(context.Context, keystore.Key, keystore.NewClaim, time.Time) (bool, error) {
	return false, nil
}

func (vanishing) Lookup(context.Context, keystore.Key) (*keystore.Record, error) {
	return nil, nil
}

// TestClaimRoundsAreBounded: a store whose claim and read disagree for
// ever gets a 503 and a counted store failure, not a request that loops.
func TestClaimRoundsAreBounded(t *testing.T) {
	c := payoutsContract(t)
	f := newFixture(t, c, vanishing{idempotency.NewMemoryStore(c)}, idempotency.Options{})
	w := f.do("vanishing", "acct_a", body)
	if w.Code != http.StatusServiceUnavailable || f.handler.runs.Load() != 0 || f.metrics.Get(alerting.StoreFailures, "", alerting.StoreLookup) != 1 {
		t.Errorf("a key whose row keeps vanishing: %d %s after %d runs", w.Code, w.Body, f.handler.runs.Load())
	}
}
