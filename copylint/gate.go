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
	var words []string
	var tags []uint64
	// The pattern's best single list, then every part's list with words
	// of three bytes or more: a list with a shorter word (" ", "a")
	// passes almost every sentence and only slows the scan.
	groups, best := requiredGroups(st), 0
	if l := requiredLiterals(st); l != nil {
		groups, best = append([][]string{l}, groups...), 1
	}
	for gi, lits := range groups {
		if len(lits) == 0 || gi >= best && minLen(lits) < 3 || len(lits) > 400 || !scannable(lits) || len(lits)+len(words) > 2000 || bits.OnesCount64(g.need) == maxGateLists {
			continue
		}
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
	return g.gate == nil || gatesOff.Load() > 0 || g.gate.covers(b, g.need)
}

// gatesOff counts the LintSourceUnfiltered runs under way: every gate is
// skipped while one runs (tests only; a gate never changes an answer, so
// a run beside it is still right).
var gatesOff atomic.Int32

func (g *gatedRE) Match(b []byte) bool {
	if g == nil || g.re == nil {
		return false
	}
	if !g.pass(b) {
		return false
	}
	return g.re.Match(b)
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
