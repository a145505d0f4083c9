package copylint

import (
	"math/bits"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"sync/atomic"
)

// gatedRE is a regular expression behind a literal gate: the words one of
// which every match must contain, found from the pattern's syntax tree and
// searched in one pass (anchorSet) before the regexp engine runs. The
// clause analysis' patterns are long alternations that Go's engine tries
// at every position; on a sentence holding none of their words the gate
// answers in one table lookup per byte.
//
// The gate is a conjunction: each part of a pattern that every match must
// pass through (a literal, a group of alternative words) gives one list of
// words, and a text must hold a word of every list. "(if|when) (a|the)
// request fails,? (retry|resend)" needs "fails" and one of the retry
// words, so a sentence with "fails" alone never reaches the engine.
//
// A gate is built on first use: a process that lints a page or two (build
// checks its own output) never pays for the gates of patterns it does not
// reach.
type gatedRE struct {
	re   *regexp.Regexp
	once sync.Once
	gate *anchorSet // nil: no literal is required, always run re
	// need is the tag bits a text's words must cover: one per list.
	need uint64
	// alts, when set, are the pattern's alternatives (alternativesOf),
	// each with its own tag bits in gate; need is then unused. A text
	// matches the pattern exactly when it matches one alternative, so
	// Match runs only the alternatives whose words the text holds, each
	// a small program, mostly one that only runs where its first word
	// is (gateAlt.lit), not the whole alternation tried at every byte.
	alts []*gateAlt
	// all is the union of the alternatives' bits.
	all uint64
}

// maxGateLists bounds the lists of one gate (tag bits).
const maxGateLists = 64

func newGatedRE(re *regexp.Regexp) *gatedRE { return &gatedRE{re: re} }

// built builds the gate if that has not happened yet.
func (g *gatedRE) built() *gatedRE {
	g.once.Do(g.build)
	return g
}

func (g *gatedRE) build() {
	if g.re == nil {
		return
	}
	st, err := parseSimplified(g.re.String())
	if err != nil {
		return
	}
	if g.buildSplit(st) {
		return
	}
	var words []string
	var tags []uint64
	for _, lits := range gateLists(st, maxGateLists) {
		bit := uint64(1) << bits.OnesCount64(g.need)
		g.need |= bit
		for _, l := range lits {
			words, tags = append(words, l), append(tags, bit)
		}
	}
	if g.need == 0 {
		return
	}
	g.gate = newAnchorSet(words, tags)
}

// gateLists are the lists of words whose every one a match of st must
// hold a word of: the pattern's best single list, then every part's list
// with words of three bytes or more (a list with a shorter word, " " or
// "a", passes almost every sentence and only slows the scan). At most max
// lists, and 2000 words in all.
func gateLists(st *syntax.Regexp, max int) [][]string {
	groups, best := requiredGroups(st), 0
	if l := requiredLiterals(st); l != nil {
		groups, best = append([][]string{l}, groups...), 1
	}
	var out [][]string
	words := 0
	for gi, lits := range groups {
		if len(lits) == 0 || gi >= best && minLen(lits) < 3 || len(lits) > 400 || !scannable(lits) || len(lits)+words > 2000 || len(out) == max {
			continue
		}
		out = append(out, lits)
		words += len(lits)
	}
	return out
}

// maxAlts bounds the alternatives a pattern is split into.
const maxAlts = 32

// buildSplit gates each alternative of st on its own (gatedRE.alts), when
// each has a list of words to gate on and either st has two or more or
// its one starts with a word (gateAlt.lit); it reports whether it did.
// Each alternative gets its first list's bit, then the bits left are
// shared out one list at a time.
func (g *gatedRE) buildSplit(st *syntax.Regexp) bool {
	alts := alternativesOf(st, maxAlts)
	if alts == nil {
		alts = []*syntax.Regexp{st}
	}
	compiled := make([]*gateAlt, len(alts))
	lists := make([][][]string, len(alts))
	for i, a := range alts {
		if lists[i] = gateLists(a, maxGateLists); len(lists[i]) == 0 {
			return false // an alternative with no gate: gate the whole
		}
		compiled[i] = compileAlt(a)
	}
	if len(alts) == 1 && compiled[0].lit == nil {
		return false // nothing to gain over the plain gate
	}
	var words []string
	var tags []uint64
	nbits := 0
	for round := 0; nbits < maxGateLists; round++ {
		added := false
		for i := range alts {
			if round >= len(lists[i]) || nbits == maxGateLists || len(words)+len(lists[i][round]) > 2000 {
				continue
			}
			bit := uint64(1) << nbits
			nbits++
			compiled[i].need |= bit
			for _, w := range lists[i][round] {
				words, tags = append(words, w), append(tags, bit)
			}
			added = true
		}
		if !added {
			break
		}
	}
	for i := range compiled {
		if compiled[i].need == 0 {
			return false
		}
		g.all |= compiled[i].need
	}
	g.alts = compiled
	g.gate = newAnchorSet(words, tags)
	return true
}

