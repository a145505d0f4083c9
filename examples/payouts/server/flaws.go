package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retryspec/retryspec/idempotency"
)

// appFlaws are the mistakes this server switches in around the middleware
// (the others are the middleware's own, idempotency.Flaws), each caught by
// one verify gate (docs/verify.md):
//
//   - window-ignored: a completed key replays for ever, as a store whose
//     reads never compare the key's age with replay_window does
//     (verify/after-window);
//   - failure-replayed: a cache in front of the route keeps every 5xx
//     answer and replays it to each retry with the key, so a transient
//     outage poisons the key (verify/failed-attempt);
//   - key-form-lenient: a bare key is taken as if it were quoted, under
//     header_value: sf-string (verify/key-form).
var appFlaws = []string{"window-ignored", "failure-replayed", "key-form-lenient"}

// ageless is the key store of window-ignored: every record it reads looks
// first used just now, so no key ever leaves its replay window.
type ageless struct{ *idempotency.SQLStore }

func (s ageless) Lookup(ctx context.Context, k idempotency.Key) (*idempotency.Record, error) {
	rec, err := s.SQLStore.Lookup(ctx, k)
	if rec != nil {
		rec.CreatedAt = time.Now()
	}
	return rec, err
}

func (s ageless) ClaimLookup(ctx context.Context, k idempotency.Key, c idempotency.NewClaim, now time.Time) (bool, *idempotency.Record, error) {
	won, rec, err := s.SQLStore.ClaimLookup(ctx, k, c, now)
	if rec != nil {
		rec.CreatedAt = time.Now()
	}
	return won, rec, err
}

// failureCache is failure-replayed's cache in front of the keyed route.
type failureCache struct {
	header, replayHeader string
	next                 http.Handler
	mu                   sync.Mutex
	kept                 map[string]*httptest.ResponseRecorder
}

func (f *failureCache) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("Authorization") + "\x00" + r.Header.Get(f.header)
	f.mu.Lock()
	kept := f.kept[id]
	f.mu.Unlock()
	if kept != nil {
		for k, v := range kept.Header() {
			w.Header()[k] = v
		}
		w.Header().Set(f.replayHeader, "true")
		w.WriteHeader(kept.Code)
		w.Write(kept.Body.Bytes())
		return
	}
	rec := httptest.NewRecorder()
	f.next.ServeHTTP(rec, r)
	if rec.Code >= 500 {
		f.mu.Lock()
		f.kept[id] = rec
		f.mu.Unlock()
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// lenientKey quotes a bare key before the middleware reads it, so a value
// that is not an sf-string is taken anyway.
func lenientKey(header string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get(header); v != "" && !strings.HasPrefix(v, `"`) {
			r.Header.Set(header, strconv.Quote(v))
		}
		next.ServeHTTP(w, r)
	})
}

// withAppFlaw wraps the keyed route in the app-level flaw, if any.
func (a *app) withAppFlaw(flaw string, h http.Handler) http.Handler {
	id := a.c.Idempotency
	switch flaw {
	case "failure-replayed":
		replay := id.ReplayHeader
		if replay == "" {
			replay = "Idempotent-Replayed"
		}
		return &failureCache{header: id.Header, replayHeader: replay, next: h, kept: map[string]*httptest.ResponseRecorder{}}
	case "key-form-lenient":
		return lenientKey(id.Header, h)
	}
	return h
}
