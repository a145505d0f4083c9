package idempotency_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/alerting"
	"github.com/retryspec/retryspec/idempotency/keystore"
)

// The brief's standard for the server half: every path ends in a status
// and body the contract names, a log line and a metric. answerPaths is
// that list, one row per path the middleware answers by itself (a refusal,
// a conflict, a store or handler failure); TestEveryAnswerPath drives each
// on the in-memory store and on SQLite and checks all four, and
// TestAnswerPathsCoverEveryKind fails when a metric kind, a counter or a
// contract answer has no row, so a new path cannot be added without one.

// answerPath is one path: how to drive it, and what it must end in.
type answerPath struct {
	name string
	// metric and kind are the counter the path adds exactly one to (kind
	// "" for a counter without kinds); no other failure counter moves.
	metric, kind string
	// level is the level of the path's one log record; log is a stable
	// part of its message. A record of a counter with kinds also carries
	// the kind as its "kind" attribute.
	level slog.Level
	log   string
	// reply is the contract's answer the caller gets, byte for byte;
	// storedReply: the caller gets the response the key stores (201);
	// aborted: the handler aborted the response (http.ErrAbortHandler),
	// which goes on to the server, and the caller gets none, as it asked.
	reply                contract.ReplyKind
	storedReply, aborted bool
	// run drives the path on e and returns the answer of the request the
	// path is about, after calling e.mark() just before sending it.
	run func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder
}

