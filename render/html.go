package render

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	stdhtml "html"
	htmltemplate "html/template"
	"path"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Chroma styles for the two themes; the dark one applies under
// prefers-color-scheme: dark.
const (
	lightStyle = "github"
	darkStyle  = "github-dark"
)

var chromaFormatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.WithAllClasses(true), chromahtml.WithPreWrapper(focusablePre{}))

// focusablePre makes each code block focusable: a block wider than the
// screen scrolls, and keyboard users must be able to reach and scroll it.
type focusablePre struct{}

func (focusablePre) Start(code bool, styleAttr string) string {
	if code {
		return `<pre class="chroma" tabindex="0"><code>`
	}
	return `<pre class="chroma" tabindex="0">`
}

func (focusablePre) End(code bool) string {
	if code {
		return "</code></pre>"
	}
	return "</pre>"
}

// markdownEngine is the one configured goldmark instance: GFM tables,
// strikethrough and task lists (no linkify: a URL in contract text stays
// text), stable heading anchors, build-time highlighting, language tabs
// from the tab markers, and .md links turned into .html. Raw HTML is never
// passed through (goldmark's default), so the HTML site cannot carry
// markup that the Markdown escaping missed.
var markdownEngine = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList),
	goldmark.WithParserOptions(
		parser.WithAutoHeadingID(),
		parser.WithASTTransformers(util.Prioritized(siteTransformer{}, 100)),
	),
	goldmark.WithRendererOptions(
		renderer.WithNodeRenderers(util.Prioritized(siteRenderer{}, 100)),
	),
)

// tabMarker is a tab marker as the Markdown carries it: a link reference
// definition, which CommonMark, GFM and MDX all parse and never show.
var tabMarker = regexp.MustCompile(`(?m)^\[//\]: # \(retryspec:(tabs|tab [a-z0-9-]+|tabs-end)\)$`)

// frontMatter is a YAML front matter block at the top of a page, for docs
// platforms; the HTML site has no use for it.
var frontMatter = regexp.MustCompile(`\A---\n(?s:.*?)\n---\n`)

// copyMarker is a copy-lint suppression as the Markdown carries it (see
// CopyMarker); the HTML keeps it as the comment form on the line before
// the quoted text.
var copyMarker = regexp.MustCompile(`(?m)^\[//\]: # \((retryspec-disable-next-line [^()\n]*)\)$`)

// HTMLBody converts one page's Markdown to HTML (without the layout).
func HTMLBody(md []byte) ([]byte, error) {
	body, _, err := convert(md)
	return body, err
}

// Heading is one h2 or h3 of a page, for its contents list and the search
// index; Text is the section's prose (code left out).
type Heading struct {
	Level    int
	ID, Name string
	Text     string
	// InTabs: the heading names a language tab, not a section.
	InTabs bool
}

// outline is a page's headings in order; the first entry (Level 1, no ID)
// holds the text above the first h2.
type outline []Heading

// convert renders one page's Markdown to HTML and returns its outline.
func convert(md []byte) ([]byte, outline, error) {
	md = frontMatter.ReplaceAll(md, nil)
	md = tabMarker.ReplaceAll(md, []byte("<!-- retryspec:$1 -->"))
	md = copyMarker.ReplaceAll(md, []byte("<!-- $1 -->"))
	doc := markdownEngine.Parser().Parse(text.NewReader(md))
	var b bytes.Buffer
	if err := markdownEngine.Renderer().Render(&b, md, doc); err != nil {
		return nil, nil, err
	}
	return b.Bytes(), pageOutline(doc, md), nil
}

// pageOutline collects the h2 and h3 headings and the prose under each,
// up to what the search index keeps of a section.
func pageOutline(doc ast.Node, src []byte) outline {
	out := outline{{Level: 1}}
	var text strings.Builder
	flush := func() {
		out[len(out)-1].Text = text.String()
		text.Reset()
	}
	var walk func(n ast.Node, inTabs bool)
	walk = func(n ast.Node, inTabs bool) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Heading:
				if c.Level >= 2 && c.Level <= 3 {
					flush()
					id, _ := c.AttributeString("id")
					idb, _ := id.([]byte)
					out = append(out, Heading{Level: c.Level, ID: string(idb), Name: plainText(c, src), InTabs: inTabs})
				}
				continue
			case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
				continue
			case *tabsNode:
				walk(c, true)
				continue
			}
			if c.Type() == ast.TypeBlock && c.HasChildren() && c.FirstChild().Type() == ast.TypeInline {
				if text.Len() <= maxSectionText {
					if text.Len() > 0 {
						text.WriteByte(' ')
					}
					text.WriteString(plainText(c, src))
				}
				continue
			}
			walk(c, inTabs)
		}
	}
	walk(doc, false)
	flush()
	return out
}

