package findings

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// encodeText prints findings like a compiler: a location line, the source
// line, a caret under the value, and the fix; then a one-line summary.
func encodeText(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	p := Printer{W: bw, Color: r.Color}
	for _, d := range r.Diagnostics() {
		if err := p.Print(d); err != nil {
			return err
		}
	}
	if len(r.Findings) > 0 {
		fmt.Fprintf(bw, "%s\n", Summarize(r.Findings))
	}
	return bw.Flush()
}

// Diagnostics returns r's findings as text output prints them, in r's
// order: the level painted by severity and waiver, the source line when
// r.Sources holds the finding's file, and the fix and waiver notes. A
// command with more to say about a finding (verify's reproduction) adds
// notes to its diagnostic and prints it with the same Printer.
func (r Report) Diagnostics() []Diagnostic {
	out := make([]Diagnostic, 0, len(r.Findings))
	lines := map[string][][]byte{}
	for _, f := range r.Findings {
		d := Diagnostic{File: f.File, Line: f.Line, Column: f.Column, EndColumn: f.EndColumn,
			Level: f.Severity.String(), LevelStyle: StyleWarning, Message: f.Message, Rule: f.Rule}
		switch {
		case f.Waived:
			d.Level, d.LevelStyle = d.Level+" (waived)", StyleMuted
		case f.Severity == Error:
			d.LevelStyle = StyleError
		}
		if src, ok := r.Sources[f.File]; ok && f.Line > 0 {
			ls, seen := lines[f.File]
			if !seen {
				ls = bytes.Split(src, []byte("\n"))
				lines[f.File] = ls
			}
			if f.Line <= len(ls) {
				d.Source, d.HasSource = strings.TrimRight(string(ls[f.Line-1]), "\r"), true
			}
		}
		if f.Fix != "" {
			d.Notes = append(d.Notes, Note{Label: "fix:", Style: StyleLabel, Text: f.Fix})
		}
		if f.Waived {
			d.Notes = append(d.Notes, Note{Label: "waived:", Text: f.WaivedBecause})
		}
		out = append(out, d)
	}
	return out
}

// Caret returns the padding up to column col (1-based, in characters) and
// a marker: ^ followed by ~ over the rest of the span, which ends at
// endCol, or by default at the end of the token under the caret.
func Caret(line string, col, endCol int) (pad, mark string) {
	runes := []rune(line)
	if col < 1 {
		col = 1
	}
	if col > len(runes)+1 {
		col = len(runes) + 1
	}
	var b strings.Builder
	for _, r := range runes[:col-1] {
		if r == '\t' {
			b.WriteString("    ")
		} else {
			b.WriteByte(' ')
		}
	}
	end := endCol
	if end <= col {
		end = col
		inQuote := rune(0)
		for end <= len(runes) {
			r := runes[end-1]
			switch {
			case inQuote == 0 && end == col && (r == '"' || r == '\''):
				inQuote = r
			case inQuote == '"' && r == '\\':
				end++ // skip the escaped character
			case inQuote != 0 && r == inQuote:
				end++
				return b.String(), "^" + strings.Repeat("~", end-col-1)
			case inQuote == 0 && (r == ' ' || r == '\t' || r == ',' || r == ']' || r == '}' || r == '#'):
				return b.String(), "^" + strings.Repeat("~", max(end-col, 1)-1)
			case inQuote == 0 && r == ':' && (end == len(runes) || runes[end] == ' '):
				return b.String(), "^" + strings.Repeat("~", max(end-col, 1)-1) // a key: stop before its colon
			}
			end++
		}
		end = min(end, len(runes)+1)
	}
	width := end - col
	if width < 1 {
		width = 1
	}
	return b.String(), "^" + strings.Repeat("~", width-1)
}

// ExpandTabs renders tabs as four spaces, as Caret counts them.
func ExpandTabs(s string) string { return strings.ReplaceAll(s, "\t", "    ") }

var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

// oneLine keeps a message on its line: a contract value quoted in a message
// cannot start a fake finding line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") && utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(lineBreaks.Replace(s), "\uFFFD")
}

// displayName is a file name as text output shows it: as is when it is
// printable, Go-quoted when it holds a line break or another control
// character, so a file name cannot forge lines of a terminal or CI log.
func displayName(name string) string {
	for _, r := range name {
		if !unicode.IsPrint(r) && r != ' ' {
			return strconv.Quote(name)
		}
	}
	return name
}