var answerPaths = []answerPath{
	{name: "missing key", metric: alerting.Conflicts, kind: alerting.KindMissingKey, level: slog.LevelInfo, log: "request refused", reply: contract.ReplyMissingKey,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t), nil, idempotency.Options{}, created)
			e.mark()
			return e.post(context.Background(), "", "acct_a", body)
		}},
	{name: "key too long", metric: alerting.Conflicts, kind: alerting.KindInvalidKey, level: slog.LevelInfo, log: "request refused", reply: contract.ReplyInvalidKey,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t), nil, idempotency.Options{}, created)
			e.mark()
			return e.post(context.Background(), strings.Repeat("k", 300), "acct_a", body)
		}},
	{name: "first sent too long ago", metric: alerting.Conflicts, kind: alerting.KindTooOld, level: slog.LevelInfo, log: "request refused", reply: contract.ReplyTooOld,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			c := exampleContract(t, "azure-email")
			e.serve(t, c, nil, idempotency.Options{}, created)
			e.mark()
			r := keyed{key: "old", body: email, account: "acct_a", firstSent: e.clock.Now().Add(-6 * time.Minute)}.request(c, c.Endpoints[0])
			return e.send(r)
		}},
	{name: "expired key (after_window: error)", metric: alerting.Conflicts, kind: alerting.KindExpired, level: slog.LevelInfo, log: "request refused", reply: contract.ReplyExpired,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t, "after_window: new-request", "after_window: error",
				"docs:\n", "lint:\n  waive:\n    - rule: window/expiry-errors\n      because: the test needs the error mode\ndocs:\n"), nil, idempotency.Options{}, created)
			e.first(t, "old")
			e.clock.Add(25 * time.Hour)
			e.mark()
			return e.post(context.Background(), "old", "acct_a", body)
		}},
	{name: "key in flight", metric: alerting.Conflicts, kind: alerting.KindInFlight, level: slog.LevelInfo, log: "request refused", reply: contract.ReplyInFlight,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t), nil, idempotency.Options{}, created)
			e.holdFirst(t, "busy")
			e.mark()
			return e.post(context.Background(), "busy", "acct_a", body)
		}},
	{name: "key in flight (accepted)", metric: alerting.Conflicts, kind: alerting.KindInFlight, level: slog.LevelInfo, log: "request refused", reply: contract.ReplyInFlightAccepted,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t, "response: conflict", "response: accepted"), nil, idempotency.Options{}, created)
			e.holdFirst(t, "busy")
			e.mark()
			return e.post(context.Background(), "busy", "acct_a", body)
		}},
	{name: "caller gone while blocked on a key in flight", metric: alerting.Conflicts, kind: alerting.KindInFlight, level: slog.LevelInfo, log: "request refused", reply: contract.ReplyInFlight,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			c := payoutsContract(t, "response: conflict", "response: block")
			var lost lostClaims
			e.serve(t, c, func(s keystore.Store) keystore.Store {
				lost = lostClaims{s, new(atomic.Int64), make(chan struct{}, 1)}
				return lost
			}, idempotency.Options{}, created)
			e.holdFirst(t, "busy")
			e.mark()
			ctx, cancel := context.WithCancel(context.Background())
			answer := make(chan *httptest.ResponseRecorder, 1)
			go func() { answer <- e.post(ctx, "busy", "acct_a", body) }()
			awaitWaiting(t, lost, answer)
			cancel()
			return <-answer
		}},
	// The caller leaves while the request polls the store for the key it
	// waits on: the poll fails with the caller's context, and the request
	// ends as a wait cut short does (the key was in flight at its last
	// look), not as a store failure.
	{name: "caller gone during a poll of a key in flight", metric: alerting.Conflicts, kind: alerting.KindInFlight, level: slog.LevelInfo, log: "request refused", reply: contract.ReplyInFlight,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			c := payoutsContract(t, "response: conflict", "response: block")
			polling := make(chan struct{})
			e.serve(t, c, func(s keystore.Store) keystore.Store {
				return stallingPoll{Store: s, claims: new(atomic.Int64), polling: polling}
			}, idempotency.Options{}, created)
			e.holdFirst(t, "busy")
			e.mark()
			ctx, cancel := context.WithCancel(context.Background())
			answer := make(chan *httptest.ResponseRecorder, 1)
			go func() { answer <- e.post(ctx, "busy", "acct_a", body) }()
			select {
			case <-polling:
			case w := <-answer:
				t.Fatalf("the request for a key in flight answered %d %s without polling for it", w.Code, w.Body)
			}
			cancel()
			return <-answer
		}},
	{name: "payload mismatch", metric: alerting.Conflicts, kind: alerting.KindPayloadMismatch, level: slog.LevelInfo, log: "request refused", reply: contract.ReplyPayloadMismatch,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t), nil, idempotency.Options{}, created)
			e.first(t, "k")
			e.mark()
			return e.post(context.Background(), "k", "acct_a", `{"amount":1}`)
		}},
	{name: "body too large", metric: alerting.Conflicts, kind: alerting.KindBodyTooLarge, level: slog.LevelInfo, log: "request refused", reply: contract.ReplyBodyTooLarge,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t), nil, idempotency.Options{MaxBodyBytes: int64(len(body)) - 1}, created)
			e.mark()
			return e.post(context.Background(), "big", "acct_a", body)
		}},
	{name: "unreadable body", metric: alerting.Conflicts, kind: alerting.KindUnreadableBody, level: slog.LevelInfo, log: "request refused", reply: contract.ReplyUnreadableBody,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t), nil, idempotency.Options{}, created)
			e.mark()
			r := httptest.NewRequest("POST", "/v1/transfers", failingReader{})
			r.Header.Set("Idempotency-Key", "k")
			r.Header.Set("X-Account", "acct_a")
			return e.send(r)
		}},
	{name: "no caller", metric: alerting.Conflicts, kind: alerting.KindUnauthenticated, level: slog.LevelInfo, log: "request refused", reply: contract.ReplyUnauthenticated,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t), nil, idempotency.Options{}, created)
			e.mark()
			return e.post(context.Background(), "k", "", body)
		}},
	{name: "caller gone before the claim", metric: alerting.Conflicts, kind: alerting.KindCancelled, level: slog.LevelInfo, log: "request refused", reply: contract.ReplyStoreUnavailable,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t), failWith(""), idempotency.Options{}, created)
			e.mark()
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return e.post(ctx, "k", "acct_a", body)
		}},
	{name: "claim fails", metric: alerting.StoreFailures, kind: alerting.StoreClaim, level: slog.LevelError, log: "store failed", reply: contract.ReplyStoreUnavailable,
		run: onePost(failWith("claim"), idempotency.Options{}, created)},
	{name: "lookup fails", metric: alerting.StoreFailures, kind: alerting.StoreLookup, level: slog.LevelError, log: "store failed", reply: contract.ReplyStoreUnavailable,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t), failWith("lookup"), idempotency.Options{}, created)
			e.first(t, "k")
			e.mark()
			return e.post(context.Background(), "k", "acct_a", body)
		}},
	{name: "the key's row keeps changing", metric: alerting.StoreFailures, kind: alerting.StoreLookup, level: slog.LevelError, log: "store failed", reply: contract.ReplyStoreUnavailable,
		run: onePost(func(s keystore.Store) keystore.Store { return vanishing{s} }, idempotency.Options{}, created)},
	{name: "takeover fails", metric: alerting.StoreFailures, kind: alerting.StoreTakeover, level: slog.LevelError, log: "store failed", reply: contract.ReplyStoreUnavailable,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t), failWith("takeover"), idempotency.Options{}, created)
			e.holdFirst(t, "stuck")
			e.clock.Add(3 * time.Minute) // past lock_timeout: 2m
			e.mark()
			return e.post(context.Background(), "stuck", "acct_a", body)
		}},
	{name: "expiry fails", metric: alerting.StoreFailures, kind: alerting.StoreExpire, level: slog.LevelError, log: "store failed", reply: contract.ReplyStoreUnavailable,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t), failWith("expire"), idempotency.Options{}, created)
			e.first(t, "old")
			e.clock.Add(25 * time.Hour)
			e.mark()
			return e.post(context.Background(), "old", "acct_a", body)
		}},
	{name: "storing the response fails", metric: alerting.StoreFailures, kind: alerting.StoreComplete, level: slog.LevelError, log: "store failed", reply: contract.ReplyStoreUnavailable,
		run: onePost(failWith("complete"), idempotency.Options{}, created)},
	{name: "releasing an unstored outcome fails", metric: alerting.StoreFailures, kind: alerting.StoreRelease, level: slog.LevelError, log: "store failed", reply: contract.ReplyStoreUnavailable,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t), failWith("release"), idempotency.Options{}, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusServiceUnavailable) // never stored: the key is released
			})
			e.mark()
			return e.post(context.Background(), "k", "acct_a", body)
		}},
	{name: "Step.Finish fails", metric: alerting.StoreFailures, kind: alerting.StoreFinish, level: slog.LevelError, log: "store failed", reply: contract.ReplyStoreUnavailable,
		run: onePost(failWith("complete"), idempotency.Options{}, finisher(false))},
	{name: "Step.Finish committed but reported an error", metric: alerting.StoreFailures, kind: alerting.StoreFinishUnacknowledged, level: slog.LevelWarn,
		log: "committed", storedReply: true,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t), func(s keystore.Store) keystore.Store { return &failing{Store: s, ackLost: true} },
				idempotency.Options{}, finisher(false))
			e.mark()
			return e.post(context.Background(), "k", "acct_a", body)
		}},
	{name: "fence lost while the handler ran", metric: alerting.DuplicateEffects, level: slog.LevelError, log: "possible duplicate effect", reply: contract.ReplyInFlight,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			e.serve(t, payoutsContract(t), nil, idempotency.Options{}, func(w http.ResponseWriter, r *http.Request) {
				s := idempotency.FromContext(r.Context())
				// Another worker takes the key over (its lease looked
				// abandoned), then this one finishes.
				k := keystore.Key{Key: s.Key(), Account: s.Account()}
				if ok, err := e.inner.Takeover(context.Background(), k, s.Fence(), e.clock.Now().Add(3*time.Minute)); !ok || err != nil {
					t.Errorf("takeover: %v %v", ok, err)
				}
				w.WriteHeader(http.StatusCreated)
				if err := s.Finish(r.Context(), nil); !errors.Is(err, idempotency.ErrFenceLost) {
					t.Errorf("Finish after a takeover: %v", err)
				}
			})
			e.mark()
			return e.post(context.Background(), "k", "acct_a", body)
		}},
	{name: "handler panics", metric: alerting.HandlerPanics, level: slog.LevelError, log: "handler panicked", reply: contract.ReplyStoreUnavailable,
		run: onePost(nil, idempotency.Options{}, func(http.ResponseWriter, *http.Request) { panic("the handler failed") })},
	{name: "handler aborts its response", metric: alerting.HandlerPanics, level: slog.LevelWarn, log: "ErrAbortHandler", aborted: true,
		run: func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
			var runs atomic.Int64
			e.serve(t, payoutsContract(t), nil, idempotency.Options{}, func(w http.ResponseWriter, r *http.Request) {
				if runs.Add(1) == 1 {
					panic(http.ErrAbortHandler)
				}
				created(w, r)
			})
			e.mark()
			func() {
				defer func() {
					if p := recover(); p != http.ErrAbortHandler {
						t.Errorf("the abort reached the server as %v, want http.ErrAbortHandler", p)
					}
				}()
				e.post(context.Background(), "k", "acct_a", body)
			}()
			// The key was released: the retry runs (and logs and counts
			// no failure).
			if w := e.post(context.Background(), "k", "acct_a", body); w.Code != http.StatusCreated || runs.Load() != 2 {
				t.Errorf("the retry after an abort: %d %s after %d runs", w.Code, w.Body, runs.Load())
			}
			return nil
		}},
	{name: "handler panics after Step.Finish", metric: alerting.HandlerPanics, level: slog.LevelError, log: "handler panicked", storedReply: true,
		run: onePost(nil, idempotency.Options{}, finisher(true))},
}