// plainText is the text of a node's inline children.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

// NavItem is one link of the site navigation.
type NavItem struct {
	Title, Href string
	Current     bool
	// Sub: a rule page, listed under the rule list while it is shown.
	Sub bool
}

// navGroup is one section of the sidebar ("" for the integrator pages).
type navGroup struct {
	Title string
	Items []NavItem
}

type layoutData struct {
	Title       string
	Description string
	SiteName    string
	Root        string
	Groups      []navGroup
	TOC         []Heading
	Prev, Next  *NavItem
	Content     htmltemplate.HTML
	Source      string
}

// HTML renders the site: one HTML page per Markdown page, the assets, the
// generated highlighting style sheet and the search index. The pictures are
// the same files as the Markdown's.
func HTML(in Inputs, pages []Page, t *Templates) ([]File, error) {
	// Pages convert independently; spread them over the cores, keeping
	// the output in page order so the result stays deterministic.
	bodies := make([][]byte, len(pages))
	outlines := make([]outline, len(pages))
	errs := make([]error, len(pages))
	parallel(len(pages), func(i int) {
		bodies[i], outlines[i], errs[i] = convert(pages[i].Markdown)
		if errs[i] != nil {
			errs[i] = fmt.Errorf("%s: %w", pages[i].Path, errs[i])
		}
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	files := make([]File, len(pages))
	parallel(len(pages), func(i int) {
		files[i], errs[i] = htmlPage(in, pages, i, bodies[i], outlines[i], t)
	})
	// A mistake in the layout fails every page the same way: report the
	// template error once, not once per page.
	for _, err := range errs {
		var te *TemplateError
		if errors.As(err, &te) {
			return nil, te
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, name := range sortedKeys(t.assets) {
		files = append(files, File{Path: "assets/" + name, Data: t.assets[name]})
	}
	css, err := ChromaCSS()
	if err != nil {
		return nil, err
	}
	files = append(files, File{Path: "assets/chroma.css", Data: css})
	files = append(files, File{Path: SearchIndex, Data: searchIndex(pages, outlines)})
	return files, nil
}

func parallel(n int, f func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// siteNav is the sidebar as seen from page cur: the integrator pages, then
// the maintainers' section with the rule list (and the current rule page,
// when it is one; 39 rule links on every page would bury the rest).
func siteNav(pages []Page, cur int) []navGroup {
	root := strings.Repeat("../", strings.Count(pages[cur].Path, "/"))
	groups := []navGroup{{}}
	for i, p := range pages {
		item := NavItem{Title: navTitle(p), Href: root + HTMLPath(p.Path), Current: i == cur}
		switch {
		case p.Group == "":
			groups[0].Items = append(groups[0].Items, item)
		case p.Path == RulesIndex:
			groups = append(groups, navGroup{Title: p.Group, Items: []NavItem{item}})
		case i == cur:
			item.Sub = true
			groups[len(groups)-1].Items = append(groups[len(groups)-1].Items, item)
		}
	}
	return groups
}

// neighbours are the previous and next pages in reading order, within the
// page's own sidebar section.
func neighbours(pages []Page, cur int) (prev, next *NavItem) {
	root := strings.Repeat("../", strings.Count(pages[cur].Path, "/"))
	link := func(i int) *NavItem {
		if i < 0 || i >= len(pages) || pages[i].Group != pages[cur].Group {
			return nil
		}
		return &NavItem{Title: navTitle(pages[i]), Href: root + HTMLPath(pages[i].Path)}
	}
	return link(cur - 1), link(cur + 1)
}

// htmlPage renders one page into the layout.
func htmlPage(in Inputs, pages []Page, i int, body []byte, ol outline, t *Templates) (File, error) {
	p := pages[i]
	root := strings.Repeat("../", strings.Count(p.Path, "/"))
	var toc []Heading
	for _, h := range ol[1:] {
		if !h.InTabs && h.ID != "" {
			toc = append(toc, h)
		}
	}
	prev, next := neighbours(pages, i)
	var b bytes.Buffer
	err := t.layout.Execute(&b, layoutData{
		Title:       p.Title,
		Description: p.Description,
		SiteName:    in.Contract.API.Name,
		Root:        root,
		Groups:      siteNav(pages, i),
		TOC:         toc,
		Prev:        prev,
		Next:        next,
		// Trusted: goldmark output of escaped Markdown, raw HTML off.
		Content: htmltemplate.HTML(body),
		Source:  path.Base(in.Contract.File),
	})
	if err != nil {
		return File{}, fmt.Errorf("layout for %s: %w", p.Path, templateError(err))
	}
	return File{Path: HTMLPath(p.Path), Data: b.Bytes()}, nil
}

func navTitle(p Page) string {
	if p.Path == "index.md" {
		return "Overview"
	}
	return p.Title
}

// HTMLPath maps a Markdown page path to its HTML page.
func HTMLPath(md string) string {
	return strings.TrimSuffix(md, ".md") + ".html"
}

// ChromaCSS is the highlighting style sheet (see highlight.css). It is
// generated from chroma's styles by TestChromaCSSIsCurrent (-update) and
// embedded, rather than computed at run time, because importing chroma's
// styles package parses every bundled style at process start: about 6 ms of
// every command's start-up, for a file that only changes with chroma.
func ChromaCSS() ([]byte, error) { return chromaCSS, nil }

//go:embed highlight.css
var chromaCSS []byte

// classStyle is the style handed to the formatter. With classes on, the
// HTML carries class names only and never reads the style's colours.
var classStyle = chroma.MustNewStyle("retryspec-classes", chroma.StyleEntries{})

// Tab markers, after HTMLBody turned the Markdown's link reference
// definitions into comments: the groups of nodes the site shows as tabs.
const (
	tabsStart = "<!-- retryspec:tabs -->"
	tabPrefix = "<!-- retryspec:tab "
	tabsEnd   = "<!-- retryspec:tabs-end -->"
)

var (
	kindTabs     = ast.NewNodeKind("Tabs")
	kindTabPanel = ast.NewNodeKind("TabPanel")
)

type tabsNode struct{ ast.BaseBlock }

func (n *tabsNode) Kind() ast.NodeKind             { return kindTabs }
func (n *tabsNode) Dump(src []byte, level int)     { ast.DumpHelper(n, src, level, nil, nil) }
func (n *tabPanelNode) Kind() ast.NodeKind         { return kindTabPanel }
func (n *tabPanelNode) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

type tabPanelNode struct {
	ast.BaseBlock
	lang string
}

// siteTransformer groups the nodes between tab markers into tab panels and
// points .md links at the .html pages.
type siteTransformer struct{}

func (siteTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	src := reader.Source()
	groupDetails(doc, src)
	wrapTables(doc)
	markInsideQuotes(doc, src)
	var tabs *tabsNode
	var panel *tabPanelNode
	for n := doc.FirstChild(); n != nil; {
		next := n.NextSibling()
		marker := htmlBlockText(n, src)
		switch {
		case marker == tabsStart:
			tabs = &tabsNode{}
			doc.ReplaceChild(doc, n, tabs)
			panel = nil
		case tabs != nil && strings.HasPrefix(marker, tabPrefix):
			lang := Slug(strings.TrimSuffix(strings.TrimPrefix(marker, tabPrefix), " -->"))
			panel = &tabPanelNode{lang: lang}
			tabs.AppendChild(tabs, panel)
			doc.RemoveChild(doc, n)
		case tabs != nil && marker == tabsEnd:
			doc.RemoveChild(doc, n)
			tabs, panel = nil, nil
		case panel != nil:
			doc.RemoveChild(doc, n)
			panel.AppendChild(panel, n)
		}
		n = next
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n.(*ast.Link); ok && entering {
			l.Destination = mdToHTML(l.Destination)
		}
		return ast.WalkContinue, nil
	})
}

// detailsOpen is the opening of a disclosure as the Markdown writes it:
// <details> and its <summary> on the next line (one HTML block).
var detailsOpen = regexp.MustCompile(`^<details>\s*<summary>([^<]*)</summary>$`)

var kindDetails = ast.NewNodeKind("Details")

type detailsNode struct {
	ast.BaseBlock
	summary string
}

func (n *detailsNode) Kind() ast.NodeKind         { return kindDetails }
func (n *detailsNode) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// groupDetails turns the <details>/<summary> ... </details> HTML blocks
// of the Markdown (the "Full program" disclosures) into a node holding the
// blocks between them, since the site passes no raw HTML through.
func groupDetails(doc *ast.Document, src []byte) {
	var open *detailsNode
	for n := doc.FirstChild(); n != nil; {
		next := n.NextSibling()
		marker := htmlBlockText(n, src)
		switch {
		case open == nil && detailsOpen.MatchString(marker):
			open = &detailsNode{summary: unescapeMarkdown(detailsOpen.FindStringSubmatch(marker)[1])}
			doc.ReplaceChild(doc, n, open)
		case open != nil && marker == "</details>":
			doc.RemoveChild(doc, n)
			open = nil
		case open != nil:
			doc.RemoveChild(doc, n)
			open.AppendChild(open, n)
		}
		n = next
	}
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

var kindTableWrap = ast.NewNodeKind("TableWrap")

// tableWrapNode holds one table: wide tables scroll in their own box,
// never the page.
type tableWrapNode struct{ ast.BaseBlock }

func (n *tableWrapNode) Kind() ast.NodeKind         { return kindTableWrap }
func (n *tableWrapNode) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

func wrapTables(doc *ast.Document) {
	var tables []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && n.Kind() == east.KindTable {
			tables = append(tables, n)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	for _, t := range tables {
		w := &tableWrapNode{}
		t.Parent().ReplaceChild(t.Parent(), t, w)
		w.AppendChild(w, t)
	}
}

func renderTableWrap(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		w.WriteString(`<div class="table-wrap" tabindex="0" role="region" aria-label="Table, scrolls sideways">` + "\n")
	} else {
		w.WriteString("</div>\n")
	}
	return ast.WalkContinue, nil
}

// unescapeMarkdown drops the backslashes EscapeMarkdown added.
func unescapeMarkdown(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(markdownSpecial+"#+-=>.)", s[i+1]) >= 0 {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mdToHTML rewrites a relative link to a .md page (with an optional
// fragment) to the .html page.
func mdToHTML(dest []byte) []byte {
	s := string(dest)
	if strings.Contains(s, "://") || strings.HasPrefix(s, "#") {
		return dest
	}
	page, frag, _ := strings.Cut(s, "#")
	if !strings.HasSuffix(page, ".md") {
		return dest
	}
	out := strings.TrimSuffix(page, ".md") + ".html"
	if frag != "" {
		out += "#" + frag
	}
	return []byte(out)
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

func renderDetails(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		fmt.Fprintf(w, "<details class=\"full-program\">\n<summary>%s</summary>\n", htmlEscape(n.(*detailsNode).summary))
	} else {
		w.WriteString("</details>\n")
	}
	return ast.WalkContinue, nil
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
	var code bytes.Buffer
	for i := 0; i < cb.Lines().Len(); i++ {
		seg := cb.Lines().At(i)
		code.Write(seg.Value(src))
	}
	tag := Slug(lang)
	fmt.Fprintf(w, `<div class="code" data-lang="%s">`, tag)
	if err := highlight(w, lang, code.Bytes()); err != nil {
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

func renderTabs(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		w.WriteString(`<div class="tabs" data-tabs>` + "\n")
	} else {
		w.WriteString("</div>\n")
	}
	return ast.WalkContinue, nil
}

func renderTabPanel(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	p := n.(*tabPanelNode)
	if entering {
		fmt.Fprintf(w, `<section class="tab-panel" id="tab-%s" data-lang="%s">`+"\n", p.lang, p.lang)
	} else {
		w.WriteString("</section>\n")
	}
	return ast.WalkContinue, nil
}
