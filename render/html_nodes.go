package render

import (
	"bytes"
	"fmt"
	stdhtml "html"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// siteTransformer reshapes each page's AST for the site: disclosures,
// scrolling tables, copy marks inside block quotes, the nodes between tab
// markers grouped into tab panels, and .md links pointed at the .html pages.
type siteTransformer struct{}

func (siteTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	src := reader.Source()
	groupDetails(doc, src)
	wrapTables(doc)
	markInsideQuotes(doc, src)
	groupTabs(doc, src)
	rewriteLinks(doc)
}

// markInsideQuotes moves a copy-lint mark that precedes a block quote into
// it, so in the HTML the mark sits on the line right before the quoted
// text, as it does before a paragraph, not before the <blockquote> tag.
func markInsideQuotes(doc *ast.Document, src []byte) {
	for n := doc.FirstChild(); n != nil; {
		next := n.NextSibling()
		if bq, ok := next.(*ast.Blockquote); ok && strings.HasPrefix(htmlBlockText(n, src), "<!-- retryspec-disable-next-line ") {
			doc.RemoveChild(doc, n)
			bq.InsertBefore(bq, bq.FirstChild(), n)
		}
		n = next
	}
}

func htmlBlockText(n ast.Node, src []byte) string {
	hb, ok := n.(*ast.HTMLBlock)
	if !ok {
		return ""
	}
	var b strings.Builder
	for i := 0; i < hb.Lines().Len(); i++ {
		seg := hb.Lines().At(i)
		b.Write(seg.Value(src))
	}
	if hb.HasClosure() {
		b.Write(hb.ClosureLine.Value(src))
	}
	return strings.TrimSpace(b.String())
}

// siteRenderer renders fenced code with chroma, the tab containers, and
// drops HTML comment blocks (tab and copy-linter markers).
type siteRenderer struct{}

func (siteRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderFencedCode)
	reg.Register(ast.KindCodeSpan, renderCodeSpan)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(kindTabs, renderTabs)
	reg.Register(kindTabPanel, renderTabPanel)
	reg.Register(kindDetails, renderDetails)
	reg.Register(kindTableWrap, renderTableWrap)
	reg.Register(ast.KindHeading, renderHeading)
}

// renderHeading writes a heading with its anchor link, shown on hover or
// focus, so a reader can link to the section.
func renderHeading(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	h := n.(*ast.Heading)
	id, _ := h.AttributeString("id")
	idb, _ := id.([]byte)
	if entering {
		fmt.Fprintf(w, "<h%d", h.Level)
		if len(idb) > 0 {
			fmt.Fprintf(w, ` id="%s"`, htmlEscape(string(idb)))
		}
		w.WriteByte('>')
		return ast.WalkContinue, nil
	}
	if len(idb) > 0 && h.Level > 1 {
		fmt.Fprintf(w, ` <a class="anchor" href="#%s" aria-label="Link to this section: %s">#</a>`, htmlEscape(string(idb)), htmlEscape(plainText(h, src)))
	}
	fmt.Fprintf(w, "</h%d>\n", h.Level)
	return ast.WalkContinue, nil
}

func htmlEscape(s string) string { return stdhtml.EscapeString(s) }

func renderFencedCode(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	cb := n.(*ast.FencedCodeBlock)
	lang := string(cb.Language(src))
	tag := Slug(lang)
	fmt.Fprintf(w, `<div class="code" data-lang="%s">`, tag)
	if h, ok := cb.Attribute(highlightedAttr); ok {
		w.Write(h.([]byte))
	} else if err := highlight(w, lang, codeText(cb, src)); err != nil {
		return ast.WalkStop, err
	}
	w.WriteString("</div>\n")
	return ast.WalkSkipChildren, nil
}

// renderCodeSpan writes inline code as goldmark does, plus a <wbr> after
// each underscore and slash, so a long code such as
// concurrent_idempotent_requests wraps at its word boundaries in a narrow
// table cell instead of between arbitrary letters.
func renderCodeSpan(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		w.WriteString("</code>")
		return ast.WalkContinue, nil
	}
	w.WriteString("<code>")
	// Escaped straight into w: a buffer per span cost 4 KB each, 200 MB
	// on the endpoint table of a 50,000-endpoint contract.
	bw := &wbrWriter{BufWriter: w}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		t, ok := c.(*ast.Text)
		if !ok {
			continue
		}
		value := t.Segment.Value(src)
		if bytes.HasSuffix(value, []byte("\n")) {
			value = append(value[:len(value)-1:len(value)-1], ' ')
		}
		html.DefaultWriter.RawWrite(bw, value)
	}
	return ast.WalkSkipChildren, nil
}

// wbrWriter passes escaped code through to the page, adding a <wbr> after
// each underscore or slash that is neither the first nor the last byte. The
// break is held back until the next byte arrives, which is how it knows the
// byte was not the last.
type wbrWriter struct {
	util.BufWriter
	written int
	pending bool
}

func (w *wbrWriter) WriteByte(c byte) error {
	if w.pending {
		w.BufWriter.WriteString("<wbr>")
		w.pending = false
	}
	w.BufWriter.WriteByte(c)
	w.pending = (c == '_' || c == '/') && w.written > 0
	w.written++
	return nil
}

func (w *wbrWriter) Write(p []byte) (int, error) {
	for _, c := range p {
		w.WriteByte(c)
	}
	return len(p), nil
}

func (w *wbrWriter) WriteString(s string) (int, error) {
	for i := 0; i < len(s); i++ {
		w.WriteByte(s[i])
	}
	return len(s), nil
}

func (w *wbrWriter) WriteRune(r rune) (int, error) {
	var b [utf8.UTFMax]byte
	return w.Write(b[:utf8.EncodeRune(b[:], r)])
}

// renderHTMLBlock drops raw HTML and the tab markers, and keeps each
// copy-lint mark as a comment on the line before the text it covers (the
// form copylint reads in HTML).
func renderHTMLBlock(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	switch t := htmlBlockText(n, src); {
	case strings.HasPrefix(t, "<!-- retryspec-disable-next-line ") && strings.HasSuffix(t, " -->") && !strings.Contains(t[4:len(t)-4], "--"+">") && !strings.Contains(t, "\n"):
		w.WriteString(t + "\n")
	case !strings.HasPrefix(t, "<!--"):
		w.WriteString("<!-- raw HTML omitted -->\n")
	}
	return ast.WalkSkipChildren, nil
}