// onePost is a path's run that serves the payouts contract with handler on
// the row's store wrapped by wrap, and sends one request with key "k".
func onePost(wrap func(keystore.Store) keystore.Store, opts idempotency.Options, handler http.HandlerFunc) func(*testing.T, *pathEnv) *httptest.ResponseRecorder {
	return func(t *testing.T, e *pathEnv) *httptest.ResponseRecorder {
		e.serve(t, payoutsContract(t), wrap, opts, handler)
		e.mark()
		return e.post(context.Background(), "k", "acct_a", body)
	}
}

// TestEveryAnswerPath drives each answer path and checks what it ends
// in: the contract's status and body, exactly one log record at the
// path's level naming it, and one count on the path's counter and no other
// failure counter.
func TestEveryAnswerPath(t *testing.T) {
	for _, name := range []string{"memory", "sqlite"} {
		for _, p := range answerPaths {
			t.Run(name+"/"+p.name, func(t *testing.T) {
				e := &pathEnv{storeName: name}
				w := p.run(t, e)
				defer e.wait()
				switch want := e.c.Reply(p.reply); {
				case p.aborted:
					// No answer: the server aborts it, as the handler asked.
				case p.storedReply:
					if w.Code != http.StatusCreated || w.Body.String() != stored {
						t.Errorf("answer %d %q, want the stored 201 %q", w.Code, w.Body, stored)
					}
				case w.Code != want.Status || w.Body.String() != string(want.Bytes()):
					t.Errorf("answer %d %q, want %d %q", w.Code, w.Body, want.Status, want.Bytes())
				}
				recs := e.logs.since(e.logMark)
				if len(recs) != 1 {
					t.Fatalf("%d log records, want 1: %v", len(recs), recs)
				}
				r := recs[0]
				if r.Level != p.level || !strings.Contains(r.Message, p.log) {
					t.Errorf("log record %s %q, want %s and a message with %q", r.Level, r.Message, p.level, p.log)
				}
				if kind := attr(r, "kind"); p.kind != "" && kind != p.kind {
					t.Errorf("log record's kind %q, want %q", kind, p.kind)
				}
				for _, s := range failureSeries() {
					want := int64(0)
					if s == (series{p.metric, p.kind}) {
						want = 1
					}
					if got := e.metrics.Get(s.name, "", s.kind) - e.counts[s]; got != want {
						t.Errorf("%s{kind=%q} moved by %d, want %d", s.name, s.kind, got, want)
					}
				}
			})
		}
	}
}

