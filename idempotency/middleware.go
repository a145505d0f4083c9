package idempotency

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/idempotency/alerting"
	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/internal/flaws"
)

// Options configure a Middleware with what the contract cannot know;
// everything it says (header, statuses, codes, windows, modes) comes from
// the contract.
type Options struct {
	// Account returns the authenticated caller of r, the scope of its keys
	// under scope: account (required there, unused with scope: global).
	// ok=false answers 401 without running anything.
	Account func(r *http.Request) (account string, ok bool)
	// Metrics receives the counters; nil counts nothing.
	Metrics Metrics
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxBodyBytes bounds the request body read for the fingerprint, the
	// completer and, with key_in: body, the key (so then every request of
	// a key: optional endpoint too); default 1 MiB; a larger body gets 413.
	MaxBodyBytes int64
	// Log receives store failures; nil means slog.Default().
	Log *slog.Logger
	// ReplayCache is how many completed keys' responses this process keeps
	// to answer a retry without a statement (zero means DefaultReplayCache;
	// negative turns it off). ReplayCacheBytes bounds their bytes (zero
	// means DefaultReplayCacheBytes); a response above an eighth of it is
	// not kept. It is sound with instances sharing the store: a stored
	// response never changes inside its replay window, and an entry serves
	// only until a minute (or a tenth of the window) before the window
	// ends, a margin for clocks that differ.
	ReplayCache      int
	ReplayCacheBytes int64
	// MaxResponseBytes bounds the response body the store keeps (zero
	// means DefaultMaxResponseBytes). A larger response is sent whole to
	// its first caller and stored as its status and headers with
	// BodyNotStoredHeader, which retries replay: the handler never runs
	// twice because a body was large.
	MaxResponseBytes int64
	// Flaw switches in one classic mistake, for the reference server's
	// --flaw: it proves `retryspec verify` catches it. A service leaves it
	// zero (the names are internal).
	Flaw flaws.Flaw
}

// NotStarted is the recovery point of a claimed key none of whose phases
// has committed: Step.Reached is false for every point of the contract's
// list (except a list beginning with "started", the convention for the
// same state).
const NotStarted = "started"

// DefaultReplayCache and DefaultReplayCacheBytes bound the replay cache
// when Options leave it at zero: 4,096 responses and 16 MiB.
const (
	DefaultReplayCache      = 4096
	DefaultReplayCacheBytes = 16 << 20
	// DefaultMaxResponseBytes is below every store's limit for one value
	// (MySQL's and MariaDB's default max_allowed_packet is 16 MiB or more;
	// PostgreSQL's bytea and SQLite's blob hold 1 GB).
	DefaultMaxResponseBytes = 8 << 20
)

// BodyNotStoredHeader marks a response whose body was larger than
// Options.MaxResponseBytes: its value is the body's size in bytes. It is
// sent with the first response and with every replay, which has the
// status and headers but no body.
const BodyNotStoredHeader = "Idempotency-Body-Not-Stored"

// Middleware keeps one contract's idempotency promise for net/http handlers.
type Middleware struct {
	c       *contract.Contract
	store   keystore.Store
	opts    Options
	metrics Metrics
	now     func() time.Time
	log     *slog.Logger

	mu       sync.Mutex
	handlers map[string]*endpointHandler
	backoff  map[keystore.Key]completerBackoff // the completer's, under mu
	cache    *replayCache                      // nil without Options.ReplayCache
	path     keyPath
}

// keyPath holds the steps of serving a key that a Flaw replaces: the
// claim, the in-flight handler, the same-request check, the replayed bytes
// and the downstream key. New sets the real ones (realPath); flaws.go
// holds the flawed ones, so the request path never asks whether a flaw
// is on.
type keyPath struct {
	claim         func(h *endpointHandler, q *keyRequest, now time.Time) (won bool, rec *keystore.Record, err error)
	inFlight      func(h *endpointHandler, q *keyRequest, rec *keystore.Record, now time.Time) next
	sameRequest   func(h *endpointHandler, q *keyRequest, rec *keystore.Record) bool
	replayBody    func(stored []byte) []byte
	downstreamKey func(s *Step, ctx context.Context, call string) (string, error)
}

var realPath = keyPath{
	claim:         (*endpointHandler).claim,
	inFlight:      (*endpointHandler).serveInFlight,
	sameRequest:   (*endpointHandler).sameRequest,
	replayBody:    func(stored []byte) []byte { return stored },
	downstreamKey: (*Step).downstreamKey,
}

type endpointHandler struct {
	m    *Middleware
	ep   contract.Endpoint
	next http.Handler
}

