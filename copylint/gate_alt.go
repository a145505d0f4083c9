package copylint

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"sync"
)

// gateAlt is one alternative of a gated pattern and the tag bits a text
// must cover for it to match.
type gateAlt struct {
	need uint64
	// lit, when set, is a literal that every match of the alternative
	// begins with, at a word boundary: the alternative is \b lit rest.
	// re is then \A lit rest, run only on the text from each place lit
	// begins at a word boundary. Go's matcher tries the bare alternative
	// at every byte, the \b defeating its search for a literal prefix;
	// bytes.Index finds lit's few places far faster.
	lit []byte
	// src is re's pattern, compiled on first use: most alternatives of a
	// run never pass their gate, and compiling them all was a third of
	// the start of a run (a CLI run pays it on every call).
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// compileAlt prepares the alternative a (see gateAlt).
func compileAlt(a *syntax.Regexp) *gateAlt {
	src := reSource(a)
	var lit []byte
	if l, rest, found := wordPrefix(a); found {
		lit = []byte(string(l))
		src = `\A` + reSource(rest)
	}
	return &gateAlt{lit: lit, src: src}
}

// compiled is the alternative's regexp, compiled on first use; nil if
// src does not compile (it always should, written by reSource), and the
// caller then asks the whole pattern.
func (a *gateAlt) compiled() *regexp.Regexp {
	a.once.Do(func() { a.re, _ = regexp.Compile(a.src) })
	return a.re
}

// match reports whether b holds a match of the alternative; ok is false
// when its regexp could not be compiled.
//
// With lit: a match beginning at p in b is one of \A lit rest in b[p:]
// once \b holds at p, checked here against b[p-1] as the matcher would.
// Every other assertion of rest comes after lit, at least one byte into
// b[p:], where it sees the same bytes around it as in b (\A is false
// there as in b; \z and $ see the same end). A match can only begin
// where lit does, and lit, valid UTF-8, only ever begins where the
// matcher would try a match (its first byte is no continuation byte).
func (a *gateAlt) match(b []byte) (matched, ok bool) {
	re := a.compiled()
	if re == nil {
		return false, false
	}
	if a.lit == nil {
		return re.Match(b), true
	}
	for i := 0; i < len(b); {
		j := bytes.Index(b[i:], a.lit)
		if j < 0 {
			return false, true
		}
		p := i + j
		if wordBoundaryAt(b, p) && re.Match(b[p:]) {
			return true, true
		}
		i = p + 1
	}
	return false, true
}

// wordBoundaryAt is \b at b[p], p < len(b): Go's word characters are
// ASCII, and any byte of a multi-byte character is not one, as the
// character is not.
func wordBoundaryAt(b []byte, p int) bool {
	before := p > 0 && syntax.IsWordChar(rune(b[p-1]))
	return before != syntax.IsWordChar(rune(b[p]))
}

// wordPrefix splits st = \b lit rest, lit a non-empty case-sensitive
// literal; found is false for any other shape.
func wordPrefix(st *syntax.Regexp) (lit []rune, rest *syntax.Regexp, found bool) {
	if st.Op != syntax.OpConcat || len(st.Sub) < 2 || st.Sub[0].Op != syntax.OpWordBoundary {
		return nil, nil, false
	}
	lit, first, found := literalPrefix(st.Sub[1])
	if !found {
		return nil, nil, false
	}
	rest = &syntax.Regexp{Op: syntax.OpConcat, Flags: st.Flags}
	rest.Sub = append(append(rest.Sub, &syntax.Regexp{Op: syntax.OpLiteral, Rune: lit}, first), st.Sub[2:]...)
	return lit, rest, true
}

// literalPrefix splits st into a leading case-sensitive literal and what
// follows it (an empty match when nothing does).
func literalPrefix(st *syntax.Regexp) (lit []rune, rest *syntax.Regexp, found bool) {
	switch st.Op {
	case syntax.OpLiteral:
		if st.Flags&syntax.FoldCase != 0 || len(st.Rune) == 0 {
			return nil, nil, false
		}
		return st.Rune, &syntax.Regexp{Op: syntax.OpEmptyMatch}, true
	case syntax.OpCapture:
		return literalPrefix(st.Sub[0])
	case syntax.OpConcat:
		if len(st.Sub) == 0 {
			return nil, nil, false
		}
		lit, first, found := literalPrefix(st.Sub[0])
		if !found {
			return nil, nil, false
		}
		rest = &syntax.Regexp{Op: syntax.OpConcat, Flags: st.Flags}
		rest.Sub = append(append(rest.Sub, first), st.Sub[1:]...)
		return lit, rest, true
	}
	return nil, nil, false
}
