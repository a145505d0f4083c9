package copylint

import (
	"slices"
	"testing"
)

// TestAnchorClassesByRole checks that newAnchorSet, which builds its
// table over one column per role of bytes, gives the same automaton as
// building it over every byte and comparing every byte's column, on the word lists of the linters and the contract checks
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
		slow := newAnchorSetByColumn(words, tags)
		if fast.class != slow.class || fast.stride != slow.stride || !slices.Equal(fast.next, slow.next) || !slices.Equal(fast.final, slow.final) {
			t.Fatalf("words %q: the classes by role differ from the classes by column (%d and %d classes)", words, fast.stride, slow.stride)
		}
	}
}

// newAnchorSetByColumn is newAnchorSet as it was before roles: the table
// over all 256 bytes, the classes from comparing every byte's column. It
// is the reference TestAnchorClassesByRole holds the built tables to.
func newAnchorSetByColumn(words []string, tags []uint64) *anchorSet {
	type node struct {
		child map[byte]int32
		fail  int32
		final uint64
		last  byte
	}
	nodes := []node{{child: map[byte]int32{}}}
	maxLen := 1
	for wi, w := range words {
		w = scanForm(w)
		if len(w) > maxLen {
			maxLen = len(w)
		}
		s := int32(0)
		for i := 0; i < len(w); i++ {
			b := lower(w[i])
			n, ok := nodes[s].child[b]
			if !ok {
				n = int32(len(nodes))
				nodes = append(nodes, node{child: map[byte]int32{}, last: b})
				nodes[s].child[b] = n
			}
			s = n
		}
		if len(w) > 0 {
			nodes[s].final |= tags[wi]
		}
	}
	if len(nodes)*256 >= finalBit {
		panic("copylint: too many anchor states")
	}
	full := make([]int32, len(nodes)*256)
	a := &anchorSet{final: make([]uint64, len(nodes)), maxLen: maxLen}
	// Breadth-first: fill each state's row from its failure state's row,
	// which is complete by then.
	queue := []int32{0}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		row := full[int(s)*256 : int(s)*256+256]
		if s != 0 {
			copy(row, full[int(nodes[s].fail)*256:int(nodes[s].fail)*256+256])
		}
		a.final[s] = nodes[s].final | a.final[nodes[s].fail]
		for b, n := range nodes[s].child {
			if s == 0 {
				nodes[n].fail = 0
			} else {
				nodes[n].fail = full[int(nodes[s].fail)*256+int(b)]
			}
			row[b] = n
			queue = append(queue, n)
		}
		// Upper-case letters move like their lower-case forms.
		for b := 'A'; b <= 'Z'; b++ {
			row[b] = row[b+'a'-'A']
		}
	}
	// The words are matched as the normalizer will read the text (see
	// scanView): every white-space byte moves like a space, and a run of
	// them like one space; a transparent byte does not move at all. Done
	// after the breadth-first fill, which must see the plain automaton.
	stay := make([]bool, len(nodes)*256)
	for s := range nodes {
		row := full[s*256 : s*256+256]
		for b := 0; b < 256; b++ {
			switch {
			case transparent(byte(b)):
				row[b], stay[s*256+b] = int32(s), true
			case isSpace(byte(b)) && s != 0 && nodes[s].last == ' ':
				row[b], stay[s*256+b] = int32(s), true
			case isSpace(byte(b)):
				row[b] = row[' ']
			}
		}
	}
	// Byte classes: bytes whose columns are equal in every state behave
	// the same; give each distinct column one class.
	cols := map[string]uint8{}
	var order [][]int32
	var orderStay [][]bool
	for b := 0; b < 256; b++ {
		col := make([]int32, len(nodes))
		colStay := make([]bool, len(nodes))
		key := make([]byte, 0, len(nodes)*5)
		for st := range nodes {
			v := full[st*256+b]
			col[st] = v
			colStay[st] = stay[st*256+b]
			key = append(key, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
			if colStay[st] {
				key = append(key, 1)
			} else {
				key = append(key, 0)
			}
		}
		c, ok := cols[string(key)]
		if !ok {
			if len(order) == 256 {
				panic("copylint: too many byte classes")
			}
			c = uint8(len(order))
			cols[string(key)] = c
			order = append(order, col)
			orderStay = append(orderStay, colStay)
		}
		a.class[b] = c
	}
	a.stride = len(order)
	a.next = make([]uint32, len(nodes)*a.stride)
	for c, col := range order {
		for st, v := range col {
			e := uint32(int(v) * a.stride)
			// Staying put reports nothing new: the word ended when the
			// state was entered.
			if a.final[v] != 0 && !orderStay[c][st] {
				e |= finalBit
			}
			a.next[st*a.stride+c] = e
		}
	}
	return a
}