// New checks the contract and returns the middleware. A contract with
// errors (any unwaived error-severity finding of `retryspec check`), a
// missing Account function under scope: account, or an unknown flaw is an
// error: a service must not serve without the promise it documents.
func New(c *contract.Contract, store keystore.Store, opts Options) (*Middleware, error) {
	if c == nil || store == nil {
		return nil, errors.New("idempotency: New needs a contract and a store")
	}
	if err := contractErrors(c); err != nil {
		return nil, err
	}
	if c.Idempotency.Scope != contract.ScopeGlobal && opts.Account == nil {
		return nil, errors.New("idempotency: scope: account needs Options.Account to name each request's caller")
	}
	if err := opts.Flaw.Check(); err != nil {
		return nil, err
	}
	opts.Account = flawAccount(opts.Flaw, opts.Account)
	opts = opts.withDefaults()
	m := &Middleware{c: c, store: store, opts: opts, metrics: opts.Metrics, now: opts.Now, handlers: map[string]*endpointHandler{}, backoff: map[keystore.Key]completerBackoff{},
		path: flawPath(opts.Flaw)}
	if m.metrics == nil {
		m.metrics = nopMetrics{}
	}
	if m.now == nil {
		m.now = time.Now
	}
	if m.log = opts.Log; m.log == nil {
		m.log = slog.Default()
	}
	if a, ok := store.(keystore.AsyncCommitReporter); ok && a.AsyncCommit() != "" {
		// An explicit opt-in (stores.Open refuses it otherwise), visible
		// to operators for as long as the process runs on it.
		m.metrics.Count(alerting.AsyncCommitStarts, "", "")
		m.log.Warn("idempotency: the store acknowledges commits before they are flushed; a database crash can repeat effects",
			"setting", a.AsyncCommit())
	}
	if opts.ReplayCache > 0 {
		w := c.Idempotency.ReplayWindow.D
		m.cache = newReplayCache(opts.ReplayCache, opts.ReplayCacheBytes, w-min(time.Minute, w/10))
	}
	return m, nil
}

// contractErrors is New's refusal of a contract with errors: every
// unwaived error-severity finding of `retryspec check`, with its position.
func contractErrors(c *contract.Contract) error {
	var bad []string
	for _, f := range rules.Run(c) {
		if f.Severity == findings.Error && !f.Waived {
			bad = append(bad, fmt.Sprintf("%s:%d:%d: %s: %s", f.File, f.Line, f.Column, f.Rule, f.Message))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("idempotency: the contract has errors (run `retryspec check`):\n  %s", strings.Join(bad, "\n  "))
	}
	if gaps := c.MiddlewareGaps(); len(gaps) > 0 {
		// Serving it would answer by rules the contract does not state:
		// a body key read as missing, a first-sent window not enforced.
		return fmt.Errorf("idempotency: the middleware does not act on %s yet; it cannot serve this contract", strings.Join(gaps, ", "))
	}
	return nil
}

// withDefaults fills the bounds o leaves at zero.
func (o Options) withDefaults() Options {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if o.ReplayCache == 0 {
		o.ReplayCache = DefaultReplayCache
	}
	if o.ReplayCacheBytes <= 0 {
		o.ReplayCacheBytes = DefaultReplayCacheBytes
	}
	return o
}

// Handle wraps the handler of one contract operation ("POST /v1/transfers").
// An operation the contract does not list, or lists with key: none, is an
// error: wrapping it would promise what the docs do not.
func (m *Middleware) Handle(operation string, next http.Handler) (http.Handler, error) {
	for _, ep := range m.c.Endpoints {
		if ep.Operation != operation && ep.Method+" "+ep.Path != operation {
			continue
		}
		if !ep.Keyed() {
			return nil, fmt.Errorf("idempotency: %s has key: none in the contract", operation)
		}
		h := &endpointHandler{m: m, ep: ep, next: next}
		m.mu.Lock()
		m.handlers[ep.Operation] = h
		m.mu.Unlock()
		return flawHandler(m.opts.Flaw, h), nil
	}
	return nil, fmt.Errorf("idempotency: %s is not an endpoint of the contract", operation)
}

func (h *endpointHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m, idem := h.m, h.m.c.Idempotency
	key, body, done := h.admitKey(w, r)
	if done {
		return
	}
	var firstSent time.Time
	if idem.FirstSent.Set() {
		// Before the claim: a request too old never runs and never
		// stores anything, and gets no stored answer either.
		var no *refusal
		if firstSent, no = h.firstSent(r, m.now()); no != nil {
			h.refuse(w, keystore.Key{Key: key}, *no)
			return
		}
	}
	k, ok := h.scopedKey(w, r, key)
	if !ok {
		return
	}
	if !idem.InBody() {
		if body, ok = h.readBody(w, r); !ok {
			return
		}
	}
	fp := ""
	if idem.Fingerprint != contract.FingerprintNone {
		// With the key in the body, the key member is part of what is
		// fingerprinted, like every other member (unless
		// fingerprint_fields leaves it out): it is the same on every
		// request with the key, so it never makes a retry differ, and
		// leaving it in keeps the body hashed as sent, the way the pages
		// describe "the same request".
		fp = fingerprint(idem, r, body)
	}
	h.serveKey(w, r, k, fp, body, firstSent)
}

// admitKey reads the request's key where the contract's key_in says it
// travels, and refuses a missing or invalid one with the contract's
// answer. With the key in the body, the body is read first (within
// MaxBodyBytes, with the same answers as a header key's body) and
// returned, and the handler gets the same bytes. done: the request has
// its answer, refused, or run without a key on a key: optional endpoint
// (its answer is then the handler's alone, with no result header).
func (h *endpointHandler) admitKey(w http.ResponseWriter, r *http.Request) (key string, body []byte, done bool) {
	if h.m.c.Idempotency.InBody() {
		var ok bool
		if body, ok = h.readBody(w, r); !ok {
			return "", nil, true
		}
	}
	sent := h.readSentKey(r, body)
	if sent.state == keyNotSent && h.ep.Key == contract.KeyOptional {
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.next.ServeHTTP(w, r)
		return "", nil, true
	}
	if sent.state != keySentOK || h.tooLong(sent.key) {
		kind, reply := keyConflict(sent)
		why := sent.why
		if sent.state == keySentOK {
			why = fmt.Sprintf("the key is longer than %d characters", h.m.c.MaxKeyLengthFor(h.ep))
		}
		h.refuse(w, keystore.Key{}, refusal{kind, reply, why}) // no key to log: why says what was sent
		return "", nil, true
	}
	return sent.key, body, false
}

// readBody reads the request body within Options.MaxBodyBytes. ok=false:
// the request has its answer (unreadable, or too large).
func (h *endpointHandler) readBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	m := h.m
	body, err := io.ReadAll(io.LimitReader(r.Body, m.opts.MaxBodyBytes+1))
	if err != nil {
		h.refuse(w, keystore.Key{}, refusal{alerting.KindUnreadableBody, contract.ReplyUnreadableBody, "reading the body failed: " + err.Error()})
		return nil, false
	}
	if int64(len(body)) > m.opts.MaxBodyBytes {
		h.refuse(w, keystore.Key{}, refusal{alerting.KindBodyTooLarge, contract.ReplyBodyTooLarge,
			fmt.Sprintf("the body is longer than MaxBodyBytes (%d)", m.opts.MaxBodyBytes)})
		return nil, false
	}
	return body, true
}

