package idempotency

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/internal/flaws"
)

// The flaws Options.Flaw switches in, named in internal/flaws, behave as
// the functions of this file say: the request path in middleware.go and
// step.go never asks for a flaw.

// flawPath is the key path with f's steps in place of the real ones.
func flawPath(f flaws.Flaw) keyPath {
	p := realPath
	switch f {
	case flaws.CheckThenInsert:
		p.claim = (*endpointHandler).claimCheckThenInsert
	case flaws.NoInFlight:
		p.claim, p.inFlight = (*endpointHandler).claimIfAbsent, (*endpointHandler).runInFlight
	case flaws.NoFingerprint:
		p.sameRequest = func(*endpointHandler, *keyRequest, *keystore.Record) bool { return true }
	case flaws.ReplayNotVerbatim:
		p.replayBody = reencoded
	case flaws.FreshDownstreamKey:
		p.downstreamKey = func(*Step, context.Context, string) (string, error) {
			return randomKey(), nil // a new key per attempt, never stored
		}
	}
	return p
}

// flawAccount is the Options.Account New uses: under flaws.GlobalScope it
// still authenticates the caller but scopes no key to it.
func flawAccount(f flaws.Flaw, account func(*http.Request) (string, bool)) func(*http.Request) (string, bool) {
	if f != flaws.GlobalScope || account == nil {
		return account
	}
	return func(r *http.Request) (string, bool) {
		_, ok := account(r)
		return "", ok
	}
}

// flawHandler is the handler Handle returns for h: under
// flaws.MissingKeyAccepted a request without a key skips the middleware.
// "Without a key" is read where the contract's key_in says the key
// travels (readSentKey, the middleware's own reading): with the key in the
// body, a request whose body carries it is still served by the middleware,
// so the flaw breaks only the missing-key answer.
func flawHandler(f flaws.Flaw, h *endpointHandler) http.Handler {
	if f != flaws.MissingKeyAccepted {
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

// claimCheckThenInsert is flaws.CheckThenInsert's claim: look first, insert
// after, and trust the look. A key found is read again by the caller.
func (h *endpointHandler) claimCheckThenInsert(q *keyRequest, now time.Time) (bool, *keystore.Record, error) {
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

// claimIfAbsent is flaws.NoInFlight's claim: with no in-flight state a
// service looks for a stored response and runs whenever there is none, so
// every concurrent retry looks at once, not after the first claim; the key
// is only claimed when it is not there at all.
func (h *endpointHandler) claimIfAbsent(q *keyRequest, now time.Time) (won bool, rec *keystore.Record, err error) {
	if rec, err = h.m.store.Lookup(q.r.Context(), q.k); err == nil && rec == nil {
		won, err = h.m.store.Claim(q.r.Context(), q.k, q.claim, now)
	}
	return won, rec, err
}

// runInFlight is flaws.NoInFlight's in-flight handler: a key without a
// response counts as absent, and the request runs under the holder's
// fence.
func (h *endpointHandler) runInFlight(q *keyRequest, rec *keystore.Record, _ time.Time) next {
	if !h.m.path.sameRequest(h, q, rec) {
		h.mismatch(q)
		return answered
	}
	h.run(q.w, q.r, q.k, rec.Fence, rec.RecoveryPoint, rec.DownstreamKeys, q.body)
	return answered
}

// reencoded is flaws.ReplayNotVerbatim's replay: the stored JSON decoded and
// encoded again, not its bytes.
func reencoded(stored []byte) []byte {
	var v any
	if json.Unmarshal(stored, &v) != nil {
		return stored
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return b
}
