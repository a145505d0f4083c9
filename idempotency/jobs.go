package idempotency

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"

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
	for _, s := range stale {
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
		h.run(w, req, s.Key, rec.Fence+1, rec.RecoveryPoint, rec.DownstreamKeys, rec.RequestBody)
		if w.status != 0 && w.status != h.m.c.Idempotency.Conflicts.InFlight.Status {
			done++
		}
	}
	return done, nil
}

// Reap is the reaper (idempotency.recovery.reaper): it deletes keys older
// than reaper_after in batches of batch until none is left, and returns how
// many it deleted. A service runs it on a schedule.
func (m *Middleware) Reap(ctx context.Context, batch int) (int64, error) {
	var total int64
	for {
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
