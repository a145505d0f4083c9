package findings

import (
	"fmt"
	"io"
	"strings"
)

// Style says what a piece of text output is; a Printer with colour on maps
// each to one ANSI code, so every command paints the same thing alike.
type Style int

const (
	StylePlain    Style = iota
	StyleLocation       // file:line:col
	StyleError          // the error level, a breaking change
	StyleWarning        // the warning level, a notable change
	StyleMuted          // waived findings, compatible changes
	StyleCaret          // the marker under the value
	StyleLabel          // a note's label ("fix:")
)

var ansi = map[Style]string{
	StyleLocation: "\x1b[1m",
	StyleError:    "\x1b[1;31m",
	StyleWarning:  "\x1b[1;33m",
	StyleMuted:    "\x1b[2m",
	StyleCaret:    "\x1b[1;32m",
	StyleLabel:    "\x1b[36m",
}

// Printer writes the text output of every command: load errors, findings
// and diff reports. Color is the one colour policy: the CLI sets it only
// for a terminal without NO_COLOR (and not TERM=dumb).
type Printer struct {
	W     io.Writer
	Color bool
}

// Paint wraps s in the style's escape code when colour is on.
func (p Printer) Paint(style Style, s string) string {
	code, ok := ansi[style]
	if !p.Color || !ok {
		return s
	}
	return code + s + "\x1b[0m"
}

// Diagnostic is one problem as text prints it, like a compiler: a location
// line, the source line with a caret under the value, and notes.
type Diagnostic struct {
	File         string
	Line, Column int
	// EndColumn, when past Column, bounds the span the caret marks.
	EndColumn int
	Level     string
	// LevelStyle paints Level.
	LevelStyle Style
	Message    string
	// Rule, when set, follows the message in brackets.
	Rule string
	// Source is the text of Line, printed with a caret when HasSource
	// (an empty line is still a line).
	Source    string
	HasSource bool
	Notes     []Note
}

// Note is an indented line under a diagnostic: "fix: ...", "waived: ...".
type Note struct {
	Label string
	Style Style
	Text  string
	// Lines, when present, follow the note's line, indented under its
	// label: a block such as verify's reproduction commands.
	Lines []string
}

// Print writes d. File names and every line of text are made safe for a
// terminal or CI log: a value quoted in a message cannot start a line.
func (p Printer) Print(d Diagnostic) error {
	var b strings.Builder
	loc := displayName(d.File)
	if d.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", loc, d.Line, d.Column)
	}
	fmt.Fprintf(&b, "%s: %s: %s", p.Paint(StyleLocation, loc), p.Paint(d.LevelStyle, d.Level), oneLine(d.Message))
	if d.Rule != "" {
		fmt.Fprintf(&b, " [%s]", d.Rule)
	}
	b.WriteByte('\n')
	if d.HasSource && d.Line > 0 {
		line, pad, mark := Excerpt(d.Source, d.Column, d.EndColumn)
		fmt.Fprintf(&b, "    %s\n    %s%s\n", line, pad, p.Paint(StyleCaret, mark))
	}
	for _, n := range d.Notes {
		b.WriteString("    " + p.Paint(n.Style, n.Label))
		if n.Text != "" || len(n.Lines) == 0 {
			b.WriteString(" " + oneLine(n.Text))
		}
		b.WriteByte('\n')
		for _, l := range n.Lines {
			fmt.Fprintf(&b, "      %s\n", oneLine(l))
		}
	}
	_, err := io.WriteString(p.W, b.String())
	return err
}

// Excerpt clip widths, in characters before and after the column: a line of
// a minified page or a hostile file prints as one screen line.
const (
	excerptBefore = 40
	excerptAfter  = 80
)

// Excerpt renders a source line for text output: clipped to a window
// around col (1-based, in characters) when it is long, with "…" where it
// was cut, tabs expanded, and the caret padding and marker (see Caret)
// for the span from col to endCol inside that window.
func Excerpt(line string, col, endCol int) (text, pad, mark string) {
	line, col, endCol = clip(line, col, endCol)
	pad, mark = Caret(line, col, endCol)
	return ExpandTabs(line), pad, mark
}

// clip cuts line to the window around col and moves col and endCol into
// it; a span that runs past the window ends at its edge.
func clip(line string, col, endCol int) (string, int, int) {
	if len(line) <= excerptBefore+excerptAfter { // bytes >= characters
		return line, col, endCol
	}
	runes := []rune(line)
	if len(runes) <= excerptBefore+excerptAfter {
		return line, col, endCol
	}
	col = min(max(col, 1), len(runes)+1)
	start := max(0, col-1-excerptBefore)
	end := min(len(runes), col-1+excerptAfter)
	out := string(runes[start:end])
	if endCol > col {
		endCol = min(endCol, end+1) - start
	} else {
		endCol = 0 // the token under the caret, as before clipping
	}
	col -= start
	if start > 0 {
		out = "…" + out
		col++
		if endCol > 0 {
			endCol++
		}
	}
	if end < len(runes) {
		out += "…"
	}
	return out, col, endCol
}
