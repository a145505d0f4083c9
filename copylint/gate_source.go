package copylint

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"
)

// reSource writes st as a pattern that matches what st matches (captures
// become plain groups: only Match runs the result). It stands in for
// syntax.Regexp.String, which works out each node's flags by folding the
// case of every rune of every class, up to the 1.1 million of a negated
// one: seconds for a rule's patterns, where this takes microseconds.
// Nothing is left to flags: a class is written as its ranges (the parser
// has already added a case-insensitive class's other cases), a
// case-insensitive literal in (?i:...), and each assertion by the escape
// that means it whatever the flags.
func reSource(st *syntax.Regexp) string {
	var b strings.Builder
	writeRE(&b, st)
	return b.String()
}

func writeRE(b *strings.Builder, st *syntax.Regexp) {
	switch st.Op {
	case syntax.OpNoMatch:
		b.WriteString(`[^\x00-\x{10FFFF}]`)
	case syntax.OpEmptyMatch:
		b.WriteString(`(?:)`)
	case syntax.OpLiteral:
		if st.Flags&syntax.FoldCase != 0 {
			b.WriteString(`(?i:`)
		} else {
			b.WriteString(`(?:`)
		}
		for _, r := range st.Rune {
			writeRune(b, r)
		}
		b.WriteString(`)`)
	case syntax.OpCharClass:
		b.WriteString(`[`)
		if len(st.Rune) == 0 {
			b.WriteString(`^\x00-\x{10FFFF}`)
		}
		for i := 0; i+1 < len(st.Rune); i += 2 {
			writeRune(b, st.Rune[i])
			if st.Rune[i+1] != st.Rune[i] {
				b.WriteByte('-')
				writeRune(b, st.Rune[i+1])
			}
		}
		b.WriteString(`]`)
	case syntax.OpAnyCharNotNL:
		b.WriteString(`[^\n]`)
	case syntax.OpAnyChar:
		b.WriteString(`(?s:.)`)
	case syntax.OpBeginLine:
		b.WriteString(`(?m:^)`)
	case syntax.OpEndLine:
		b.WriteString(`(?m:$)`)
	case syntax.OpBeginText:
		b.WriteString(`\A`)
	case syntax.OpEndText:
		b.WriteString(`\z`)
	case syntax.OpWordBoundary:
		b.WriteString(`\b`)
	case syntax.OpNoWordBoundary:
		b.WriteString(`\B`)
	case syntax.OpCapture:
		writeGroup(b, st.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		writeGroup(b, st.Sub[0])
		switch st.Op {
		case syntax.OpStar:
			b.WriteByte('*')
		case syntax.OpPlus:
			b.WriteByte('+')
		case syntax.OpQuest:
			b.WriteByte('?')
		default:
			if st.Max == st.Min {
				fmt.Fprintf(b, "{%d}", st.Min)
			} else if st.Max < 0 {
				fmt.Fprintf(b, "{%d,}", st.Min)
			} else {
				fmt.Fprintf(b, "{%d,%d}", st.Min, st.Max)
			}
		}
		if st.Flags&syntax.NonGreedy != 0 {
			b.WriteByte('?')
		}
	case syntax.OpConcat:
		b.WriteString(`(?:`)
		for _, sub := range st.Sub {
			writeGroup(b, sub)
		}
		b.WriteString(`)`)
	case syntax.OpAlternate:
		b.WriteString(`(?:`)
		for i, sub := range st.Sub {
			if i > 0 {
				b.WriteByte('|')
			}
			writeRE(b, sub)
		}
		b.WriteString(`)`)
	default:
		panic(fmt.Sprintf("copylint: regexp op %v", st.Op))
	}
}

// writeGroup writes st as one atom: in a group of its own.
func writeGroup(b *strings.Builder, st *syntax.Regexp) {
	b.WriteString(`(?:`)
	writeRE(b, st)
	b.WriteString(`)`)
}

// writeRune writes r so that it stands for itself, in a class or out.
func writeRune(b *strings.Builder, r rune) {
	if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ') {
		b.WriteRune(r)
		return
	}
	fmt.Fprintf(b, `\x{%x}`, r)
}
