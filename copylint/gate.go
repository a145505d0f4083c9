package copylint

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// gatedRE is a regular expression behind a literal gate: the words one of
// which every match must contain, found from the pattern's syntax tree and
// searched in one pass (anchorSet) before the regexp engine runs. The
// clause analysis' patterns are long alternations that Go's engine tries
// at every position; on a sentence holding none of their words the gate
// answers in one table lookup per byte.
type gatedRE struct {
	re   *regexp.Regexp
	gate *anchorSet // nil: no literal is required, always run re
}

func newGatedRE(re *regexp.Regexp) *gatedRE {
	g := &gatedRE{re: re}
	if re == nil {
		return g
	}
	st, err := parseSimplified(re.String())
	if err != nil {
		return g
	}
	lits := requiredLiterals(st)
	if len(lits) == 0 || len(lits) > 400 {
		return g
	}
	tags := make([]uint64, len(lits))
	for i := range tags {
		tags[i] = 1
	}
	g.gate = newAnchorSet(lits, tags)
	return g
}

func (g *gatedRE) Match(b []byte) bool {
	if g == nil || g.re == nil {
		return false
	}
	if g.gate != nil && !g.gate.match(b) {
		return false
	}
	return g.re.Match(b)
}

func (g *gatedRE) FindAllIndex(b []byte, n int) [][]int {
	if g.gate != nil && !g.gate.match(b) {
		return nil
	}
	return g.re.FindAllIndex(b, n)
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
