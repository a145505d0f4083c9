package idempotency

import (
	"container/list"
	"sync"
	"time"
)

// replayCache holds completed keys' records for Options.ReplayCache, least
// recently used first out. A nil *replayCache caches nothing.
type replayCache struct {
	mu    sync.Mutex
	max   int
	fresh time.Duration // an entry is used while it is younger than this
	order *list.List    // of *cacheEntry, most recently used at the front
	items map[Key]*list.Element
}

type cacheEntry struct {
	k   Key
	rec *Record
}

func newReplayCache(max int, fresh time.Duration) *replayCache {
	return &replayCache{max: max, fresh: fresh, order: list.New(), items: map[Key]*list.Element{}}
}

// get returns k's completed record while it is fresh at now, else nil.
func (c *replayCache) get(k Key, now time.Time) *Record {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		return nil
	}
	rec := e.Value.(*cacheEntry).rec
	if !rec.CreatedAt.After(now.Add(-c.fresh)) {
		c.order.Remove(e)
		delete(c.items, k)
		return nil
	}
	c.order.MoveToFront(e)
	return rec
}

// put keeps a completed record, without its request body.
func (c *replayCache) put(k Key, rec *Record) {
	if c == nil || !rec.Complete() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.order.MoveToFront(e)
		return
	}
	kept := &Record{Operation: rec.Operation, Fingerprint: rec.Fingerprint, Fence: rec.Fence, RecoveryPoint: rec.RecoveryPoint,
		Status: rec.Status, Headers: rec.Headers, Body: rec.Body, CreatedAt: rec.CreatedAt}
	c.items[k] = c.order.PushFront(&cacheEntry{k: k, rec: kept})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).k)
	}
}
