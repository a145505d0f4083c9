package idempotency

import (
	"container/list"
	"sync"
	"time"
)

// replayCache holds completed keys' records for Options.ReplayCache, least
// recently used first out. A nil *replayCache caches nothing.
type replayCache struct {
	mu       sync.Mutex
	max      int
	maxBytes int64 // bound on the responses' bytes held
	bytes    int64
	fresh    time.Duration // an entry is used while it is younger than this
	order    *list.List    // of *cacheEntry, most recently used at the front
	items    map[Key]*list.Element
}

type cacheEntry struct {
	k    Key
	rec  *Record
	size int64
}

func newReplayCache(max int, maxBytes int64, fresh time.Duration) *replayCache {
	return &replayCache{max: max, maxBytes: maxBytes, fresh: fresh, order: list.New(), items: map[Key]*list.Element{}}
}

// entrySize approximates what an entry holds: its key, the response's
// body and headers, and a fixed overhead for the structures around them.
func entrySize(k Key, rec *Record) int64 {
	n := 256 + len(k.Account) + len(k.Key) + len(rec.Operation) + len(rec.Fingerprint) + len(rec.RecoveryPoint) + len(rec.Body)
	for h, vs := range rec.Headers {
		n += len(h) + 16
		for _, v := range vs {
			n += len(v) + 16
		}
	}
	return int64(n)
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
		c.remove(e)
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
	size := entrySize(k, kept)
	if size > c.maxBytes/8 {
		return // a large response: read from the store, not crowding out many small ones
	}
	c.items[k] = c.order.PushFront(&cacheEntry{k: k, rec: kept, size: size})
	c.bytes += size
	for c.order.Len() > c.max || c.bytes > c.maxBytes {
		c.remove(c.order.Back())
	}
}

func (c *replayCache) remove(e *list.Element) {
	ent := e.Value.(*cacheEntry)
	c.order.Remove(e)
	delete(c.items, ent.k)
	c.bytes -= ent.size
}
