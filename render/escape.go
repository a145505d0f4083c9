package render

import (
	"strings"
)

// markdownSpecial are the ASCII characters that can start Markdown, GFM,
// MDX or HTML syntax anywhere in a line. Each is backslash-escaped, which
// CommonMark, GFM and MDX all read as the literal character. Characters that
// only matter at the start of a line (#, +, -, digits followed by a dot) are
// handled in EscapeMarkdown.
const markdownSpecial = "\\`*_[]<>&|{}~$!"

// EscapeMarkdown makes s literal text in Markdown: emphasis, links, images,
// raw HTML, MDX expressions, table cell breaks and block starts all lose
// their meaning. Line breaks become spaces (a contract text is one line; a
// break could start a new block).
func EscapeMarkdown(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range s {
		switch {
		case r == '\n' || r == '\r':
			b.WriteByte(' ')
			continue
		case r < 0x80 && strings.ContainsRune(markdownSpecial, r):
			b.WriteByte('\\')
		case i == 0 && strings.ContainsRune("#+-=>", r):
			// A value that lands at the start of a line must not open a
			// heading, list, setext underline or quote.
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	out := b.String()
	// "1." or "1)" at the start would open an ordered list.
	if n := leadingDigits(out); n > 0 && n < len(out) && (out[n] == '.' || out[n] == ')') {
		out = out[:n] + "\\" + out[n:]
	}
	return out
}

func leadingDigits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// CodeSpan writes s as inline code: a backtick fence longer than any run of
// backticks inside, padded when s starts or ends with a backtick. Nothing in
// a code span is markup, in Markdown or in MDX.
func CodeSpan(s string) string {
	return codeSpan(s, false)
}

// CellCodeSpan is CodeSpan for a GFM table cell, where the table parser
// splits on | before inline parsing; \| keeps the pipe inside the cell and
// GFM removes the backslash.
func CellCodeSpan(s string) string {
	return codeSpan(s, true)
}

// lineBreaks makes a value one line: a code span cannot hold a break.
var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

func codeSpan(s string, cell bool) string {
	s = lineBreaks.Replace(s)
	if cell {
		s = strings.ReplaceAll(s, "|", "\\|")
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || (strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.TrimSpace(s) != "") {
		s = " " + s + " "
	}
	if s == "" {
		return fence + " " + fence
	}
	return fence + s + fence
}

// FencedCode writes code as a fenced block with a language tag. The fence is
// longer than any backtick run in the code, so the block's content is
// exactly code (which must end in a newline to round-trip byte for byte).
func FencedCode(lang, code string) string {
	longest, run := 0, 0
	for _, r := range code {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	if !strings.HasSuffix(code, "\n") {
		code += "\n"
	}
	return fence + lang + "\n" + code + fence
}