// TestAnswerPathsCoverEveryKind: every failure counter and kind the
// alerting package names, and every answer the contract renders for the
// middleware to send, is the end of at least one row of answerPaths.
func TestAnswerPathsCoverEveryKind(t *testing.T) {
	covered := map[series]bool{}
	replies := map[contract.ReplyKind]bool{}
	for _, p := range answerPaths {
		covered[series{p.metric, p.kind}] = true
		if !p.storedReply && !p.aborted {
			replies[p.reply] = true
		}
	}
	for _, s := range failureSeries() {
		if !covered[s] {
			t.Errorf("no answer path counts %s{kind=%q}: add a row to answerPaths", s.name, s.kind)
		}
	}
	// The Azure example states every conflict, so each kind renders a
	// status; the first kind without one is past the last.
	c := exampleContract(t, "azure-email")
	n := 0
	for k := contract.ReplyKind(0); c.Reply(k).Status != 0; k++ {
		n++
		if !replies[k] {
			t.Errorf("no answer path sends reply kind %d (%d %s): add a row to answerPaths", k, c.Reply(k).Status, c.Reply(k).Code)
		}
	}
	if n < 11 {
		t.Errorf("only %d reply kinds found; the enumeration stopped early", n)
	}
}

type series struct{ name, kind string }

