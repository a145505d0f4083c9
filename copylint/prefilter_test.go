package copylint

import (
	"strings"
	"testing"
)

// TestAnchorHitsInterleaved checks the two-scan fast path against the plain
// scan on texts whose middle falls inside, before and after anchor words.
func TestAnchorHitsInterleaved(t *testing.T) {
	words := []string{"exactly", "once", "idempotency-key", "guarantee", "retr"}
	tags := []uint64{1, 2, 4, 8, 16}
	a := newAnchorSet(words, tags)
	unit := "We GUARANTEE exactly-once retries with an Idempotency-Key, once. "
	for pad := 0; pad < 80; pad++ {
		text := []byte(strings.Repeat("x", pad) + strings.Repeat(unit, 80))
		fast := a.hits(text, nil)
		slow := a.hitsRange(text, 0, len(text), 0, nil)
		if len(fast) != len(slow) {
			t.Fatalf("pad %d: %d hits, want %d", pad, len(fast), len(slow))
		}
		for i := range fast {
			if fast[i] != slow[i] {
				t.Fatalf("pad %d: hit %d = %v, want %v", pad, i, fast[i], slow[i])
			}
		}
	}
	if a.match([]byte("nothing here")) || !a.match([]byte("xx EXACTLY")) {
		t.Error("match disagrees with the word list")
	}
}