// scopedKey scopes the request's key to the caller's account unless the
// contract's scope is global. ok=false: the request has its answer (401).
func (h *endpointHandler) scopedKey(w http.ResponseWriter, r *http.Request, key string) (k keystore.Key, ok bool) {
	m, idem := h.m, h.m.c.Idempotency
	k = keystore.Key{Key: key}
	if idem.Scope != contract.ScopeGlobal {
		if k.Account, ok = m.opts.Account(r); !ok {
			h.refuse(w, k, refusal{alerting.KindUnauthenticated, contract.ReplyUnauthenticated, "Options.Account named no caller"})
			return keystore.Key{}, false
		}
	}
	return k, true
}

// refuse answers a keyed request with one of the contract's conflicts
// (or a refused body or caller) without running it: counted under
// alerting.Conflicts by kind, and logged at Info (the client's to mend)
// with the kind and why. Every answer the middleware gives a client's
// request goes through it, so none is counted without a log line.
func (h *endpointHandler) refuse(w http.ResponseWriter, k keystore.Key, no refusal) {
	h.m.metrics.Count(alerting.Conflicts, h.ep.Operation, no.kind)
	h.m.log.Info("idempotency: request refused", "operation", h.ep.Operation, "kind", no.kind, "why", no.why,
		"key", k.Key, "account", k.Account)
	h.m.reply(w, no.reply)
}

// keyRequest is one request for a key, as the claim step and the state
// handlers see it.
type keyRequest struct {
	w     http.ResponseWriter
	r     *http.Request
	k     keystore.Key
	fp    string
	body  []byte
	claim keystore.NewClaim
	// firstSent is the request's first-sent time, zero when the contract
	// measures no first-sent window.
	firstSent time.Time
	// blockedSince is when the request began to wait for the key in
	// flight (in_flight.response: block); zero until it does.
	blockedSince time.Time
}

// keyState is the state a request finds its key in after the claim step.
type keyState int

const (
	keyAbsent    keyState = iota // the claim won: this request owns the key
	keyGone                      // claimed by another, then reaped or expired before the read
	keyInFlight                  // another request holds it and has not completed it
	keyCompleted                 // completed inside the replay window
	keyExpired                   // completed, and the replay window has passed
)

// next is what serveKey does after a state handler.
type next bool

const (
	answered   next = false // the request has its answer
	claimAgain next = true  // the key changed under the request: claim it again
)

// maxClaimRounds bounds the claims one request makes: a key that keeps
// changing (expired, reaped, taken over, waited for) is claimed again, but
// a store whose Claim and Lookup disagree for ever has a bug, and the
// request is refused rather than served.
const maxClaimRounds = 1000

