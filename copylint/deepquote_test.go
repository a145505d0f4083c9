package copylint

import (
	"bytes"
	"strings"
	"testing"
)

// TestFlattenDeepQuotes: quote markers past maxQuoteDepth become spaces,
// byte for byte, so goldmark never sees a quadratic nesting and positions
// stay those of the source.
func TestFlattenDeepQuotes(t *testing.T) {
	if got := flattenDeepQuotes([]byte("> a\n> > b\n\ntext > not a quote\n")); got != nil {
		t.Errorf("shallow quotes were changed: %q", got)
	}
	src := []byte("intro\n" + strings.Repeat("> ", 10_000) + "exactly-once\n" + strings.Repeat(">", 300) + "\n")
	got := flattenDeepQuotes(src)
	if len(got) != len(src) {
		t.Fatalf("length %d, want %d", len(got), len(src))
	}
	for i, line := range bytes.Split(got, []byte("\n")) {
		if n := bytes.Count(line, []byte(">")); n > maxQuoteDepth {
			t.Errorf("line %d keeps %d markers", i+1, n)
		}
	}
	if !bytes.HasSuffix(bytes.Split(got, []byte("\n"))[1], []byte("exactly-once")) {
		t.Error("the text after the markers moved")
	}
	// The file that took seconds before the bound lints at once and still
	// finds the claim above the bomb.
	fs := LintSource(nil, "bomb.md", []byte("We promise exactly-once delivery.\n\n"+strings.Repeat("> ", 80_000)+"x\n"))
	if len(fs) == 0 || fs[0].Rule != "copy/exactly-once" {
		t.Errorf("findings %+v", fs)
	}
}

// TestDeeplyIndentedIsText: a file with lines indented past maxIndent is
// linted as plain text, at once, and its claims are still found.
func TestDeeplyIndentedIsText(t *testing.T) {
	var b strings.Builder
	b.WriteString(strings.Repeat("> ", 40_000) + "exactly-once delivery\n\n")
	for i := 0; i < 1600; i++ {
		b.WriteString(strings.Repeat("  ", i) + "- x\n")
	}
	if !deeplyIndented([]byte(b.String())) || deeplyIndented([]byte("- a\n  - b\n    - c\n")) {
		t.Fatal("deeplyIndented misjudges")
	}
	fs := LintSource(nil, "deep.md", []byte(b.String()))
	if len(fs) == 0 || fs[0].Rule != "copy/exactly-once" {
		t.Errorf("findings %+v", fs)
	}
}
