package findings

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("a", 200) + "exactly-once" + strings.Repeat("b", 200)
	tests := []struct {
		name            string
		line            string
		col, endCol     int
		text, pad, mark string
	}{
		{"short line as is", "max_attempts: 4", 15, 0, "max_attempts: 4", strings.Repeat(" ", 14), "^"},
		{"tab expanded", "\tkey: x", 7, 0, "    key: x", strings.Repeat(" ", 9), "^"},
		{"long line clipped around the column", long, 201, 213,
			"…" + strings.Repeat("a", 40) + "exactly-once" + strings.Repeat("b", 68) + "…", strings.Repeat(" ", 41), "^" + strings.Repeat("~", 11)},
		{"span past the window ends at its edge", long, 201, 400,
			"…" + strings.Repeat("a", 40) + "exactly-once" + strings.Repeat("b", 68) + "…", strings.Repeat(" ", 41), "^" + strings.Repeat("~", 79)},
		{"column near the start", long, 3, 0, strings.Repeat("a", 82) + "…", "  ", "^" + strings.Repeat("~", 80)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, pad, mark := Excerpt(tt.line, tt.col, tt.endCol)
			if text != tt.text || pad != tt.pad || mark != tt.mark {
				t.Errorf("Excerpt(%d, %d):\ngot  %q\n     %q%q\nwant %q\n     %q%q", tt.col, tt.endCol, text, pad, mark, tt.text, tt.pad, tt.mark)
			}
		})
	}
}

// TestTextOfOneFindingOnAHugeLine: a 1 MB single-line page (minified HTML)
// prints a short excerpt for a finding on it, not the megabyte (and a
// megabyte of caret padding) the unclipped line printed.
func TestTextOfOneFindingOnAHugeLine(t *testing.T) {
	filler := strings.Repeat("<span>lorem ipsum dolor</span> ", 1_000_000/31/2)
	page := "<html><body><p>" + filler + "We deliver every webhook exactly-once.</p>" + filler + "é</body></html>"
	col := utf8.RuneCountInString(page[:strings.Index(page, "exactly-once")]) + 1
	r := Report{Tool: "retryspec", Sources: map[string][]byte{"index.html": []byte(page)}, Findings: []Finding{{
		Rule: "copy/exactly-once", Severity: Error, Message: "the page promises exactly-once delivery",
		File: "index.html", Line: 1, Column: col, EndColumn: col + len("exactly-once"), Fix: "say at-least-once, deduplicated by key",
	}}}
	var out bytes.Buffer
	if err := Encode(&out, "text", r); err != nil {
		t.Fatal(err)
	}
	if len(page) < 1_000_000 {
		t.Fatalf("the page is %d bytes, want a megabyte", len(page))
	}
	if out.Len() > 1000 {
		t.Fatalf("%d bytes of text for one finding on a %d-byte line, want under 1000:\n%.600s", out.Len(), len(page), out.String())
	}
	if !strings.Contains(out.String(), "webhook exactly-once.</p>") || !strings.Contains(out.String(), " ^"+strings.Repeat("~", 11)+"\n") {
		t.Errorf("the excerpt lacks the claim or its caret:\n%s", out.String())
	}
}

// TestPrinterColour: escape codes only with Color, one code per style.
func TestPrinterColour(t *testing.T) {
	d := Diagnostic{File: "a.yaml", Line: 1, Column: 1, Level: "error", LevelStyle: StyleError, Message: "m",
		Source: "k: v", HasSource: true, Notes: []Note{{Label: "fix:", Style: StyleLabel, Text: "f"}}}
	var plain, color bytes.Buffer
	Printer{W: &plain}.Print(d)
	Printer{W: &color, Color: true}.Print(d)
	if strings.Contains(plain.String(), "\x1b[") {
		t.Errorf("escape codes without Color: %q", plain.String())
	}
	for _, want := range []string{"\x1b[1ma.yaml:1:1\x1b[0m", "\x1b[1;31merror\x1b[0m", "\x1b[1;32m^\x1b[0m", "\x1b[36mfix:\x1b[0m"} {
		if !strings.Contains(color.String(), want) {
			t.Errorf("coloured output lacks %q: %q", want, color.String())
		}
	}
	if got, want := plain.String(), "a.yaml:1:1: error: m\n    k: v\n    ^\n    fix: f\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