// serveKey serves a keyed request the way its key's state says: the claim
// step, then one handler per state, until one of them answers.
func (h *endpointHandler) serveKey(w http.ResponseWriter, r *http.Request, k keystore.Key, fp string, body []byte, firstSent time.Time) {
	q := &keyRequest{w: w, r: r, k: k, fp: fp, body: body, firstSent: firstSent, claim: keystore.NewClaim{Operation: h.ep.Operation, Fingerprint: fp,
		RequestBody: body, RequestTarget: r.URL.RequestURI(), RecoveryPoint: h.firstPoint()}}
	for range maxClaimRounds + 1 {
		now := h.m.now()
		won, rec, ok := h.claimKey(q, now)
		if !ok {
			return
		}
		then := claimAgain
		switch h.state(won, rec, now) {
		case keyAbsent:
			then = h.serveAbsent(q, now)
		case keyInFlight:
			then = h.m.path.inFlight(h, q, rec, now)
		case keyCompleted:
			then = h.serveCompleted(q, rec)
		case keyExpired:
			then = h.serveExpired(q, rec, now)
		}
		if then == answered {
			return
		}
	}
	h.m.storeError(w, h.ep.Operation, k, alerting.StoreLookup, errors.New("the key's row keeps changing"))
}

// claimKey is the claim step: the request wins the key, or rec is the row
// of the request that holds it (from the replay cache, the combined claim
// and lookup, or a read after the lost claim). !ok: the store failed and
// the request has its answer.
func (h *endpointHandler) claimKey(q *keyRequest, now time.Time) (won bool, rec *keystore.Record, ok bool) {
	if rec := h.m.cache.get(q.k, now); rec != nil {
		return false, rec, true // complete and inside the window: no statement
	}
	won, rec, err := h.m.path.claim(h, q, now)
	if err != nil {
		h.storeFailed(q, alerting.StoreClaim, err)
		return false, nil, false
	}
	if won || rec != nil {
		return won, rec, true
	}
	if rec, err = h.m.store.Lookup(q.r.Context(), q.k); err != nil {
		h.storeFailed(q, alerting.StoreLookup, err)
		return false, nil, false
	}
	return false, rec, true
}

// claim claims the key in one statement; rec is the key's row when the
// store reads it in the same statement (ClaimLookuper).
func (h *endpointHandler) claim(q *keyRequest, now time.Time) (won bool, rec *keystore.Record, err error) {
	if cl, ok := h.m.store.(keystore.ClaimLookuper); ok {
		return cl.ClaimLookup(q.r.Context(), q.k, q.claim, now)
	}
	won, err = h.m.store.Claim(q.r.Context(), q.k, q.claim, now)
	return won, nil, err
}

func (h *endpointHandler) state(won bool, rec *keystore.Record, now time.Time) keyState {
	switch {
	case won:
		return keyAbsent
	case rec == nil:
		return keyGone
	case !rec.Complete():
		return keyInFlight
	case !rec.CreatedAt.After(now.Add(-h.m.c.Idempotency.ReplayWindow.D)):
		return keyExpired
	}
	return keyCompleted
}

// serveAbsent runs the request as the owner of the key it just claimed:
// fence 1, from the first recovery point.
func (h *endpointHandler) serveAbsent(q *keyRequest, now time.Time) next {
	h.m.metrics.Count(alerting.ClaimsWon, h.ep.Operation, "")
	stored := h.run(q.w, q.r, q.k, 1, q.claim.RecoveryPoint, map[string]string{}, q.body)
	// The claim's row holds now to the microsecond.
	h.cacheCompleted(q.k, q.fp, 1, stored, time.UnixMicro(now.UnixMicro()))
	return answered
}

// serveCompleted replays the stored response, unless the request is not
// the one the key was first used for.
func (h *endpointHandler) serveCompleted(q *keyRequest, rec *keystore.Record) next {
	if !h.m.path.sameRequest(h, q, rec) {
		h.mismatch(q)
		return answered
	}
	h.m.metrics.Count(alerting.Replays, h.ep.Operation, "")
	h.m.cache.put(q.k, rec)
	h.replay(q.w, rec)
	return answered
}

// serveExpired answers a key past its replay window as after_window says:
// the contract's error, or (a new request) the key is expired and claimed
// again.
func (h *endpointHandler) serveExpired(q *keyRequest, rec *keystore.Record, now time.Time) next {
	if h.sameFirstSent(q, rec) {
		return h.serveCompleted(q, rec)
	}
	if h.m.c.Idempotency.AfterWindow == contract.AfterWindowError {
		h.refuse(q.w, q.k, refusal{alerting.KindExpired, contract.ReplyExpired, "the key's replay window has passed"})
		return answered
	}
	if _, err := h.m.store.Expire(q.r.Context(), q.k, rec.Fence, now); err != nil {
		h.storeFailed(q, alerting.StoreExpire, err)
		return answered
	}
	return claimAgain
}

