package render

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"golang.org/x/net/html"
)

// Property fuzzing of the Markdown escapers: for any contract text (one
// line, valid UTF-8, no control characters: what the loader lets through),
// the escaped Markdown rendered by a CommonMark + GFM engine that passes raw
// HTML through (as docs platforms do) and read by an HTML5 parser yields
// exactly the text, and no element but the expected ones. Seeds:
// testdata/fuzz/<Target>.

// permissive renders like a docs platform: GFM (tables, autolinks,
// strikethrough, task lists) and raw HTML kept.
var permissive = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))

var markdownSeeds = []string{
	"plain", "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "*a* _b_ **c**", "[x](javascript:alert(1))",
	"`code`", "``", "a | b", "# heading", "1. item", "- item", "> quote", "{process.exit()}", "$(touch x)", "~~gone~~",
	"&amp; &lt; &#60;", "\\", "a\\", "![i](x)", "<!-- c -->", "<a href=x>", "https://example.com", "www.example.com",
	"x@example.com", "[^1]", "---", "===", "  leading", "trailing  ", "[a]: /b", "<http://x>", "1) a", "+ x", "=",
}

func contractText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}

// textOf renders md and returns the text of the elements and the element
// names that appeared.
func textOf(t *testing.T, md string) (text string, elements []string) {
	t.Helper()
	var out bytes.Buffer
	if err := permissive.Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	z := html.NewTokenizer(&out)
	var b strings.Builder
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String(), elements
		case html.TextToken:
			b.Write(z.Text())
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			elements = append(elements, string(name))
		}
	}
}

func lineBreaksAsSpaces(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

func FuzzEscapeMarkdown(f *testing.F) {
	for _, s := range markdownSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !contractText(s) {
			return
		}
		forms := []struct{ md, want string }{
			{"x " + EscapeMarkdown(s) + " y\n", lineBreaksAsSpaces(s)},                   // inside a paragraph
			{"| h |\n| - |\n| x " + EscapeMarkdown(s) + " y |\n", lineBreaksAsSpaces(s)}, // in a table cell
		}
		if strings.TrimLeft(s, " \t") == s {
			// At the start of a line (Markdown trims the line's ends;
			// indentation would make a code block, which is not markup
			// from the text but is not tested here).
			forms = append(forms, struct{ md, want string }{EscapeMarkdown(s) + "\n", strings.TrimSpace(lineBreaksAsSpaces(s))})
		}
		for _, form := range forms {
			got, elems := textOf(t, form.md)
			if !strings.Contains(got, form.want) {
				t.Fatalf("EscapeMarkdown(%q) = %q renders as text %q", s, EscapeMarkdown(s), got)
			}
			for _, e := range elems {
				switch e {
				case "p", "table", "thead", "tbody", "tr", "th", "td":
				case "a": // GFM autolinks a URL in the text: a link, never markup from the text
				default:
					t.Fatalf("EscapeMarkdown(%q) = %q makes a <%s> element", s, EscapeMarkdown(s), e)
				}
			}
		}
	})
}

func FuzzCodeSpan(f *testing.F) {
	for _, s := range append(markdownSeeds, "`", "a`b", "``a``", " `", "` ", " ", "  ", " a ") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !contractText(s) || strings.TrimSpace(s) == "" {
			return
		}
		for _, c := range []struct {
			md   string
			cell bool
		}{
			{"x " + CodeSpan(s) + " y\n", false},
			{"| h |\n| - |\n| " + CellCodeSpan(s) + " |\n", true},
		} {
			var out bytes.Buffer
			if err := permissive.Convert([]byte(c.md), &out); err != nil {
				t.Fatal(err)
			}
			z := html.NewTokenizer(&out)
			inCode, codes := false, []string{}
			for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
				name, _ := z.TagName()
				switch {
				case tt == html.StartTagToken && string(name) == "code":
					inCode = true
					codes = append(codes, "")
				case tt == html.EndTagToken && string(name) == "code":
					inCode = false
				case tt == html.TextToken && inCode:
					codes[len(codes)-1] += string(z.Text())
				case tt == html.StartTagToken && !strings.Contains("p table thead tbody tr th td", string(name)):
					t.Fatalf("code span %q of %q makes a <%s> element", c.md, s, name)
				}
			}
			if len(codes) != 1 || codes[0] != lineBreaksAsSpaces(s) {
				t.Fatalf("code span %q of %q reads back as %q", c.md, s, codes)
			}
		}
	})
}
