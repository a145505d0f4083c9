package verify

import (
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Placeholders a plan's body, path values and headers may use, filled per
// idempotency key: {key} is the key under test, {uuid} a fresh UUID and
// {counter} a number that grows with each key. Every request with one key
// carries the same values, so a retry or a replay sends the same bytes,
// while two keys never share a body (some servers refuse a body they have
// seen under another key).
var placeholderNames = []string{"key", "uuid", "counter"}

// fills holds the values drawn for each key of a run.
type fills struct {
	mu      sync.Mutex
	byKey   map[string]*strings.Replacer
	counter int
	// sent is each key's first-sent time (idempotency.first_sent).
	sent map[string]time.Time
}

// replacer returns the placeholder values for key ("" draws a set of its
// own, for a request sent without a key).
func (f *fills) replacer(key string) *strings.Replacer {
	f.mu.Lock()
	defer f.mu.Unlock()
	if rep, ok := f.byKey[key]; ok && key != "" {
		return rep
	}
	if f.byKey == nil {
		f.byKey = map[string]*strings.Replacer{}
	}
	f.counter++
	keyValue := key
	if keyValue == "" {
		keyValue = newKey(32)
	}
	rep := strings.NewReplacer("{key}", keyValue, "{uuid}", newUUID(), "{counter}", strconv.Itoa(f.counter))
	if key != "" {
		f.byKey[key] = rep
	}
	return rep
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// hasPlaceholder reports whether s uses any placeholder.
func hasPlaceholder(s string) bool {
	for _, n := range placeholderNames {
		if strings.Contains(s, "{"+n+"}") {
			return true
		}
	}
	return false
}
