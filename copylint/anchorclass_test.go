package copylint

import (
	"slices"
	"testing"
)

// TestAnchorClassesByRole checks that newAnchorSet's byte classes, taken
// from one byte per role, give the same automaton as comparing the column
// of every byte, on the word lists of the linters and the contract checks
// and on words with upper case, white space, skipped and non-ASCII bytes.
func TestAnchorClassesByRole(t *testing.T) {
	lists := [][]string{
		{"exactly", "Only  Once", "idempotency-key", "100%", "naïve", "a\tb", "x*y", "_z_", "\x00w", "é", "A", "zz"},
		{"0", "1", "9", "one ", "a day"},
		{"key"},
	}
	for _, c := range []bool{false, true} {
		var ct *contractChecks
		if c {
			ct = newContractChecks(prefilterContract(t))
		}
		for _, r := range compiledFor("idempotency-key") {
			var words []string
			for _, f := range r.forms {
				words = append(words, f.anchors...)
			}
			words = append(words, r.requires...)
			lists = append(lists, words)
		}
		if ct != nil {
			for _, g := range ct.anchors() {
				lists = append(lists, g.words)
			}
		}
	}
	var all []string
	for _, l := range lists {
		all = append(all, l...)
	}
	lists = append(lists, all)
	for _, words := range lists {
		tags := make([]uint64, len(words))
		for i := range tags {
			tags[i] = 1 << (i % 64)
		}
		fast := newAnchorSet(words, tags)
		anchorClassesByColumn = true
		slow := newAnchorSet(words, tags)
		anchorClassesByColumn = false
		if fast.class != slow.class || fast.stride != slow.stride || !slices.Equal(fast.next, slow.next) || !slices.Equal(fast.final, slow.final) {
			t.Fatalf("words %q: the classes by role differ from the classes by column (%d and %d classes)", words, fast.stride, slow.stride)
		}
	}
}