// failureSeries are the counters that count a request's failure, each
// kind of each: the ones an answer path moves.
func failureSeries() []series {
	var out []series
	for _, k := range alerting.ConflictKinds {
		out = append(out, series{alerting.Conflicts, k})
	}
	for _, k := range alerting.StoreKinds {
		out = append(out, series{alerting.StoreFailures, k})
	}
	return append(out, series{alerting.DuplicateEffects, ""}, series{alerting.HandlerPanics, ""})
}

// stored is what created and finisher write: the response a key stores.
const stored = `{"id":"tr_1"}`

func created(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write([]byte(stored))
}

// finisher writes the response and completes the key with Step.Finish,
// then panics if asked.
func finisher(panics bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		created(w, r)
		_ = idempotency.FromContext(r.Context()).Finish(r.Context(), nil)
		if panics {
			panic("the handler failed after it finished")
		}
	}
}

// pathEnv is one answer path's middleware, store, clock, counters and
// log, on the store named storeName.
type pathEnv struct {
	storeName string
	c         *contract.Contract
	inner     keystore.Store // the real store, under the row's wrapper
	h         http.Handler
	clock     *clock
	metrics   *idempotency.Counters
	logs      *logRecords
	// held is a first request held in its handler (holdFirst); gate lets it go.
	gate, held chan struct{}
	running    chan struct{}
	// logMark and counts are the log and counters when mark was called.
	logMark int
	counts  map[series]int64
}

// serve wraps handler for the first keyed operation of c, on the row's
// store wrapped by wrap (nil: as it is), with the replay cache off so
// every request reaches the store.
func (e *pathEnv) serve(t *testing.T, c *contract.Contract, wrap func(keystore.Store) keystore.Store, opts idempotency.Options, handler http.HandlerFunc) {
	t.Helper()
	e.c, e.inner, e.clock, e.metrics, e.logs = c, openStore(t, e.storeName, c), newClock(), idempotency.NewCounters(), &logRecords{}
	store := e.inner
	if wrap != nil {
		store = wrap(store)
	}
	opts.Now, opts.Metrics, opts.Log, opts.ReplayCache = e.clock.Now, e.metrics, slog.New(e.logs), -1
	opts.Account = func(r *http.Request) (string, bool) {
		a := r.Header.Get("X-Account")
		return a, a != ""
	}
	mw, err := idempotency.New(c, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.gate, e.running = make(chan struct{}), make(chan struct{}, 1)
	var gated atomic.Bool
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e.held != nil && gated.CompareAndSwap(false, true) {
			e.running <- struct{}{}
			<-e.gate
		}
		handler(w, r)
	})
	if e.h, err = mw.Handle(c.Endpoints[0].Operation, next); err != nil {
		t.Fatal(err)
	}
}

// mark records the log and counters before the request the path is about.
func (e *pathEnv) mark() {
	e.logMark = e.logs.len()
	e.counts = map[series]int64{}
	for _, s := range failureSeries() {
		e.counts[s] = e.metrics.Get(s.name, "", s.kind)
	}
}

// first completes a first request with key.
func (e *pathEnv) first(t *testing.T, key string) {
	t.Helper()
	if w := e.post(context.Background(), key, "acct_a", body); w.Code != http.StatusCreated {
		t.Fatalf("first request: %d %s", w.Code, w.Body)
	}
}

// holdFirst starts a first request with key and returns once its handler
// runs, holding it there (its key in flight) until the row ends.
func (e *pathEnv) holdFirst(t *testing.T, key string) {
	t.Helper()
	e.held = make(chan struct{})
	go func() {
		defer close(e.held)
		e.post(context.Background(), key, "acct_a", body)
	}()
	<-e.running
}

// wait lets a held first request finish.
func (e *pathEnv) wait() {
	if e.held != nil {
		close(e.gate)
		<-e.held
	}
}