// serveInFlight answers a request whose key another request holds: a
// lock older than lock_timeout is taken over (takeover:
// conditional-update); otherwise in_flight.response says whether the
// request waits (block), is accepted (202) or refused (409).
func (h *endpointHandler) serveInFlight(q *keyRequest, rec *keystore.Record, now time.Time) next {
	if !h.m.path.sameRequest(h, q, rec) {
		h.mismatch(q)
		return answered
	}
	inf := h.m.c.Idempotency.InFlight
	if inf == nil {
		inf = &contract.InFlight{Response: contract.InFlightConflict}
	}
	if inf.Takeover == contract.TakeoverConditionalUpdate && !rec.LockedAt.After(now.Add(-inf.LockTimeout.D)) {
		return h.takeOver(q, rec, now)
	}
	switch inf.Response {
	case contract.InFlightBlock:
		if q.blockedSince.IsZero() {
			q.blockedSince = now
		}
		if now.Sub(q.blockedSince) < max(inf.LockTimeout.D, time.Second) {
			return h.waitInFlight(q, now)
		}
	case contract.InFlightAccepted:
		h.refuse(q.w, q.k, refusal{alerting.KindInFlight, contract.ReplyInFlightAccepted, "the key is in flight (in_flight.response: accepted)"})
		return answered
	}
	h.refuse(q.w, q.k, refusal{alerting.KindInFlight, contract.ReplyInFlight, "the key is in flight"})
	return answered
}

// takeOver claims a key whose holder's lock has run out and resumes its
// request from the last recovery point, under the next fence.
func (h *endpointHandler) takeOver(q *keyRequest, rec *keystore.Record, now time.Time) next {
	ok, err := h.m.store.Takeover(q.r.Context(), q.k, rec.Fence, now)
	if err != nil {
		h.storeFailed(q, alerting.StoreTakeover, err)
		return answered
	}
	if !ok {
		return claimAgain // another worker took it over first: read again
	}
	h.m.metrics.Count(alerting.Takeovers, h.ep.Operation, "")
	stored := h.run(q.w, q.r, q.k, rec.Fence+1, rec.RecoveryPoint, rec.DownstreamKeys, q.body)
	h.cacheCompleted(q.k, q.fp, rec.Fence+1, stored, rec.CreatedAt)
	return answered
}

// waitInFlight holds a request for a key in flight (in_flight.response:
// block) until the next look at the key, or answers the contract's
// in-flight conflict when its caller gives up first.
func (h *endpointHandler) waitInFlight(q *keyRequest, now time.Time) next {
	select {
	case <-q.r.Context().Done():
		// The caller gave up (or the server is shutting down): it gets
		// the contract's in-flight answer, never an empty 200 it did not
		// ask for.
		h.refuse(q.w, q.k, refusal{alerting.KindInFlight, contract.ReplyInFlight,
			"the request ended while it waited for its key in flight: " + q.r.Context().Err().Error()})
		return answered
	case <-time.After(pollInterval(now.Sub(q.blockedSince))):
		return claimAgain
	}
}

// sameRequest reports whether the request is the one the key was first
// used for: the same operation and, unless the contract fingerprints
// nothing, the same fingerprint.
func (h *endpointHandler) sameRequest(q *keyRequest, rec *keystore.Record) bool {
	return rec.Operation == h.ep.Operation &&
		(h.m.c.Idempotency.Fingerprint == contract.FingerprintNone || rec.Fingerprint == q.fp)
}

func pollInterval(waited time.Duration) time.Duration {
	return min(20*time.Millisecond+waited/10, 500*time.Millisecond)
}

// firstPoint is the recovery point a claim records: NotStarted, unless the
// contract's list itself begins with it. A claim commits none of the
// handler's work, so it must not record the first phase's point: with
// recovery_points [transfer_created, ...] a first attempt would read
// transfer_created as reached and skip the insert.
func (h *endpointHandler) firstPoint() string {
	return NotStarted
}

func (h *endpointHandler) lastPoint() string {
	if n := len(h.ep.RecoveryPoints); n > 0 {
		return h.ep.RecoveryPoints[n-1]
	}
	return "finished"
}

func (h *endpointHandler) mismatch(q *keyRequest) {
	h.refuse(q.w, q.k, refusal{alerting.KindPayloadMismatch, contract.ReplyPayloadMismatch, "the key was first used with another request"})
}

// replay writes the stored response: the same status, headers and bytes,
// with the contract's replay_header.
func (h *endpointHandler) replay(w http.ResponseWriter, rec *keystore.Record) {
	if rh := h.m.c.Idempotency.ReplayHeader; rh != "" {
		w.Header().Set(rh, "true")
	}
	h.m.writeStored(w, keystore.Response{Status: rec.Status, Headers: rec.Headers, Body: h.m.path.replayBody(rec.Body)})
}

// writeStored writes a response the handler wrote, now or on a first
// attempt it replays, with the result header's accepted value (the server
// took the request). The stored headers are copied first, so a value the
// handler set itself does not pass for the middleware's.
func (m *Middleware) writeStored(w http.ResponseWriter, r keystore.Response) {
	keys := make([]string, 0, len(r.Headers))
	for k := range r.Headers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		w.Header()[k] = slices.Clone(r.Headers[k])
	}
	if rh := m.c.Idempotency.ResultHeader; rh.Set() {
		w.Header().Set(rh.Name, rh.Value(contract.ResultAccepted))
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(r.Body)))
	w.WriteHeader(r.Status)
	_, _ = w.Write(r.Body)
}

