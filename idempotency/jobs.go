package idempotency

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/retryspec/retryspec/idempotency/alerting"
	"github.com/retryspec/retryspec/idempotency/keystore"
)

// Complete is the completer (idempotency.recovery.completer): it takes over
// up to limit abandoned in-flight keys (lease older than lock_timeout) and
// runs their handler again, resuming at the last recovery point, until the
// response is stored. The rebuilt request has the stored target, path
// parameters and body but not the headers, so the handler reads the caller
// from Step.Account. A key on a path with parameters whose row has no
// target is skipped: logged, counted in alerting.CompleterSkipped and left
// to the client's retry. A service runs it on a schedule; it returns how
// many keys it finished.
func (m *Middleware) Complete(ctx context.Context, limit int) (int, error) {
	stale, err := m.store.Stale(ctx, m.now(), limit)
	if err != nil {
		return 0, err
	}
	done := 0
	now := m.now()
	for _, s := range stale {
		if m.backingOff(s.Key, now) {
			continue
		}
		m.mu.Lock()
		h := m.handlers[s.Operation]
		m.mu.Unlock()
		if h == nil {
			continue // no handler registered here
		}
		rec, err := m.store.Lookup(ctx, s.Key)
		if err != nil {
			return done, err
		}
		if rec == nil || rec.Complete() || rec.Fence != s.Fence {
			m.backedOff(s.Key, true, now)
			continue // finished or taken over since Stale read it
		}
		req, skip := h.storedRequest(ctx, rec)
		if skip != "" {
			m.metrics.Count(alerting.CompleterSkipped, s.Operation, skip)
			m.log.Warn("idempotency completer: cannot rebuild the request of an abandoned key; left to the client's retry",
				"operation", s.Operation, "key", s.Key.Key, "account", s.Key.Account, "recovery_point", rec.RecoveryPoint,
				"reason", skip, "request_target", rec.RequestTarget, "retry_in", m.backedOff(s.Key, false, now))
			continue
		}
		ok, err := m.store.Takeover(ctx, s.Key, rec.Fence, m.now())
		if err != nil {
			return done, err
		}
		if !ok {
			continue
		}
		m.metrics.Count(alerting.Takeovers, s.Operation, "")
		w := &recorder{header: http.Header{}}
		stored := h.run(w, req, s.Key, rec.Fence+1, rec.RecoveryPoint, rec.DownstreamKeys, rec.RequestBody)
		if stored != nil {
			done++
		}
		if wait := m.backedOff(s.Key, stored != nil, now); wait > 0 {
			m.log.Warn("idempotency completer: could not finish the key; backing off",
				"operation", s.Operation, "key", s.Key.Key, "account", s.Key.Account,
				"recovery_point", rec.RecoveryPoint, "status", w.status, "retry_in", wait)
		}
	}
	return done, nil
}

// storedRequest rebuilds the request rec was claimed with, for the
// completer: the endpoint's method, the stored target and body, and the
// values of the contract path's {name} segments, set as ServeMux sets them.
// skip is an alerting.Skip* kind when it cannot: a row from before the
// store kept targets, on a path with parameters, or a target that is not
// a path of the endpoint.
func (h *endpointHandler) storedRequest(ctx context.Context, rec *keystore.Record) (req *http.Request, skip string) {
	target := rec.RequestTarget
	if target == "" {
		if strings.Contains(h.ep.Path, "{") {
			return nil, alerting.SkipNoTarget
		}
		target = h.ep.Path // a row from before targets were kept: the path is the contract's
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return nil, alerting.SkipTargetMismatch
	}
	names, values, ok := pathValues(h.ep.Path, u.EscapedPath())
	if !ok {
		return nil, alerting.SkipTargetMismatch
	}
	req, err = http.NewRequestWithContext(ctx, h.ep.Method, target, bytes.NewReader(rec.RequestBody))
	if err != nil {
		return nil, alerting.SkipTargetMismatch
	}
	for i, name := range names {
		req.SetPathValue(name, values[i])
	}
	return req, ""
}

