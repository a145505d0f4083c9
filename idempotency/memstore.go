package idempotency

import (
	"context"
	"database/sql"
	"maps"
	"sort"
	"sync"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency/keystore"
)

// memoryStore is NewMemoryStore's.
type memoryStore struct {
	mu           sync.Mutex
	rows         map[keystore.Key]*keystore.Record
	lockTimeout  time.Duration
	replayWindow time.Duration
	reaperAfter  time.Duration
}

// NewMemoryStore returns an empty store keeping keys in a map, for unit
// tests of handlers only: lost on restart and not shared between
// processes, it cannot arbitrate a claim between the instances of a real
// service. Without transactions, it refuses a phase with writes:
// Step.Commit and its kin return an error, never a nil *sql.Tx.
func NewMemoryStore(c *contract.Contract) keystore.Store {
	m := &memoryStore{rows: map[keystore.Key]*keystore.Record{}, replayWindow: c.Idempotency.ReplayWindow.D, reaperAfter: c.Idempotency.ReaperAfter.D}
	if c.Idempotency.InFlight != nil {
		m.lockTimeout = c.Idempotency.InFlight.LockTimeout.D
	}
	if m.reaperAfter == 0 {
		m.reaperAfter = m.replayWindow
	}
	return m
}

func (m *memoryStore) Claim(_ context.Context, k keystore.Key, c keystore.NewClaim, now time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.rows[k]; ok {
		return false, nil
	}
	m.rows[k] = &keystore.Record{Operation: c.Operation, Fingerprint: c.Fingerprint, RequestBody: append([]byte{}, c.RequestBody...),
		Fence: 1, LockedAt: now, RecoveryPoint: c.RecoveryPoint, RequestTarget: c.RequestTarget, DownstreamKeys: map[string]string{}, CreatedAt: now}
	return true, nil
}

func (m *memoryStore) Lookup(_ context.Context, k keystore.Key) (*keystore.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.rows[k]
	if !ok {
		return nil, nil
	}
	cp := *r
	cp.DownstreamKeys = maps.Clone(r.DownstreamKeys)
	return &cp, nil
}

// current returns the row when it is in flight under fence.
func (m *memoryStore) current(k keystore.Key, fence int64) *keystore.Record {
	r, ok := m.rows[k]
	if !ok || r.Fence != fence || r.Complete() {
		return nil
	}
	return r
}

func (m *memoryStore) Takeover(_ context.Context, k keystore.Key, fence int64, now time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.current(k, fence)
	if r == nil || r.LockedAt.After(now.Add(-m.lockTimeout)) {
		return false, nil
	}
	r.Fence++
	r.LockedAt = now
	return true, nil
}

func (m *memoryStore) Checkpoint(_ context.Context, _ *sql.Tx, k keystore.Key, fence int64, rp string, downstream map[string]string, now time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.current(k, fence)
	if r == nil {
		return false, nil
	}
	r.RecoveryPoint, r.DownstreamKeys, r.LockedAt = rp, maps.Clone(downstream), now
	return true, nil
}

func (m *memoryStore) Complete(_ context.Context, _ *sql.Tx, k keystore.Key, fence int64, resp keystore.Response, rp string, _ time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.current(k, fence)
	if r == nil {
		return false, nil
	}
	r.Status, r.Headers, r.Body, r.RecoveryPoint, r.LockedAt = resp.Status, resp.Headers, append([]byte{}, resp.Body...), rp, time.Time{}
	return true, nil
}

func (m *memoryStore) Release(_ context.Context, k keystore.Key, fence int64) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.current(k, fence)
	if r == nil {
		return false, nil
	}
	r.LockedAt = time.Time{}
	return true, nil
}

func (m *memoryStore) Expire(_ context.Context, k keystore.Key, fence int64, now time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.rows[k]
	if !ok || r.Fence != fence || !r.Complete() || r.CreatedAt.After(now.Add(-m.replayWindow)) {
		return false, nil
	}
	delete(m.rows, k)
	return true, nil
}

func (m *memoryStore) Reap(_ context.Context, now time.Time, limit int) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for k, r := range m.rows {
		if n >= int64(limit) {
			break
		}
		if !r.CreatedAt.After(now.Add(-m.reaperAfter)) {
			delete(m.rows, k)
			n++
		}
	}
	return n, nil
}

func (m *memoryStore) Stale(_ context.Context, now time.Time, limit int) ([]keystore.StaleKey, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []keystore.StaleKey
	for k, r := range m.rows {
		if !r.Complete() && !r.LockedAt.After(now.Add(-m.lockTimeout)) {
			out = append(out, keystore.StaleKey{Key: k, Operation: r.Operation, Fence: r.Fence, RecoveryPoint: r.RecoveryPoint})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return m.rows[out[i].Key].LockedAt.Before(m.rows[out[j].Key].LockedAt)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (m *memoryStore) Begin(context.Context) (*sql.Tx, error) { return nil, nil }
