package idempotency

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/retryspec/retryspec/idempotency/alerting"
)

// Complete is the completer (idempotency.recovery.completer): it takes over
// up to limit abandoned in-flight keys (lease older than lock_timeout) and
// runs their handler again from the stored request, resuming at the last
// recovery point, until the response is stored. The handler reads the
// caller from Step.Account, since the original request's headers are not
// stored. A service runs it on a schedule; it returns how many keys it
// finished.
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
		if h == nil || strings.Contains(h.ep.Path, "{") {
			continue // no handler registered here, or a path the stored row cannot rebuild
		}
		rec, err := m.store.Lookup(ctx, s.Key)
		if err != nil {
			return done, err
		}
		if rec == nil || rec.Complete() || rec.Fence != s.Fence {
			m.backedOff(s.Key, true, now)
			continue // finished or taken over since Stale read it
		}
		ok, err := m.store.Takeover(ctx, s.Key, rec.Fence, m.now())
		if err != nil {
			return done, err
		}
		if !ok {
			continue
		}
		m.metrics.Count(alerting.Takeovers, s.Operation, "")
		req, err := http.NewRequestWithContext(ctx, h.ep.Method, h.ep.Path, bytes.NewReader(rec.RequestBody))
		if err != nil {
			return done, fmt.Errorf("idempotency: completer: %w", err)
		}
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

// The completer's backoff: a key it took over and could not finish (the
// handler released it, or failed again) is left alone for a while, twice
// as long after each failure, from the lock timeout (at least a second)
// up to an hour, instead of being run again on every tick.
type completerBackoff struct {
	wait  time.Duration
	until time.Time
}

func (m *Middleware) backingOff(k Key, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.backoff[k]
	return ok && now.Before(b.until)
}

// backedOff records a completer run of k and returns how long the key is
// left alone: zero once it finished (or is gone), which forgets it.
func (m *Middleware) backedOff(k Key, finished bool, now time.Time) time.Duration {
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