// cacheCompleted keeps the response a request just stored under k in the
// replay cache, so that a retry this process receives (the usual one: the
// caller timed out while the request completed) is served without a
// statement, like every later replay of the key. stored nil: the request
// did not complete the key, and nothing is kept. The record is the row as
// the store now holds it.
func (h *endpointHandler) cacheCompleted(k keystore.Key, fp string, fence int64, stored *keystore.Response, createdAt time.Time) {
	if stored == nil || h.m.cache == nil {
		return
	}
	h.m.cache.put(k, &keystore.Record{Operation: h.ep.Operation, Fingerprint: fp, Fence: fence, RecoveryPoint: h.lastPoint(),
		Status: stored.Status, Headers: stored.Headers, Body: stored.Body, CreatedAt: createdAt})
}

// run executes the handler as the key's owner under fence, then stores its
// response (or releases the key) and sends it. It returns the response it
// stored, or nil when it did not complete the key.
func (h *endpointHandler) run(w http.ResponseWriter, r *http.Request, k keystore.Key, fence int64, rp string, downstream map[string]string, body []byte) *keystore.Response {
	m := h.m
	rec := &recorder{header: http.Header{}, max: m.opts.MaxResponseBytes}
	step := &Step{h: h, k: k, fence: fence, point: rp, resumed: rp != h.firstPoint(), downstream: downstream, rec: rec}
	// Detached from the caller on purpose: the handler's work may have
	// committed, and its outcome is stored (or the key released) even
	// when the caller has left, so a retry replays or resumes at once.
	ctx := context.WithoutCancel(r.Context())
	if p := h.runHandler(r, step, body); p != nil {
		return h.panicked(w, ctx, step, p)
	}
	resp := rec.response()
	stored, answered := h.keepOutcome(w, ctx, step, resp)
	if answered {
		return stored
	}
	if resp.Headers[BodyNotStoredHeader] != nil {
		m.metrics.Count(alerting.BodiesNotStored, h.ep.Operation, "")
		m.log.Warn("idempotency: response body above MaxResponseBytes; the key stores its status and headers only",
			"operation", h.ep.Operation, "key", k.Key, "account", k.Account, "bytes", rec.body.Len(), "max", m.opts.MaxResponseBytes)
	}
	// The caller gets the whole body the handler wrote, stored or not.
	m.writeStored(w, keystore.Response{Status: resp.Status, Headers: resp.Headers, Body: rec.body.Bytes()})
	return stored
}

// runHandler runs the wrapped handler with step in the request's context
// and body as the request's body, and returns what it panicked with (nil
// when it returned). http.ErrAbortHandler, the handler's own request to
// abort the response, releases the key, is counted and logged like any
// panic, and goes on to the server, which aborts the response as asked.
func (h *endpointHandler) runHandler(r *http.Request, step *Step, body []byte) (panicked any) {
	defer func() {
		if panicked = recover(); panicked == http.ErrAbortHandler {
			var releaseErr error
			if !step.done && !step.lost {
				_, releaseErr = h.m.store.Release(context.WithoutCancel(r.Context()), step.k, step.fence)
			}
			h.m.metrics.Count(alerting.HandlerPanics, h.ep.Operation, "")
			h.m.log.Warn("idempotency: the handler panicked with http.ErrAbortHandler; the response is aborted as it asked and the key left to the retry",
				"operation", h.ep.Operation, "key", step.k.Key, "account", step.k.Account, "release_err", releaseErr)
			panic(panicked)
		}
	}()
	r2 := r.WithContext(context.WithValue(r.Context(), stepKey{}, step))
	r2.Body = io.NopCloser(bytes.NewReader(body))
	h.next.ServeHTTP(step.rec, r2)
	return nil
}

// panicked answers a run whose handler panicked with p, instead of
// letting net/http close the connection on the caller without an answer.
// Nothing the handler wrote is sent or stored: a handler that finished
// before it panicked has its stored response sent (the key holds it);
// otherwise the key is released, so the retry resumes from the last
// recovery point, and the caller gets the contract's 503 ("retry with the
// same key"). One Error line and alerting.HandlerPanics, whichever way.
func (h *endpointHandler) panicked(w http.ResponseWriter, ctx context.Context, step *Step, p any) *keystore.Response {
	m, k := h.m, step.k
	m.metrics.Count(alerting.HandlerPanics, h.ep.Operation, "")
	attrs := []any{"operation", h.ep.Operation, "key", k.Key, "account", k.Account, "panic", fmt.Sprint(p)}
	if step.done {
		m.log.Error("idempotency: the handler panicked after it finished; sending the stored response", attrs...)
		m.writeStored(w, *step.stored)
		return step.stored
	}
	var releaseErr error
	if !step.lost && !step.released {
		_, releaseErr = m.store.Release(ctx, k, step.fence)
	}
	m.log.Error("idempotency: the handler panicked; the key is left to the retry", append(attrs, "release_err", releaseErr)...)
	m.reply(w, contract.ReplyStoreUnavailable)
	return nil
}