// alternativesOf returns patterns whose union matches what st matches
// (nil when st offers no split, or more than max): an alternation's
// alternatives, or a concatenation with an alternation as a part (the
// first such part, a capture around it ignored) distributed over it:
// x(a|b)y is xay|xby. The results are not split again: each split
// copies the rest of the pattern, and splitting every level took a run's
// heap from 33 to 120 MB for no measurable gain over one level.
func alternativesOf(st *syntax.Regexp, max int) []*syntax.Regexp {
	var subs []*syntax.Regexp
	switch st.Op {
	case syntax.OpAlternate:
		subs = st.Sub
	case syntax.OpConcat:
		for i, part := range st.Sub {
			for part.Op == syntax.OpCapture {
				part = part.Sub[0]
			}
			if part.Op != syntax.OpAlternate {
				continue
			}
			for _, a := range part.Sub {
				c := &syntax.Regexp{Op: syntax.OpConcat, Flags: st.Flags}
				c.Sub = append(append(append(c.Sub, st.Sub[:i]...), a), st.Sub[i+1:]...)
				subs = append(subs, c)
			}
			break
		}
	}
	if len(subs) < 2 || len(subs) > max {
		return nil
	}
	return subs
}

// scannable reports whether the scan can see every word: one made only
// of bytes it skips ("_") cannot be searched for.
func scannable(words []string) bool {
	for _, w := range words {
		if scanForm(w) == "" {
			return false
		}
	}
	return true
}

// pass reports whether b holds a word of every list of the gate.
func (g *gatedRE) pass(b []byte) bool {
	g.once.Do(g.build)
	if g.gate == nil || gatesOff.Load() > 0 {
		return true
	}
	if g.alts == nil {
		return g.gate.covers(b, g.need)
	}
	got := g.gate.tagsOf(b, g.all)
	for _, a := range g.alts {
		if got&a.need == a.need {
			return true
		}
	}
	return false
}

// gatesOff counts the LintSourceUnfiltered runs under way: every gate is
// skipped while one runs (tests only; a gate never changes an answer, so
// a run beside it is still right).
var gatesOff atomic.Int32

func (g *gatedRE) Match(b []byte) bool {
	if g == nil || g.re == nil {
		return false
	}
	g.once.Do(g.build)
	if g.alts == nil || gatesOff.Load() > 0 {
		if !g.pass(b) {
			return false
		}
		return g.re.Match(b)
	}
	// The pattern matches exactly when an alternative does, and an
	// alternative can only where the text holds a word of each of its
	// lists.
	got := g.gate.tagsOf(b, g.all)
	for _, a := range g.alts {
		if got&a.need != a.need {
			continue
		}
		m, ok := a.match(b)
		if !ok {
			return g.re.Match(b) // an alternative did not compile
		}
		if m {
			return true
		}
	}
	return false
}

func (g *gatedRE) FindAllIndex(b []byte, n int) [][]int {
	if !g.pass(b) {
		return nil
	}
	return g.re.FindAllIndex(b, n)
}

// requiredGroups returns lists of strings such that every match of re
// contains a string of each list: the required literals of each part of
// a top-level concatenation (adjacent literals joined), or of re as a
// whole.
func requiredGroups(re *syntax.Regexp) [][]string {
	for re.Op == syntax.OpCapture || re.Op == syntax.OpPlus || re.Op == syntax.OpRepeat && re.Min >= 1 {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		if l := requiredLiterals(re); l != nil {
			return [][]string{l}
		}
		return nil
	}
	var out [][]string
	run := ""
	flush := func() {
		if run != "" {
			out = append(out, []string{run})
		}
		run = ""
	}
	for _, sub := range re.Sub {
		if sub.Op == syntax.OpLiteral {
			run += strings.ToLower(string(sub.Rune))
			continue
		}
		flush()
		out = append(out, requiredGroups(sub)...)
	}
	flush()
	return out
}

// requiredLiterals returns strings one of which every match of re
// contains (lower-cased; matching is on lower-cased text and the gate is
// case-insensitive), or nil when no such set is known.
func requiredLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
		return nil
	case syntax.OpConcat:
		// Adjacent literals join ("in order to"); otherwise the child
		// whose shortest literal is longest is the best gate.
		var best []string
		bestLen := 0
		run := ""
		flush := func() {
			if len(run) > bestLen {
				best, bestLen = []string{run}, len(run)
			}
			run = ""
		}
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				run += strings.ToLower(string(sub.Rune))
				continue
			}
			flush()
			if l := requiredLiterals(sub); l != nil {
				if m := minLen(l); m > bestLen {
					best, bestLen = l, m
				}
			}
		}
		flush()
		return best
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			l := requiredLiterals(sub)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return out
	}
	return nil
}

func minLen(l []string) int {
	m := -1
	for _, s := range l {
		if m < 0 || len(s) < m {
			m = len(s)
		}
	}
	return m
}

func parseSimplified(p string) (*syntax.Regexp, error) {
	st, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, err
	}
	return st.Simplify(), nil
}
