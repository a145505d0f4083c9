package copylint

import (
	"bytes"
	"regexp"
	"regexp/syntax"
)

// gateAlt is one alternative of a gated pattern and the tag bits a text
// must cover for it to match.
type gateAlt struct {
	re   *regexp.Regexp
	need uint64
	// lit, when set, is a literal that every match of the alternative
	// begins with, at a word boundary: the alternative is \b lit rest.
	// re is then \A lit rest, run only on the text from each place lit
	// begins at a word boundary. Go's matcher tries the bare alternative
	// at every byte, the \b defeating its search for a literal prefix;
	// bytes.Index finds lit's few places far faster.
	lit []byte
}

// compileAlt compiles the alternative a (see gateAlt); ok is false if it
// does not compile (it always should: it is written by reSource).
func compileAlt(a *syntax.Regexp) (gateAlt, bool) {
	src := reSource(a)
	var lit []byte
	if l, rest, found := wordPrefix(a); found {
		lit = []byte(string(l))
		src = `\A` + reSource(rest)
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return gateAlt{}, false
	}
	return gateAlt{re: re, lit: lit}, true
}

// match reports whether b holds a match of the alternative.
//
// With lit: a match beginning at p in b is one of \A lit rest in b[p:]
// once \b holds at p, checked here against b[p-1] as the matcher would.
// Every other assertion of rest comes after lit, at least one byte into
// b[p:], where it sees the same bytes around it as in b (\A is false
// there as in b; \z and $ see the same end). A match can only begin
// where lit does, and lit, valid UTF-8, only ever begins where the
// matcher would try a match (its first byte is no continuation byte).
func (a *gateAlt) match(b []byte) bool {
	if a.lit == nil {
		return a.re.Match(b)
	}
	for i := 0; i < len(b); {
		j := bytes.Index(b[i:], a.lit)
		if j < 0 {
			return false
		}
		p := i + j
		if wordBoundaryAt(b, p) && a.re.Match(b[p:]) {
			return true
		}
		i = p + 1
	}
	return false
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