// pathValues matches an escaped request path against a contract path whose
// {name} segments each match one non-empty segment, and returns the
// unescaped value of each, as net/http's ServeMux does. A template segment
// that mixes braces with text ({id}.json) matches nothing: the completer
// cannot say what a router would make of it.
func pathValues(template, escaped string) (names, values []string, ok bool) {
	want, got := strings.Split(template, "/"), strings.Split(escaped, "/")
	if len(want) != len(got) {
		return nil, nil, false
	}
	for i, w := range want {
		seg, err := url.PathUnescape(got[i])
		if err != nil {
			return nil, nil, false
		}
		if name, isParam := strings.CutPrefix(w, "{"); isParam {
			name, closed := strings.CutSuffix(name, "}")
			if !closed || strings.ContainsAny(name, "{}") || name == "" || seg == "" {
				return nil, nil, false
			}
			names, values = append(names, name), append(values, seg)
			continue
		}
		if strings.ContainsAny(w, "{}") || seg != w {
			return nil, nil, false
		}
	}
	return names, values, true
}

// The completer's backoff: a key it took over and could not finish (the
// handler released it, or failed again) is left alone for a while, twice
// as long after each failure, from the lock timeout (at least a second)
// up to an hour, instead of being run again on every tick.
type completerBackoff struct {
	wait  time.Duration
	until time.Time
}

func (m *Middleware) backingOff(k keystore.Key, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.backoff[k]
	return ok && now.Before(b.until)
}

// backedOff records a completer run of k and returns how long the key is
// left alone: zero once it finished (or is gone), which forgets it.
func (m *Middleware) backedOff(k keystore.Key, finished bool, now time.Time) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	if finished {
		delete(m.backoff, k)
		return 0
	}
	b := m.backoff[k]
	base := time.Second
	if inf := m.c.Idempotency.InFlight; inf != nil {
		base = max(base, inf.LockTimeout.D)
	}
	b.wait = min(max(2*b.wait, base), time.Hour)
	b.until = now.Add(b.wait)
	m.backoff[k] = b
	return b.wait
}

// Reap is the reaper (idempotency.recovery.reaper): it deletes keys older
// than reaper_after in batches of batch until none is left, and returns how
// many it deleted. A service runs it on a schedule.
//
// Each key it deletes while still in flight (a request that never
// finished, whose effects may be half done) is logged first with its key,
// account and last recovery point, and counted in
// alerting.ReapedUnfinished.
func (m *Middleware) Reap(ctx context.Context, batch int) (int64, error) {
	var total int64
	for {
		if err := m.logUnfinished(ctx, batch); err != nil {
			return total, err
		}
		n, err := m.store.Reap(ctx, m.now(), batch)
		total += n
		if err != nil || n < int64(batch) {
			return total, err
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
	}
}

// logUnfinished logs the in-flight keys past the reaper horizon, the
// oldest first, up to limit: the ones the next Reap deletes unfinished.
func (m *Middleware) logUnfinished(ctx context.Context, limit int) error {
	now := m.now()
	horizon := m.c.Idempotency.ReaperAfter.D
	if horizon == 0 {
		horizon = m.c.Idempotency.ReplayWindow.D
	}
	stale, err := m.store.Stale(ctx, now, limit)
	if err != nil {
		return err
	}
	for _, s := range stale {
		rec, err := m.store.Lookup(ctx, s.Key)
		if err != nil {
			return err
		}
		if rec == nil || rec.Complete() || rec.CreatedAt.After(now.Add(-horizon)) {
			continue
		}
		m.metrics.Count(alerting.ReapedUnfinished, rec.Operation, "")
		m.log.Warn("idempotency reaper: deleting a key that never finished",
			"operation", rec.Operation, "key", s.Key.Key, "account", s.Key.Account,
			"recovery_point", rec.RecoveryPoint, "created_at", rec.CreatedAt)
	}
	return nil
}
