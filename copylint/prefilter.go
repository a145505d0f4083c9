package copylint

// anchorSet finds any of a set of words in text, ASCII case-insensitively,
// in one pass: an Aho-Corasick automaton compiled to a full transition
// table, one table lookup per byte. It is the fast path of every run: a
// block (or file) without an anchor word cannot hold a finding, and most
// prose has none.
//
// It is hand-written rather than a dependency because the library tried
// (coregx/ahocorasick v0.3.1) re-scans the whole remaining input once per
// distinct first byte each time the automaton returns to its start state,
// which is quadratic on prose where anchors start with common letters.
type anchorSet struct {
	// next[s*256+b] is the state after reading byte b in state s.
	next []int32
	// final[s] is the union of the tags of the words that end in state s
	// (or in a suffix of it): which rules a hit concerns.
	final []uint64
}

// newAnchorSet compiles words; tags[i] is word i's tag (a rule bit set).
func newAnchorSet(words []string, tags []uint64) *anchorSet {
	// Build the trie over lower-cased words.
	type node struct {
		child map[byte]int32
		fail  int32
		final uint64
	}
	nodes := []node{{child: map[byte]int32{}}}
	for wi, w := range words {
		s := int32(0)
		for i := 0; i < len(w); i++ {
			b := lower(w[i])
			n, ok := nodes[s].child[b]
			if !ok {
				n = int32(len(nodes))
				nodes = append(nodes, node{child: map[byte]int32{}})
				nodes[s].child[b] = n
			}
			s = n
		}
		if len(w) > 0 {
			nodes[s].final |= tags[wi]
		}
	}
	a := &anchorSet{next: make([]int32, len(nodes)*256), final: make([]uint64, len(nodes))}
	// Breadth-first: fill each state's row from its failure state's row,
	// which is complete by then.
	queue := []int32{0}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		row := a.next[int(s)*256 : int(s)*256+256]
		if s != 0 {
			copy(row, a.next[int(nodes[s].fail)*256:int(nodes[s].fail)*256+256])
		}
		a.final[s] = nodes[s].final | a.final[nodes[s].fail]
		for b, n := range nodes[s].child {
			if s == 0 {
				nodes[n].fail = 0
			} else {
				nodes[n].fail = a.next[int(nodes[s].fail)*256+int(b)]
			}
			row[b] = n
			queue = append(queue, n)
		}
		// Upper-case letters move like their lower-case forms.
		for b := 'A'; b <= 'Z'; b++ {
			row[b] = row[b+'a'-'A']
		}
	}
	return a
}

func lower(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// match reports whether text holds any of the words.
func (a *anchorSet) match(text []byte) bool {
	next, final := a.next, a.final
	s := int32(0)
	for _, b := range text {
		s = next[int(s)<<8|int(b)]
		if final[s] != 0 {
			return true
		}
	}
	return false
}

// tags returns the union of the tags of the words in text.
func (a *anchorSet) tags(text []byte) uint64 {
	next, final := a.next, a.final
	s := int32(0)
	var t uint64
	for _, b := range text {
		s = next[int(s)<<8|int(b)]
		t |= final[s]
	}
	return t
}
