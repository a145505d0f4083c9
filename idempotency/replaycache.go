package idempotency

import (
	"container/list"
	"sync"
	"time"

	"github.com/retryspec/retryspec/idempotency/keystore"
)

// replayCache holds completed keys' records for Options.ReplayCache, least
// recently used first out. A nil *replayCache caches nothing.
//
// It is sound with any number of instances sharing the store because a
// stored response never changes while its key is inside the replay window:
// every write after completion is refused by the store's fenced statements
// (they match only rows still in flight), and a key is expired
// (after_window) or reaped only after the window. So an instance holding an
// entry answers what the store would, whichever instance completed the key.
// An entry is used only until a minute (or a tenth of the window, if
// shorter) before the window ends (fresh), a margin for clocks that differ
// between instances; from then on the store decides. The fingerprint check
// and the contract's mismatch answer apply to cached entries as to stored
// ones. Entries hold the response, not the request body.
type replayCache struct {
	mu       sync.Mutex
	max      int
	maxBytes int64 // bound on the responses' bytes held
	bytes    int64
	fresh    time.Duration // an entry is used while it is younger than this
	order    *list.List    // of *cacheEntry, most recently used at the front
	items    map[keystore.Key]*list.Element
}

type cacheEntry struct {
	k    keystore.Key
	rec  *keystore.Record
	size int64
}

func newReplayCache(max int, maxBytes int64, fresh time.Duration) *replayCache {
	return &replayCache{max: max, maxBytes: maxBytes, fresh: fresh, order: list.New(), items: map[keystore.Key]*list.Element{}}
}

// entrySize approximates what an entry holds: its key, the response's
// body and headers, and a fixed overhead for the structures around them.
func entrySize(k keystore.Key, rec *keystore.Record) int64 {
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
func (c *replayCache) get(k keystore.Key, now time.Time) *keystore.Record {
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
func (c *replayCache) put(k keystore.Key, rec *keystore.Record) {
	if c == nil || !rec.Complete() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.order.MoveToFront(e)
		return
	}
	kept := &keystore.Record{Operation: rec.Operation, Fingerprint: rec.Fingerprint, Fence: rec.Fence, RecoveryPoint: rec.RecoveryPoint,
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
