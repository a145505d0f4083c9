package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/flaws"
)

// appFlaw is a mistake this server switches in around the middleware (the
// others are the middleware's own, flaws.All), each caught by one
// verify gate (docs/verify.md).
type appFlaw string

const (
	// windowIgnored: a completed key replays for ever, as a store whose
	// reads never compare the key's age with replay_window does
	// (verify/after-window).
	windowIgnored appFlaw = "window-ignored"
	// failureReplayed: a cache in front of the route keeps every 5xx
	// answer and replays it to each retry with the key, so a transient
	// outage poisons the key (verify/failed-attempt).
	failureReplayed appFlaw = "failure-replayed"
	// keyFormLenient: a bare key is taken as if it were quoted, under
	// header_value: sf-string (verify/key-form).
	keyFormLenient appFlaw = "key-form-lenient"
)

var appFlaws = []appFlaw{windowIgnored, failureReplayed, keyFormLenient}

// flawNames lists every --flaw: the middleware's, then this server's.
func flawNames() string {
	var names []string
	for _, f := range flaws.All {
		names = append(names, string(f))
	}
	for _, f := range appFlaws {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// parseFlaw splits --flaw into this server's flaw or the middleware's; the
// middleware refuses a name that is neither (idempotency.New).
func parseFlaw(name string) (appFlaw, flaws.Flaw) {
	if slices.Contains(appFlaws, appFlaw(name)) {
		return appFlaw(name), ""
	}
	return "", flaws.Flaw(name)
}

// keyStore is the key store under f: window-ignored's ageless one, or s.
func (f appFlaw) keyStore(s *stores.SQLStore) keystore.Store {
	if f == windowIgnored {
		return ageless{s}
	}
	return s
}

// ageless is the key store of window-ignored: every record it reads looks
// first used just now, so no key ever leaves its replay window.
type ageless struct{ *stores.SQLStore }

func (s ageless) Lookup(ctx context.Context, k keystore.Key) (*keystore.Record, error) {
	rec, err := s.SQLStore.Lookup(ctx, k)
	if rec != nil {
		rec.CreatedAt = time.Now()
	}
	return rec, err
}

func (s ageless) ClaimLookup(ctx context.Context, k keystore.Key, c keystore.NewClaim, now time.Time) (bool, *keystore.Record, error) {
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
func (a *app) withAppFlaw(flaw appFlaw, h http.Handler) http.Handler {
	id := a.c.Idempotency
	switch flaw {
	case failureReplayed:
		replay := id.ReplayHeader
		if replay == "" {
			replay = "Idempotent-Replayed"
		}
		return &failureCache{header: id.Header, replayHeader: replay, next: h, kept: map[string]*httptest.ResponseRecorder{}}
	case keyFormLenient:
		return lenientKey(id.Header, h)
	}
	return h
}
