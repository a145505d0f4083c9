package copylint

import "sync"

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
	// class maps a byte to its class: the bytes no word contains share
	// one class, so the table stays small enough for the CPU cache.
	class [256]uint8
	// stride is the number of classes. States are premultiplied: state s
	// lives at s*stride, and next[s*stride+class] is the next state's
	// offset, with finalBit set when a word ends there.
	stride int
	next   []uint32
	// final[s] is the union of the tags of the words that end in state s
	// (or in a suffix of it): which rules a hit concerns.
	final []uint64
	// maxLen is the longest word, for splitting a text between two scans.
	maxLen int
}

// newAnchorSet compiles words; tags[i] is word i's tag (a rule bit set).
func newAnchorSet(words []string, tags []uint64) *anchorSet {
	// Build the trie over lower-cased words.
	type node struct {
		child map[byte]int32
		fail  int32
		final uint64
		last  byte // the byte that leads here from the parent
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
	a := &anchorSet{final: make([]uint64, len(nodes)), maxLen: maxLen}
	// Roles: bytes that move the automaton alike in every state, by
	// construction: a letter and its upper case, every white-space byte
	// (a run of them is one space), every skipped byte, every byte no
	// word holds. The table is built over one column per role, in the
	// order of each role's first byte, not over all 256 bytes: that was
	// most of the cost of a gate (gate.go), and a run builds about a
	// hundred. The result is the same (TestAnchorClassesByRole).
	var inWord [256]bool
	for _, n := range nodes {
		for b := range n.child {
			inWord[b] = true
		}
	}
	var roleOf [256]int
	var reps []byte // each role's first byte
	var roleIndex [259]int
	for i := range roleIndex {
		roleIndex[i] = -1
	}
	for b := 0; b < 256; b++ {
		k := 258 // a byte no word holds
		switch {
		case transparent(byte(b)):
			k = 256
		case isSpace(byte(b)):
			k = 257
		case inWord[lower(byte(b))]:
			k = int(lower(byte(b)))
		}
		if roleIndex[k] < 0 {
			roleIndex[k] = len(reps)
			reps = append(reps, byte(b))
		}
		roleOf[b] = roleIndex[k]
	}
	nr := len(reps)
	full := make([]int32, len(nodes)*nr)
	// Breadth-first: fill each state's row from its failure state's row,
	// which is complete by then. A word's space byte moves by the
	// white-space role's column.
	queue := []int32{0}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		row := full[int(s)*nr : int(s)*nr+nr]
		if s != 0 {
			copy(row, full[int(nodes[s].fail)*nr:int(nodes[s].fail)*nr+nr])
		}
		a.final[s] = nodes[s].final | a.final[nodes[s].fail]
		for b, n := range nodes[s].child {
			if s == 0 {
				nodes[n].fail = 0
			} else {
				nodes[n].fail = full[int(nodes[s].fail)*nr+roleOf[b]]
			}
			row[roleOf[b]] = n
			queue = append(queue, n)
		}
	}
	// The words are matched as the normalizer will read the text (see
	// scanView): a run of white space moves like one space, and a
	// transparent byte does not move at all. Done after the breadth-first
	// fill, which must see the plain automaton.
	stay := make([]bool, len(nodes)*nr)
	for s := range nodes {
		for r, b := range reps {
			switch {
			case transparent(b):
				full[s*nr+r], stay[s*nr+r] = int32(s), true
			case isSpace(b) && s != 0 && nodes[s].last == ' ':
				full[s*nr+r], stay[s*nr+r] = int32(s), true
			}
		}
	}
	// Byte classes: roles whose columns are equal in every state behave
	// the same; give each distinct column one class.
	cols := map[string]uint8{}
	var order []int // each class's role
	classOf := make([]uint8, nr)
	key := make([]byte, 0, len(nodes)*5)
	for r := range reps {
		key = key[:0]
		for st := range nodes {
			v := full[st*nr+r]
			key = append(key, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
			if stay[st*nr+r] {
				key = append(key, 1)
			} else {
				key = append(key, 0)
			}
		}
		c, ok := cols[string(key)]
		if !ok {
			c = uint8(len(order))
			cols[string(key)] = c
			order = append(order, r)
		}
		classOf[r] = c
	}
	for b := 0; b < 256; b++ {
		a.class[b] = classOf[roleOf[b]]
	}
	a.stride = len(order)
	a.next = make([]uint32, len(nodes)*a.stride)
	for c, r := range order {
		for st := range nodes {
			v := full[st*nr+r]
			e := uint32(int(v) * a.stride)
			// Staying put reports nothing new: the word ended when the
			// state was entered.
			if a.final[v] != 0 && !stay[st*nr+r] {
				e |= finalBit
			}
			a.next[st*a.stride+c] = e
		}
	}
	return a
}

const finalBit = 1 << 31

// transparent bytes are skipped by the scan: the mask's gone bytes, which
// the normalizer drops, and the Markdown emphasis and code marks, which the
// raw mask drops ("only **once**" holds "only once"). No anchor word
// holds one, so skipping them can add a hit, never lose one.
func transparent(b byte) bool { return b == gone || b == '*' || b == '`' || b == '_' }

// scanForm is word as the scan sees it: transparent bytes dropped, white
// space runs one space.
func scanForm(w string) string {
	out := make([]byte, 0, len(w))
	for i := 0; i < len(w); i++ {
		switch b := w[i]; {
		case transparent(b):
		case isSpace(b):
			if len(out) == 0 || out[len(out)-1] != ' ' {
				out = append(out, ' ')
			}
		default:
			out = append(out, b)
		}
	}
	return string(out)
}

// isSpace is the white space the normalizer turns into one space.
func isSpace(b byte) bool {
	return b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\f' || b == '\v'
}

func lower(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// match reports whether text holds any of the words.
func (a *anchorSet) match(text []byte) bool {
	next, class := a.next, &a.class
	var s uint32
	for _, b := range text {
		s = next[s+uint32(class[b])]
		if s&finalBit != 0 {
			return true
		}
	}
	return false
}

// covers reports whether the tags of the words in text cover need.
func (a *anchorSet) covers(text []byte, need uint64) bool {
	return a.tagsOf(text, need)&need == need
}

// tagsOf is the union of the tags of the words in text; it stops once
// the union holds every tag of stop.
func (a *anchorSet) tagsOf(text []byte, stop uint64) uint64 {
	next, class, final, stride := a.next, &a.class, a.final, uint32(a.stride)
	var s uint32
	var got uint64
	for _, b := range text {
		s = next[s+uint32(class[b])]
		if s&finalBit != 0 {
			s &^= finalBit
			if got |= final[s/stride]; got&stop == stop {
				break
			}
		}
	}
	return got
}

// hit is where a word (or several) ends in a text, and their tags.
type anchorHit struct {
	end  int
	tags uint64
}

// hits appends every position of text where words end, with their tags,
// in order.
//
// The scan is bound by the latency of one table load per byte, each
// depending on the last. Four scans interleaved in one loop (each a
// quarter of the text) keep four loads in flight. A scan after the first
// starts early enough to know the state at its quarter's start (contextAt)
// and keeps only words ending in its quarter, so each word is reported
// once.
func (a *anchorSet) hits(text []byte, out []anchorHit) []anchorHit {
	tb := tailPool.Get().(*[4][]anchorHit)
	defer tailPool.Put(tb)
	return a.hitsWith(text, out, tb)
}

// hitsWith is hits with the other scans' buffers in tb: a worker keeps its
// own (scratch.tails), which a garbage collection does not empty as it
// empties a pool.
func (a *anchorSet) hitsWith(text []byte, out []anchorHit, tb *[4][]anchorHit) []anchorHit {
	const k = 4
	if len(text) < 4*a.maxLen+256 {
		return a.hitsRange(text, 0, len(text), 0, out)
	}
	next, class, final, stride := a.next, &a.class, a.final, uint32(a.stride)
	var from, keep, end [k]int
	for j := 0; j < k; j++ {
		keep[j] = j * len(text) / k
		end[j] = (j + 1) * len(text) / k
		from[j] = a.contextAt(text, keep[j])
	}
	n := end[0] - from[0]
	for j := 1; j < k; j++ {
		n = min(n, end[j]-from[j])
	}
	// The other scans' hits wait in tb's buffers until the first scan's
	// are out: allocated afresh, they grew on every file, a sixth of the
	// scan's time.
	tails := *tb
	tails[0] = out
	for j := 1; j < k; j++ {
		tails[j] = tails[j][:0]
	}
	var st [k]uint32 // every scan starts at the root
	t0, t1, t2, t3 := text[from[0]:end[0]], text[from[1]:end[1]], text[from[2]:end[2]], text[from[3]:end[3]]
	t0, t1, t2, t3 = t0[:n], t1[:n], t2[:n], t3[:n]
	s0, s1, s2, s3 := st[0], st[1], st[2], st[3]
	for i := 0; i < n; i++ {
		s0 = next[s0+uint32(class[t0[i]])]
		s1 = next[s1+uint32(class[t1[i]])]
		s2 = next[s2+uint32(class[t2[i]])]
		s3 = next[s3+uint32(class[t3[i]])]
		if (s0|s1|s2|s3)&finalBit != 0 {
			if s0&finalBit != 0 {
				s0 &^= finalBit
				tails[0] = append(tails[0], anchorHit{from[0] + i, final[s0/stride]})
			}
			if s1&finalBit != 0 {
				s1 &^= finalBit
				if p := from[1] + i; p >= keep[1] {
					tails[1] = append(tails[1], anchorHit{p, final[s1/stride]})
				}
			}
			if s2&finalBit != 0 {
				s2 &^= finalBit
				if p := from[2] + i; p >= keep[2] {
					tails[2] = append(tails[2], anchorHit{p, final[s2/stride]})
				}
			}
			if s3&finalBit != 0 {
				s3 &^= finalBit
				if p := from[3] + i; p >= keep[3] {
					tails[3] = append(tails[3], anchorHit{p, final[s3/stride]})
				}
			}
		}
	}
	st[0], st[1], st[2], st[3] = s0, s1, s2, s3
	out = tails[0]
	for j := 0; j < k; j++ {
		s := st[j]
		for i := from[j] + n; i < end[j]; i++ {
			s = next[s+uint32(class[text[i]])]
			if s&finalBit != 0 {
				s &^= finalBit
				if i >= keep[j] {
					if j == 0 {
						out = append(out, anchorHit{i, final[s/stride]})
					} else {
						tails[j] = append(tails[j], anchorHit{i, final[s/stride]})
					}
				}
			}
		}
		if j > 0 {
			out = append(out, tails[j]...)
		}
	}
	tails[0] = nil // out belongs to the caller
	*tb = tails
	return out
}

// tailPool holds hits' buffers for the hits of its second to fourth scans.
var tailPool = sync.Pool{New: func() any { return new([4][]anchorHit) }}

// contextAt is where a scan must start to be in the right state at text[at]:
// far enough back to hold maxLen+1 characters as the automaton reads them
// (a run of white space one character, skipped bytes none), so a word
// that ends at or after at is seen whole.
func (a *anchorSet) contextAt(text []byte, at int) int {
	i, count, space := at, 0, false
	for i > 0 && count <= a.maxLen {
		i--
		switch b := text[i]; {
		case transparent(b):
		case isSpace(b):
			if !space {
				count++
			}
			space = true
		default:
			count++
			space = false
		}
	}
	return i
}

// hitsRange scans text[start:end] from the root state; positions are
// offset by base.
func (a *anchorSet) hitsRange(text []byte, start, end, base int, out []anchorHit) []anchorHit {
	next, class, final, stride := a.next, &a.class, a.final, uint32(a.stride)
	var s uint32
	for i := start; i < end; i++ {
		s = next[s+uint32(class[text[i]])]
		if s&finalBit != 0 {
			s &^= finalBit
			out = append(out, anchorHit{base + i, final[s/stride]})
		}
	}
	return out
}

// tagsIn ORs the tags of the hits ending inside [start, end); hits are in
// order, and *from is where the previous call stopped.
func tagsIn(hits []anchorHit, start, end int, from *int) uint64 {
	var t uint64
	i := *from
	for i < len(hits) && hits[i].end < start {
		i++
	}
	for i < len(hits) && hits[i].end < end {
		t |= hits[i].tags
		i++
	}
	*from = i
	return t
}