// keepOutcome stores the handler's response resp, or releases the key,
// as the step left it. answered: the request already has its answer (a
// store failure, or what settle sent); otherwise run sends resp. stored
// is the response the key now holds, nil when it holds none.
func (h *endpointHandler) keepOutcome(w http.ResponseWriter, ctx context.Context, step *Step, resp keystore.Response) (stored *keystore.Response, answered bool) {
	m, k := h.m, step.k
	switch {
	case step.done:
		return step.stored, false
	case step.lost || step.finishErr != nil:
		return h.settle(w, ctx, k, step), true
	case step.released:
		return nil, false
	case !m.c.Idempotency.Stores(resp.Status):
		// Not stored (contract.Idempotency.Stores): the key is released and
		// a retry with it runs the request.
		if _, err := m.store.Release(ctx, k, step.fence); err != nil {
			m.storeError(w, h.ep.Operation, k, alerting.StoreRelease, err)
			return nil, true
		}
		return nil, false
	}
	ok, err := m.store.Complete(ctx, nil, k, step.fence, resp, h.lastPoint(), m.now())
	if err != nil {
		m.storeError(w, h.ep.Operation, k, alerting.StoreComplete, err)
		return nil, true
	}
	if !ok {
		return h.settle(w, ctx, k, step), true
	}
	return &resp, false
}

// settle answers a run whose outcome its own writes cannot tell: its last
// transaction failed (step.finishErr), or a fenced write was refused
// (step.lost). The key's row decides. Complete under this run's token: the
// transaction committed and only its acknowledgement was lost, so the
// stored response is the outcome and is sent. In flight under this run's
// token: nothing of the last phase committed, so the key is released for
// the retry to resume from the last recovery point, and the caller gets a
// 503, never the response the handler wrote before its commit failed (it
// is not stored either: under stored_failures: replay it would answer
// every retry with a failure for work that earlier phases may have
// done). Anything else: another worker took the key over while this one
// ran, a possible duplicate effect.
func (h *endpointHandler) settle(w http.ResponseWriter, ctx context.Context, k keystore.Key, step *Step) *keystore.Response {
	m, op := h.m, h.ep.Operation
	rec, err := m.store.Lookup(ctx, k)
	if err != nil {
		// Unknown whether the last phase committed: the key stays in
		// flight, and the retry replays it or takes it over and resumes.
		m.storeError(w, op, k, alerting.StoreLookup, fmt.Errorf("%w (after the last transaction failed: %v)", err, step.finishErr))
		return nil
	}
	if rec != nil && rec.Fence == step.fence && rec.Complete() {
		if step.finishErr != nil {
			m.metrics.Count(alerting.StoreFailures, op, alerting.StoreFinishUnacknowledged)
			m.log.Warn("idempotency: the last transaction reported an error but committed; sending the stored response",
				"operation", op, "key", k.Key, "account", k.Account, "kind", alerting.StoreFinishUnacknowledged, "err", step.finishErr)
		}
		resp := keystore.Response{Status: rec.Status, Headers: rec.Headers, Body: rec.Body}
		m.writeStored(w, resp)
		return &resp
	}
	if !step.lost && rec != nil && rec.Fence == step.fence {
		ok, err := m.store.Release(ctx, k, step.fence)
		if err != nil {
			m.storeError(w, op, k, alerting.StoreRelease, fmt.Errorf("%w (after the last transaction failed: %v)", err, step.finishErr))
			return nil
		}
		if ok {
			m.storeError(w, op, k, alerting.StoreFinish, fmt.Errorf("the last transaction failed, key released at recovery point %q: %w", rec.RecoveryPoint, step.finishErr))
			return nil
		}
	}
	// Another worker took the key over while this one ran: both ran the
	// handler.
	m.metrics.Count(alerting.DuplicateEffects, op, "")
	m.log.Error("idempotency: the key was taken over while its handler ran; possible duplicate effect",
		"operation", op, "key", k.Key, "account", k.Account, "fence", step.fence)
	m.reply(w, contract.ReplyInFlight)
	return nil
}

