package svg

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/render/schedule"
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
	_, _, elapsed := parse(t, Elapsed(c))
	texts = append(texts, elapsed...)
	if title != "Figurepay: wait before each retry" {
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
		"After the 36h replay window", "claim older than 90s"} {
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

// TestElapsedAxisFitsTheData: a schedule that ends after a few seconds is
// not drawn on an axis sized for a far larger max_elapsed; the bound is
// stated in words instead. When the bound is near the data it is drawn.
func TestElapsedAxisFitsTheData(t *testing.T) {
	c := load(t, "../testdata/figures.yaml")
	last := schedule.Compute(c.Retry)
	worst := last[len(last)-1].WorstElapsed
	for _, tc := range []struct {
		maxElapsed time.Duration
		drawn      bool
	}{{10 * worst, false}, {worst + worst/10, true}} {
		c.Retry.MaxElapsed = contract.Duration{D: tc.maxElapsed}
		b := Elapsed(c)
		_, _, texts := parse(t, b)
		top := axisTop(t, texts)
		if top > 2*max(worst, map[bool]time.Duration{true: tc.maxElapsed}[tc.drawn]) {
			t.Errorf("max_elapsed %s: axis reaches %s for a worst case of %s", tc.maxElapsed, top, worst)
		}
		if got := bytes.Contains(b, []byte(`class="limit"`)); got != tc.drawn {
			t.Errorf("max_elapsed %s: limit line drawn = %v, want %v", tc.maxElapsed, got, tc.drawn)
		}
		if !strings.Contains(strings.Join(texts, "|"), "max_elapsed "+contract.FormatDuration(tc.maxElapsed)) {
			t.Errorf("max_elapsed %s is not stated on the chart: %v", tc.maxElapsed, texts)
		}
	}
}

// axisTop is the largest duration label of a chart (its grid's top).
func axisTop(t *testing.T, texts []string) time.Duration {
	var top time.Duration
	for _, s := range texts {
		if d, err := time.ParseDuration(s); err == nil && !strings.ContainsAny(s, " ") {
			top = max(top, d)
		}
	}
	return top
}

// TestPicturesAreDrawnAtReadableSize: every picture is narrow enough to be
// shown at its drawn size in a page column (at most 420 px: no shrinking
// on a desktop, little on a phone), and no text is smaller than 12 px.
func TestPicturesAreDrawnAtReadableSize(t *testing.T) {
	c := load(t, "../testdata/figures.yaml")
	size := regexp.MustCompile(`font-size:(\d+)px`)
	width := regexp.MustCompile(`<svg [^>]*width="(\d+)"`)
	for name, b := range map[string][]byte{"schedule": Schedule(c), "elapsed": Elapsed(c), "states": KeyStates(c)} {
		m := width.FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s: no width", name)
		}
		if w, _ := strconv.Atoi(string(m[1])); w > 420 {
			t.Errorf("%s: drawn %d px wide; a page column shows it at most about 400", name, w)
		}
		for _, f := range size.FindAllSubmatch(b, -1) {
			if px, _ := strconv.Atoi(string(f[1])); px < 12 {
				t.Errorf("%s: %d px text", name, px)
			}
		}
	}
}
