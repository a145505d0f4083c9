package svg

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

func load(t *testing.T, path string) *contract.Contract {
	t.Helper()
	c, err := contract.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// parse checks the SVG is well-formed and returns its title, desc and the
// text of every <text> element.
func parse(t *testing.T, b []byte) (title, desc string, texts []string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	var stack []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, b)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			stack = append(stack, tok.Name.Local)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) == 0 {
				continue
			}
			switch stack[len(stack)-1] {
			case "title":
				title += string(tok)
			case "desc":
				desc += string(tok)
			case "text":
				texts = append(texts, string(tok))
			}
		}
	}
	return title, desc, texts
}

func TestScheduleChart(t *testing.T) {
	c := load(t, "../testdata/figures.yaml")
	b := Schedule(c)
	title, desc, texts := parse(t, b)
	if title != "Figurepay: retry schedule" {
		t.Errorf("title = %q", title)
	}
	// The text alternative carries every figure the chart shows.
	for _, want := range []string{"full jitter", "base 750ms", "multiplier 3", "cap 9s", "5 attempts", "max_elapsed 45s",
		"attempt 2 waits up to 750ms", "attempt 5 waits up to 9s (cumulative worst case 18s750ms, elapsed at most 24s)"} {
		if !strings.Contains(desc, want) {
			t.Errorf("desc lacks %q: %s", want, desc)
		}
	}
	joined := strings.Join(texts, "|")
	for _, want := range []string{"cap 9s", "max_elapsed 45s", "#5", "9s", "24s"} {
		if !strings.Contains(joined, want) {
			t.Errorf("chart text lacks %q: %s", want, joined)
		}
	}
	if !bytes.Contains(b, []byte("prefers-color-scheme:dark")) || !bytes.Contains(b, []byte(`role="img"`)) || !bytes.Contains(b, []byte(`aria-labelledby="schedule-title schedule-desc"`)) {
		t.Error("chart lacks its dark theme or its accessible name")
	}
}

func TestKeyStatesDiagram(t *testing.T) {
	c := load(t, "../testdata/figures.yaml")
	_, desc, texts := parse(t, KeyStates(c))
	joined := strings.Join(texts, "|")
	for _, want := range []string{"absent", "in-flight", "complete", "409 key_still_running", "422 key_body_mismatch",
		"after the 36h replay window", "claim older than 90s"} {
		if !strings.Contains(joined, want) {
			t.Errorf("diagram lacks %q: %s", want, joined)
		}
	}
	for _, want := range []string{"409 key_still_running", "422 key_body_mismatch", "36h replay window"} {
		if !strings.Contains(desc, want) {
			t.Errorf("desc lacks %q", want)
		}
	}
}

// TestSVGIsDeterministic: the same contract draws the same bytes.
func TestSVGIsDeterministic(t *testing.T) {
	c := load(t, "../testdata/figures.yaml")
	if !bytes.Equal(Schedule(c), Schedule(c)) || !bytes.Equal(KeyStates(c), KeyStates(c)) {
		t.Error("two drawings differ")
	}
}
