package copylint

import (
	"strings"
	"testing"
)

// TestAnchorHitsInterleaved checks the two-scan fast path against the plain
// scan on texts whose middle falls inside, before and after anchor words.
func TestAnchorHitsInterleaved(t *testing.T) {
	words := []string{"exactly", "once", "idempotency-key", "guarantee", "retr", "only once", "never be charged twice"}
	tags := []uint64{1, 2, 4, 8, 16, 32, 64}
	a := newAnchorSet(words, tags)
	// The multi-word anchors across runs of white space and skipped bytes
	// (longer than any word) must be found whichever scan reads them.
	unit := "We GUARANTEE exactly-once retries with an Idempotency-Key, once. Only  \n **once**, never\n\n   be `charged`" +
		strings.Repeat(" ", 40) + "_twice_. "
	for pad := 0; pad < 120; pad++ {
		text := []byte(strings.Repeat("x", pad) + strings.Repeat(unit, 40))
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
	// Every length, short texts included, on both sides of the cut-over.
	long := []byte(strings.Repeat(unit, 20))
	for n := 0; n < 3000; n += 7 {
		fast, slow := a.hits(long[:n], nil), a.hitsRange(long, 0, n, 0, nil)
		if len(fast) != len(slow) {
			t.Fatalf("length %d: %d hits, want %d", n, len(fast), len(slow))
		}
		for i := range fast {
			if fast[i] != slow[i] {
				t.Fatalf("length %d: hit %d = %v, want %v", n, i, fast[i], slow[i])
			}
		}
	}
	if n := len(a.hitsRange([]byte(unit), 0, len(unit), 0, nil)); n != 8 {
		t.Errorf("%d hits in one unit, want 8", n)
	}
	if a.match([]byte("nothing here")) || !a.match([]byte("xx EXACTLY")) {
		t.Error("match disagrees with the word list")
	}
}
