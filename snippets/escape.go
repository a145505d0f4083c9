package snippets

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// One quoting function per target language. Each returns a literal that the
// target's own parser reads back as exactly s (the property tests check this
// through python3, node, ruby, javac, sh and strconv.Unquote). Invalid UTF-8
// is replaced by U+FFFD first: contract text is UTF-8, and a literal that
// smuggled raw bytes would read back differently in every language.

// quoters are the quoting functions a registry row's Snippet.Quote may
// name, by their own names: one per literal syntax, which languages may
// share (Node and TypeScript both use JSString).
var quoters = map[string]func(string) string{
	"PythonString": PythonString,
	"JSString":     JSString,
	"GoString":     GoString,
	"JavaString":   JavaString,
	"RubyString":   RubyString,
	"ShellQuote":   ShellQuote,
}

// PythonString quotes s as a Python 3 str literal.
func PythonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x80:
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// JSString quotes s as a JavaScript (and TypeScript) string literal. Only
// ASCII is emitted, so U+2028 and U+2029, line terminators in older engines,
// cannot end the literal early.
func JSString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x80:
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\u{%x}`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// GoString quotes s as a Go interpreted string literal, ASCII only.
func GoString(s string) string {
	return strconv.QuoteToASCII(strings.ToValidUTF8(s, "\uFFFD"))
}

// JavaString quotes s as a Java string literal. Java translates \uXXXX
// escapes before it tokenizes, so "\u0022" would close the literal: quote,
// backslash and control characters therefore use the ordinary escapes
// (octal for controls) and \u is used only for non-ASCII code units, which
// can never be mistaken for syntax.
func JavaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\%03o`, r)
		case r < 0x80:
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			r1, r2 := utf16Pair(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// RubyString quotes s as a double-quoted Ruby string. '#' is escaped so no
// #{...}, #@ivar or #$global interpolation can start.
func RubyString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '"' || r == '\\' || r == '#':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02X`, r)
		case r < 0x80:
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, `\u{%x}`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ShellQuote quotes s as one POSIX shell word: single quotes, inside which
// nothing is special, and '\” for a single quote itself. A NUL byte cannot
// travel through a shell word at all, so it is dropped (contract values
// never hold one: the loader rejects control characters).
func ShellQuote(s string) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// validUTF8 is what every quoting function reads back: s with invalid bytes
// replaced, as the property tests compare against.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
