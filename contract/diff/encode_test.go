package diff

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/retryspec/retryspec/internal/golden"
	"testing"
)

func goldenReport(t *testing.T) Report {
	old := parse(t, "full.yaml", readTestdata(t, "full.yaml"))
	new := parse(t, "changed.yaml", readTestdata(t, "changed.yaml"))
	cs := Compare(old, new)
	return Report{Old: "full.yaml", New: "changed.yaml", File: "changed.yaml", Changes: cs, Unused: Unused(cs, old, new)}
}

func TestGolden(t *testing.T) {
	r := goldenReport(t)
	s := Summarize(r.Changes)
	if s.Breaking < 3 || s.Unacknowledged < 2 || s.Notable < 2 || s.Compatible < 2 || len(r.Unused) != 1 {
		t.Fatalf("the fixture no longer exercises every class: %+v, unused %d", s, len(r.Unused))
	}
	for _, format := range FormatNames() {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Encode(&buf, format, r); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", "changes."+format), buf.Bytes())
			// Deterministic: a second run is byte-identical.
			var again bytes.Buffer
			Encode(&again, format, goldenReport(t))
			if !bytes.Equal(buf.Bytes(), again.Bytes()) {
				t.Error("output differs between runs")
			}
		})
	}
}

func TestMarkdownEscapesContractText(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, "markdown", goldenReport(t)); err != nil {
		t.Fatal(err)
	}
	md := outsideCodeSpans(buf.String())
	for _, bad := range []string{"<Payments>", "**between**", "[docs](", "| **", "<b>", "**2026-01**"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown carries contract text unescaped: %q", bad)
		}
	}
	if i, j := strings.Index(md, "### Breaking"), strings.Index(md, "### Notable"); i < 0 || j < i {
		t.Error("breaking changes are not listed first")
	}
}

// outsideCodeSpans drops inline code spans (CommonMark: a run of n
// backticks up to the next run of exactly n), whose content is shown
// literally and so may hold anything.
func outsideCodeSpans(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '`' {
			b.WriteByte(s[i])
			i++
			continue
		}
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		fence := strings.Repeat("`", n)
		j := i + n
		for {
			k := strings.Index(s[j:], fence)
			if k < 0 {
				b.WriteString(fence) // unmatched: literal backticks
				i += n
				break
			}
			end := j + k + n
			if end < len(s) && s[end] == '`' {
				j = end
				for j < len(s) && s[j] == '`' {
					j++
				}
				continue
			}
			i = end
			break
		}
	}
	return b.String()
}

func TestTextColor(t *testing.T) {
	r := goldenReport(t)
	var plain, color bytes.Buffer
	Encode(&plain, "text", r)
	r.Color = true
	Encode(&color, "text", r)
	if strings.Contains(plain.String(), "\x1b[") {
		t.Error("escape codes without Color")
	}
	if !strings.Contains(color.String(), "\x1b[1;31mbreaking") {
		t.Error("breaking is not painted with Color")
	}
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{
		"plain":   "`plain`",
		"a`b":     "`` a`b ``",
		"``x":     "``` ``x ```",
		" padded": "`  padded `",
	} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGitHubEscaping(t *testing.T) {
	if got := ghProperty("a:b,c%\n"); got != "a%3Ab%2Cc%25%0A" {
		t.Errorf("ghProperty = %q", got)
	}
	if got := ghData("50%\r\nx"); got != "50%25%0D%0Ax" {
		t.Errorf("ghData = %q", got)
	}
}

// TestMarkdownListsEachAcknowledgementOnce (issue 28): an acknowledged
// change appears once, with its reason, and the edit to the changes: list
// that acknowledges it is not listed again; the count line counts what is
// listed.
func TestMarkdownListsEachAcknowledgementOnce(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, "markdown", goldenReport(t)); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	if n := strings.Count(md, "o partner retries beyond 2h"); n != 1 {
		t.Errorf("the acknowledgement of idempotency.replay_window is shown %d times, want once:\n%s", n, md)
	}
	if n := strings.Count(md, "\n- "); !strings.Contains(md, "4 breaking changes") || !strings.Contains(md, "2 compatible") || n != 4+2+2+1 {
		t.Errorf("the count line and the %d listed items disagree:\n%s", n, md)
	}
}
