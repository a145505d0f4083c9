package render

import (
	"html"
	"regexp"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/yuin/goldmark/util"
)

// styledClasses are the chroma classes highlight.css styles differently
// from plain code text in either theme. Only these get a span: chroma's
// own formatter wraps every line in two spans and every token, whitespace
// included, in one, which made the Retrying page over 300 KB of markup for
// 1,200 lines of code; the text is the same either way.
var styledClasses = func() map[string]bool {
	m := map[string]bool{}
	rule := regexp.MustCompile(`\.chroma \.([a-z0-9]+) \{([^}]*)\}`)
	base := regexp.MustCompile(`\.chroma \{(?:[^}]*;)? *color: (#[0-9a-f]+)`)
	light, dark, _ := strings.Cut(string(chromaCSS), "@media")
	// The light theme sets no text colour for code: it is the page's.
	for _, section := range []struct{ css, text string }{{light, "#1f2328"}, {dark, ""}} {
		text := section.text
		if b := base.FindStringSubmatch(section.css); b != nil {
			text = b[1]
		}
		for _, r := range rule.FindAllStringSubmatch(section.css, -1) {
			decl := strings.TrimSpace(r[2])
			if decl == "color: "+text || decl == "color: "+text+";" {
				continue
			}
			if strings.Contains(decl, "color") || strings.Contains(decl, "font-") || strings.Contains(decl, "text-decoration") {
				m[r[1]] = true
			}
		}
	}
	return m
}()

// tokenClass is the styled class of a token type: its own, else its
// sub-category's, else its category's ("" for plain text).
func tokenClass(tt chroma.TokenType) string {
	for _, t := range []chroma.TokenType{tt, tt.SubCategory(), tt.Category()} {
		if c := chroma.StandardTypes[t]; c != "" && styledClasses[c] {
			return c
		}
	}
	return ""
}

// highlight writes code as a focusable <pre class="chroma"> (a block wider
// than the screen scrolls, and keyboard users must reach it) with a span
// per run of same-class tokens.
func highlight(w util.BufWriter, lang string, code []byte) error {
	lexer := lexers.Get(lang)
	if lexer == nil {
		lexer = lexers.Fallback
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, string(code))
	if err != nil {
		return err
	}
	w.WriteString(`<pre class="chroma" tabindex="0"><code>`)
	open := ""
	var run strings.Builder
	flush := func() {
		if run.Len() == 0 {
			return
		}
		if open != "" {
			w.WriteString(`<span class="` + open + `">`)
		}
		w.WriteString(html.EscapeString(run.String()))
		if open != "" {
			w.WriteString("</span>")
		}
		run.Reset()
	}
	for tok := it(); tok != chroma.EOF; tok = it() {
		c := tokenClass(tok.Type)
		if strings.TrimSpace(tok.Value) == "" && run.Len() > 0 {
			c = open // whitespace joins the run it sits in
		}
		if c != open {
			flush()
			open = c
		}
		run.WriteString(tok.Value)
	}
	flush()
	w.WriteString("</code></pre>")
	return nil
}
