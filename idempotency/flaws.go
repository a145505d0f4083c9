package idempotency

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Flaw is one classic mistake Options.Flaw switches in, so that the
// reference server can show `retryspec verify` catching it (docs/server.md,
// "Prove it"; docs/verify.md). Never set one in a real service. Each is
// named for the property it breaks, and its behaviour lives in this file:
// the request path in middleware.go and step.go never asks for a flaw.
type Flaw string

const (
	// FlawCheckThenInsert reads the key and inserts it after, trusting
	// the read: two concurrent first attempts both run.
	FlawCheckThenInsert Flaw = "check-then-insert"
	// FlawNoInFlight counts a key in flight as absent: a concurrent retry
	// runs again.
	FlawNoInFlight Flaw = "no-in-flight"
	// FlawNoFingerprint replays a different body under the same key
	// instead of refusing it.
	FlawNoFingerprint Flaw = "no-fingerprint"
	// FlawReplayNotVerbatim re-encodes the stored response instead of
	// sending its bytes.
	FlawReplayNotVerbatim Flaw = "replay-not-verbatim"
	// FlawGlobalScope shares keys across accounts.
	FlawGlobalScope Flaw = "global-scope"
	// FlawMissingKeyAccepted runs a request without a key, with no
	// idempotency at all.
	FlawMissingKeyAccepted Flaw = "missing-key-accepted"
	// FlawFreshDownstreamKey sends a new key to the external calls on
	// each attempt.
	FlawFreshDownstreamKey Flaw = "fresh-downstream-key"
)

// Flaws are the mistakes Options.Flaw can switch in, in the order the docs
// list them.
var Flaws = []Flaw{
	FlawCheckThenInsert, FlawNoInFlight, FlawNoFingerprint, FlawReplayNotVerbatim,
	FlawGlobalScope, FlawMissingKeyAccepted, FlawFreshDownstreamKey,
}

// check refuses a Flaw that is none of Flaws (one converted from a
// command line, say); the zero Flaw is no flaw.
func (f Flaw) check() error {
	if f == "" || slices.Contains(Flaws, f) {
		return nil
	}
	names := make([]string, len(Flaws))
	for i, g := range Flaws {
		names[i] = string(g)
	}
	return fmt.Errorf("idempotency: unknown flaw %q (one of %s)", string(f), strings.Join(names, ", "))
}

// path is the key path with f's steps in place of the real ones.
func (f Flaw) path() keyPath {
	p := realPath
	switch f {
	case FlawCheckThenInsert:
		p.claim = (*endpointHandler).claimCheckThenInsert
	case FlawNoInFlight:
		p.claim, p.inFlight = (*endpointHandler).claimIfAbsent, (*endpointHandler).runInFlight
	case FlawNoFingerprint:
		p.sameRequest = func(*endpointHandler, *keyRequest, *Record) bool { return true }
	case FlawReplayNotVerbatim:
		p.replayBody = reencoded
	case FlawFreshDownstreamKey:
		p.downstreamKey = func(*Step, context.Context, string) (string, error) {
			return randomKey(), nil // a new key per attempt, never stored
		}
	}
	return p
}

// account is the Options.Account New uses: under FlawGlobalScope it still
// authenticates the caller but scopes no key to it.
func (f Flaw) account(account func(*http.Request) (string, bool)) func(*http.Request) (string, bool) {
	if f != FlawGlobalScope || account == nil {
		return account
	}
	return func(r *http.Request) (string, bool) {
		_, ok := account(r)
		return "", ok
	}
}

// handler is the handler Handle returns for h: under
// FlawMissingKeyAccepted a request without a key skips the middleware.
// "Without a key" is read where the contract's key_in says the key
// travels (readSentKey, the middleware's own reading): with the key in the
// body, a request whose body carries it is still served by the middleware,
// so the flaw breaks only the missing-key answer.
func (f Flaw) handler(h *endpointHandler) http.Handler {
	if f != FlawMissingKeyAccepted {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if h.m.c.Idempotency.InBody() {
			// Peek within the middleware's bound, and hand on the whole
			// body, read or not, to whichever serves the request.
			body, _ = io.ReadAll(io.LimitReader(r.Body, h.m.opts.MaxBodyBytes+1))
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		}
		if h.readSentKey(r, body).state == keyNotSent {
			h.next.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// claimCheckThenInsert is FlawCheckThenInsert's claim: look first, insert
// after, and trust the look. A key found is read again by the caller.
func (h *endpointHandler) claimCheckThenInsert(q *keyRequest, now time.Time) (bool, *Record, error) {
	rec, err := h.m.store.Lookup(q.r.Context(), q.k)
	if err != nil || rec != nil {
		return false, nil, err
	}
	// In a real service the check and the insert are two round trips
	// apart, often with application work between them; a pause of that
	// size makes the race as easy to hit here (on a single-connection
	// SQLite store too) as it is there.
	time.Sleep(2 * time.Millisecond)
	_, err = h.m.store.Claim(q.r.Context(), q.k, q.claim, now)
	return true, nil, err
}

// claimIfAbsent is FlawNoInFlight's claim: with no in-flight state a
// service looks for a stored response and runs whenever there is none, so
// every concurrent retry looks at once, not after the first claim; the key
// is only claimed when it is not there at all.
func (h *endpointHandler) claimIfAbsent(q *keyRequest, now time.Time) (won bool, rec *Record, err error) {
	if rec, err = h.m.store.Lookup(q.r.Context(), q.k); err == nil && rec == nil {
		won, err = h.m.store.Claim(q.r.Context(), q.k, q.claim, now)
	}
	return won, rec, err
}

// runInFlight is FlawNoInFlight's in-flight handler: a key without a
// response counts as absent, and the request runs under the holder's
// fence.
func (h *endpointHandler) runInFlight(q *keyRequest, rec *Record, _ time.Time) next {
	if !h.m.path.sameRequest(h, q, rec) {
		h.mismatch(q)
		return answered
	}
	h.run(q.w, q.r, q.k, rec.Fence, rec.RecoveryPoint, rec.DownstreamKeys, q.body)
	return answered
}

// reencoded is FlawReplayNotVerbatim's replay: the stored JSON decoded and
// encoded again, not its bytes.
func reencoded(stored []byte) []byte {
	var v any
	if json.Unmarshal(stored, &v) != nil {
		return stored
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return b
}