// recorder buffers the handler's response until it is stored. max bounds
// the body response stores (0: no bound).
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	max    int64
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(status int) {
	if status >= 100 && status < 200 {
		return // an informational response (103 Early Hints) is not the outcome
	}
	if r.status == 0 {
		r.status = status
		// A declared length sizes the buffer once: no doubling growth,
		// so a large body costs its size, not up to twice more.
		if n, err := strconv.ParseInt(r.header.Get("Content-Length"), 10, 64); err == nil && n > 0 && n <= 1<<30 {
			r.body.Grow(int(n))
		}
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// unstoredHeaders are dropped from the stored response. The hop-by-hop
// headers (RFC 9110 7.6.1), Date and Content-Length describe one
// connection or one sending, not the outcome; Set-Cookie hands the first
// caller's session to whoever replays the key; WWW-Authenticate and
// Proxy-Authenticate answer one caller's credentials. So do the headers
// the response's Connection header names.
var unstoredHeaders = []string{
	"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
	"Date", "Content-Length",
	"Set-Cookie", "Set-Cookie2", "Www-Authenticate", "Proxy-Authenticate", "Authentication-Info", "Proxy-Authentication-Info",
}

func (r *recorder) response() keystore.Response {
	status := r.status
	if status == 0 {
		status = http.StatusOK
	}
	h := make(map[string][]string, len(r.header)+1)
	named := map[string]bool{}
	for _, v := range r.header.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			named[http.CanonicalHeaderKey(strings.TrimSpace(name))] = true
		}
	}
	for k, v := range r.header {
		if !unstored(k) && !named[http.CanonicalHeaderKey(k)] {
			h[k] = slices.Clone(v)
		}
	}
	if _, ok := h["Content-Type"]; !ok && r.body.Len() > 0 {
		h["Content-Type"] = []string{http.DetectContentType(r.body.Bytes())}
	}
	if r.max > 0 && int64(r.body.Len()) > r.max {
		h[BodyNotStoredHeader] = []string{strconv.Itoa(r.body.Len())}
		return keystore.Response{Status: status, Headers: h}
	}
	return keystore.Response{Status: status, Headers: h, Body: bytes.Clone(r.body.Bytes())}
}

func unstored(k string) bool {
	return slices.Contains(unstoredHeaders, http.CanonicalHeaderKey(k))
}

// readKey returns the header's value; present is false when the header is
// absent or empty. Two or more header lines are returned as one value
// holding a newline, which parseKey refuses: a key is never two lines
// joined.
func readKey(r *http.Request, header string) (string, bool) {
	vals := r.Header.Values(header)
	if len(vals) == 0 {
		return "", false
	}
	v := strings.TrimSpace(strings.Join(vals, "\n"))
	return v, v != ""
}

// parseKey reads the key as the contract's header_value says: as sent
// (plain), or as an RFC 8941 sf-string ("quoted", with \" and \\).
func parseKey(v string, form contract.HeaderValue) (string, bool) {
	if form == contract.HeaderSFString {
		if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
			return "", false
		}
		var b strings.Builder
		for i := 1; i < len(v)-1; i++ {
			c := v[i]
			if c == '\\' {
				i++
				if i >= len(v)-1 || (v[i] != '"' && v[i] != '\\') {
					return "", false
				}
				c = v[i]
			} else if c == '"' || c < 0x20 || c > 0x7e {
				return "", false
			}
			b.WriteByte(c)
		}
		v = b.String()
	}
	// Not valid UTF-8: a store with a UTF-8 key column would refuse it
	// with an error (a 503) instead of the contract's 400.
	if v == "" || strings.ContainsAny(v, "\r\n\x00") || !utf8.ValidString(v) {
		return "", false
	}
	return v, true
}

// storeFailed is storeError for a statement run under the request's own
// context (the claim, the read, the expiry and the takeover; the writes
// after the handler run detached from it). When that context has ended
// (the caller left, the server is shutting down), the statement's failure
// says nothing about the store: the request gets the same 503, but it is
// counted as the caller's (alerting.KindCancelled) and logged at Info, so
// the store-failure alert does not page for clients that hung up. A
// request that was waiting for a key in flight (in_flight.response: block)
// ends with the in-flight conflict instead, as when it leaves between
// looks, so where the cancellation lands does not change the answer.
func (h *endpointHandler) storeFailed(q *keyRequest, kind string, err error) {
	if ctxErr := q.r.Context().Err(); ctxErr != nil {
		if !q.blockedSince.IsZero() {
			// It was waiting for a key in flight and left during a look
			// at it: the same end as a wait cut short (waitInFlight),
			// wherever the cancellation landed.
			h.refuse(q.w, q.k, refusal{alerting.KindInFlight, contract.ReplyInFlight,
				fmt.Sprintf("the request ended (%v) while it waited for its key in flight: %v", ctxErr, err)})
			return
		}
		h.refuse(q.w, q.k, refusal{alerting.KindCancelled, contract.ReplyStoreUnavailable,
			fmt.Sprintf("the request ended (%v) before the store answered its %s: %v", ctxErr, kind, err)})
		return
	}
	h.m.storeError(q.w, h.ep.Operation, q.k, kind, err)
}

// storeError answers 503 when the store fails: never serve without the
// claim. The client may retry with the same key. kind is the statement
// that failed (an alerting.Store* kind), counted under StoreFailures.
func (m *Middleware) storeError(w http.ResponseWriter, op string, k keystore.Key, kind string, err error) {
	m.metrics.Count(alerting.StoreFailures, op, kind)
	m.log.Error("idempotency store failed; request refused", "operation", op, "key", k.Key, "account", k.Account, "kind", kind, "err", err)
	m.reply(w, contract.ReplyStoreUnavailable)
}
