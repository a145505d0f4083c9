package render

import (
	"os"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"

	"github.com/retryspec/retryspec/snippets"
)

func tokens(it chroma.Iterator) []chroma.Token {
	var out []chroma.Token
	for tok := it(); tok != chroma.EOF; tok = it() {
		out = append(out, tok)
	}
	return out
}

// lexerSamples is code in every language the pages highlight: each
// snippet language's full program and short form (rendered for a
// contract with no sdk section, so every language), the contract as YAML,
// and a JSON body.
func lexerSamples(t testing.TB) map[string][]string {
	t.Helper()
	c := load(t, "testdata/figures.yaml")
	out := map[string][]string{}
	for _, l := range snippets.Languages() {
		code, err := snippets.Render(c, l.Name)
		if err != nil {
			t.Fatal(err)
		}
		short, err := snippets.Short(c, l.Name)
		if err != nil {
			t.Fatal(err)
		}
		tag := FenceTag(l.Name)
		out[tag] = append(out[tag], string(code), string(short))
	}
	src, err := os.ReadFile("testdata/figures.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out["yaml"] = append(out["yaml"], string(src))
	out["json"] = append(out["json"], `{"error": {"code": "key_still_running", "status": 409, "retry": true, "after": null, "items": [1.5e3, -2]}}`+"\n")
	return out
}

// cuts is text cut at many places, start and end, so the lexers meet code
// that opens mid-string, mid-comment or mid-heredoc, ends inside one, and
// \r\n line ends: the error paths and odd states as well as the plain ones.
func cuts(text string) []string {
	out := []string{text, text[:len(text)/2]}
	step := max(1, len(text)/7)
	for i := step; i < len(text); i += step {
		for !utf8.RuneStart(text[i]) {
			i++
		}
		out = append(out, text[i:], text[:i])
	}
	crlf := []byte{}
	for _, b := range []byte(text) {
		if b == '\n' {
			crlf = append(crlf, '\r')
		}
		crlf = append(crlf, b)
	}
	return append(out, string(crlf))
}

// TestFastLexerMatchesChroma: the fast lexer gives chroma's tokens, one for
// one, for every language the pages highlight, on whole programs and on
// pieces of them.
func TestFastLexerMatchesChroma(t *testing.T) {
	for tag, samples := range lexerSamples(t) {
		l := lexers.Get(tag)
		if l == nil {
			t.Errorf("%s: chroma has no lexer", tag)
			continue
		}
		f := fastLexerFor(l)
		if f == nil {
			t.Errorf("%s: no fast lexer (a chroma lexer of another kind?)", tag)
			continue
		}
		n := 0
		for _, sample := range samples {
			for _, text := range cuts(sample) {
				got := tokens(f.Tokenise(text))
				want := chromaTokens(t, l, text, got)
				n++
				if len(got) != len(want) {
					t.Errorf("%s: %d tokens, chroma %d, for %q", tag, len(got), len(want), text)
				}
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Errorf("%s: token %d is %v, chroma's %v, for %q", tag, i, got[i], want[i], text)
						break
					}
				}
			}
		}
		if n < 15 {
			t.Errorf("%s: %d texts compared, want 15 or more", tag, n)
		}
	}
}

// chromaTokens is chroma's reading of text. Chroma gives each of its
// regular expressions a 250 ms match timeout (regexp.go, needRules), and a
// match cut off by it turns the rest of the text into other tokens, so on
// a saturated machine one reading can differ from chroma's own next one. A
// reading that differs from got is therefore taken again, up to five times:
// a real divergence of the fast lexer is the same every time, a timeout is not.
func chromaTokens(t *testing.T, l chroma.Lexer, text string, got []chroma.Token) []chroma.Token {
	t.Helper()
	var want []chroma.Token
	for range 5 {
		it, err := l.Tokenise(nil, text)
		if err != nil {
			t.Fatal(err)
		}
		want = tokens(it)
		if slices.Equal(want, got) {
			break
		}
	}
	return want
}

// TestCoalesceMatchesChroma: coalesce joins tokens as chroma.Coalesce does.
func TestCoalesceMatchesChroma(t *testing.T) {
	l := lexers.Get("go")
	text := "package main\n\n// a\n// b\nfunc main() { x := \"a\" + \"b\"; _ = x }\n"
	it, err := chroma.Coalesce(l).Tokenise(nil, text)
	if err != nil {
		t.Fatal(err)
	}
	want := tokens(it)
	got := tokens(coalesce(fastLexerFor(l).Tokenise(text)))
	if len(got) != len(want) {
		t.Fatalf("%d tokens, chroma %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("token %d is %v, chroma's %v", i, got[i], want[i])
		}
	}
}

// BenchmarkLexers compares chroma's tokenising with the fast lexer's on
// each snippet language's full program.
func BenchmarkLexers(b *testing.B) {
	for tag, samples := range lexerSamples(b) {
		l := lexers.Get(tag)
		f := fastLexerFor(l)
		b.Run(tag+"/chroma", func(b *testing.B) {
			for b.Loop() {
				it, _ := l.Tokenise(nil, samples[0])
				tokens(it)
			}
		})
		b.Run(tag+"/fast", func(b *testing.B) {
			for b.Loop() {
				tokens(f.Tokenise(samples[0]))
			}
		})
	}
}

// TestReplaceLinesIsReplaceAll: ReplaceLines gives what the whole-page
// ReplaceAll gives, markers at the start, middle and end, with and without
// a final newline, and near misses left alone.
func TestReplaceLinesIsReplaceAll(t *testing.T) {
	repl := []byte("<!-- retryspec:$1 -->")
	for _, md := range []string{
		"",
		"no marker\n",
		"[//]: # (retryspec:tabs)\ntext\n[//]: # (retryspec:tab go)\n```go\nx\n```\n[//]: # (retryspec:tabs-end)",
		"text [//]: # (retryspec:tabs)\n",
		"[//]: # (retryspec:tabs) trailing\n[//]: # (retryspec:tabs)\n",
		"[//]: # (retryspec:tab Go)\n[//]: # (retryspec:tab go)\r\n[//]: # (retryspec:tab go)\n\n",
		"[//]: # (retryspec[//]: # (retryspec:tabs)\n[//]: # (retryspec:tabs-end)\n",
	} {
		want := tabMarker.ReplaceAll([]byte(md), repl)
		if got := ReplaceLines([]byte(md), "[//]: # (retryspec", tabMarker, repl); string(got) != string(want) {
			t.Errorf("ReplaceLines(%q) = %q, ReplaceAll gives %q", md, got, want)
		}
	}
}
