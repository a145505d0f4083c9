package render

import (
	"bytes"
	"testing"
)

// TestPreparedSnippetsAreShown: every block PrepareSnippets highlights
// ahead is one a page shows (same language tag, same code), so the work is
// not done twice, and the site it helps render is byte for byte the site
// rendered without it.
func TestPreparedSnippetsAreShown(t *testing.T) {
	c := load(t, "testdata/figures.yaml")
	snips := []Snippet{
		{Lang: "python", Title: "Python", Library: "Use **tenacity**.", Short: []byte("retry(f)\n"), Code: []byte("import time\n\n\ndef f():  \n    return '```'\n")},
		{Lang: "node", Title: "Node.js", Library: "Use a loop.", Short: []byte("await retry(f)"), Code: []byte("const s = `a ${b}`;\n````\n// </script>")},
		{Lang: "curl", Title: "curl", Library: "Shell.", Code: []byte("curl -H 'Idempotency-Key: k' https://x.example\n")},
	}
	in := Inputs{Contract: c, Snippets: snips}
	tm, err := LoadTemplates("")
	if err != nil {
		t.Fatal(err)
	}
	ps, _, err := Markdown(in, tm)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHighlighter()
	h.PrepareSnippets(in)
	if n := len(h.blocks); n != 5 {
		t.Fatalf("prepared %d blocks, want 5 (two per snippet with a short form, one without)", n)
	}
	got, err := h.HTML(in, ps, tm)
	if err != nil {
		t.Fatal(err)
	}
	for key, b := range h.blocks {
		if !b.shown.Load() {
			t.Errorf("prepared block %q is on no page", key)
		}
	}
	want, err := HTML(in, ps, tm)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d files with prepared blocks, %d without", len(got), len(want))
	}
	for i := range got {
		if got[i].Path != want[i].Path || !bytes.Equal(got[i].Data, want[i].Data) {
			t.Errorf("%s differs when the snippets are prepared", got[i].Path)
		}
	}
}

// TestSlowHighlightIsDoneAgain: a run slow enough for chroma's match
// timeout to have cut a token short is repeated until two runs agree, and
// a quick run is taken as it is.
func TestSlowHighlightIsDoneAgain(t *testing.T) {
	defer func(f func(string, []byte) (string, bool, error)) { highlightRun = f }(highlightRun)
	for _, tc := range []struct {
		name  string
		runs  []string // each run's output; "!" marks a slow run
		want  string
		calls int
	}{
		{"quick", []string{"a"}, "a", 1},
		{"slow then same", []string{"a!", "a!"}, "a", 2},
		{"timed out once", []string{"plain!", "kw!", "kw!"}, "kw", 3},
		{"slow then quick", []string{"plain!", "kw"}, "kw", 2},
		{"never settles", []string{"1!", "2!", "3!", "4!", "5!", "6!", "7!"}, "6", 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			highlightRun = func(string, []byte) (string, bool, error) {
				r := tc.runs[calls]
				calls++
				slow := len(r) > 0 && r[len(r)-1] == '!'
				if slow {
					r = r[:len(r)-1]
				}
				return r, slow, nil
			}
			var b bytes.Buffer
			if err := highlight(&b, "go", []byte("x")); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want || calls != tc.calls {
				t.Errorf("got %q after %d runs, want %q after %d", b.String(), calls, tc.want, tc.calls)
			}
		})
	}
}