func (e *pathEnv) post(ctx context.Context, key, account, reqBody string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", "/v1/transfers", strings.NewReader(reqBody)).WithContext(ctx)
	if key != "" {
		r.Header.Set("Idempotency-Key", key)
	}
	if account != "" {
		r.Header.Set("X-Account", account)
	}
	return e.send(r)
}

func (e *pathEnv) send(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

// logRecords is a slog.Handler keeping every record, at every level.
type logRecords struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (l *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecords) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.recs = append(l.recs, r.Clone())
	l.mu.Unlock()
	return nil
}
func (l *logRecords) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecords) WithGroup(string) slog.Handler      { return l }

func (l *logRecords) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.recs)
}

func (l *logRecords) since(i int) []slog.Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.recs[i:])
}

func attr(r slog.Record, key string) string {
	v := ""
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v = a.Value.String()
			return false
		}
		return true
	})
	return v
}

// failing is a store whose statement named fail returns an error, and
// whose Claim, like a SQL store's, fails once the request's context has
// ended. ackLost: Complete commits, then reports an error (a connection
// lost before the acknowledgement), and Begin gives no transaction, so
// the commit is the statement's own.
type failing struct {
	keystore.Store
	fail    string
	ackLost bool
}

func failWith(statement string) func(keystore.Store) keystore.Store {
	return func(s keystore.Store) keystore.Store { return &failing{Store: s, fail: statement} }
}

var errStoreDown = errors.New("the store is down (a test's failure)")

func (s *failing) err(statement string) error {
	if s.fail == statement {
		return fmt.Errorf("%s: %w", statement, errStoreDown)
	}
	return nil
}

func (s *failing) Claim(ctx context.Context, k keystore.Key, c keystore.NewClaim, now time.Time) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if err := s.err("claim"); err != nil {
		return false, err
	}
	return s.Store.Claim(ctx, k, c, now)
}

func (s *failing) Lookup(ctx context.Context, k keystore.Key) (*keystore.Record, error) {
	if err := s.err("lookup"); err != nil {
		return nil, err
	}
	return s.Store.Lookup(ctx, k)
}

func (s *failing) Takeover(ctx context.Context, k keystore.Key, fence int64, now time.Time) (bool, error) {
	if err := s.err("takeover"); err != nil {
		return false, err
	}
	return s.Store.Takeover(ctx, k, fence, now)
}

func (s *failing) Expire(ctx context.Context, k keystore.Key, fence int64, now time.Time) (bool, error) {
	if err := s.err("expire"); err != nil {
		return false, err
	}
	return s.Store.Expire(ctx, k, fence, now)
}

func (s *failing) Release(ctx context.Context, k keystore.Key, fence int64) (bool, error) {
	if err := s.err("release"); err != nil {
		return false, err
	}
	return s.Store.Release(ctx, k, fence)
}

func (s *failing) Complete(ctx context.Context, tx *sql.Tx, k keystore.Key, fence int64, r keystore.Response, rp string, now time.Time) (bool, error) {
	if err := s.err("complete"); err != nil {
		return false, err
	}
	ok, err := s.Store.Complete(ctx, tx, k, fence, r, rp, now)
	if s.ackLost && err == nil {
		return ok, errors.New("connection lost after the commit (a test's failure)")
	}
	return ok, err
}

func (s *failing) Begin(ctx context.Context) (*sql.Tx, error) {
	if s.ackLost {
		return nil, nil
	}
	return s.Store.Begin(ctx)
}

// failingReader is a request body whose read fails.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) {
	return 0, errors.New("connection reset (a test's failure)")
}

// stallingPoll lets the first two claims through (the holder's win and
// the waiter's first loss); the third, the waiter's poll, says so on
// polling and then fails only when its context ends, as a database driver
// does with a statement cut short by its caller.
type stallingPoll struct {
	keystore.Store
	claims  *atomic.Int64
	polling chan struct{}
}

func (s stallingPoll) Claim(ctx context.Context, k keystore.Key, c keystore.NewClaim, now time.Time) (bool, error) {
	if s.claims.Add(1) < 3 {
		return s.Store.Claim(ctx, k, c, now)
	}
	if s.claims.Load() == 3 {
		close(s.polling)
	}
	<-ctx.Done()
	return false, ctx.Err()
}
