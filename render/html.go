package render

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"path"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
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

// HTMLBody converts one page's Markdown to HTML (without the layout).
func HTMLBody(md []byte) ([]byte, error) {
	md = frontMatter.ReplaceAll(md, nil)
	md = tabMarker.ReplaceAll(md, []byte("<!-- retryspec:$1 -->"))
	var b bytes.Buffer
	if err := markdownEngine.Convert(md, &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// NavItem is one link of the site navigation.
type NavItem struct {
	Title, Href string
	Current     bool
}

type layoutData struct {
	Title    string
	SiteName string
	Root     string
	Nav      []NavItem
	Content  htmltemplate.HTML
	Source   string
}

// HTML renders the site: one HTML page per Markdown page, the assets and
// the generated highlighting style sheet. The pictures are the same files
// as the Markdown's.
func HTML(in Inputs, pages []Page, t *Templates) ([]File, error) {
	var nav []NavItem
	for _, p := range pages {
		if strings.Contains(p.Path, "/") {
			continue // rule pages are reached from the index
		}
		nav = append(nav, NavItem{Title: navTitle(p), Href: HTMLPath(p.Path)})
	}
	// Pages convert independently; spread them over the cores, keeping
	// the output in page order so the result stays deterministic.
	files := make([]File, len(pages))
	errs := make([]error, len(pages))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(pages)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				files[i], errs[i] = htmlPage(in, pages[i], nav, t)
			}
		}()
	}
	for i := range pages {
		next <- i
	}
	close(next)
	wg.Wait()
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
	return files, nil
}

// htmlPage renders one page into the layout.
func htmlPage(in Inputs, p Page, nav []NavItem, t *Templates) (File, error) {
	body, err := HTMLBody(p.Markdown)
	if err != nil {
		return File{}, fmt.Errorf("%s: %w", p.Path, err)
	}
	root := strings.Repeat("../", strings.Count(p.Path, "/"))
	items := make([]NavItem, len(nav))
	for i, n := range nav {
		items[i] = NavItem{Title: n.Title, Href: root + n.Href, Current: n.Href == HTMLPath(p.Path)}
	}
	var b bytes.Buffer
	err = t.layout.Execute(&b, layoutData{
		Title:    p.Title,
		SiteName: in.Contract.API.Name,
		Root:     root,
		Nav:      items,
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

// highlight writes code as chroma HTML with classes.
func highlight(w util.BufWriter, lang string, code []byte) error {
	lexer := lexers.Get(lang)
	if lexer == nil {
		lexer = lexers.Fallback
	}
	lexer = chroma.Coalesce(lexer)
	it, err := lexer.Tokenise(nil, string(code))
	if err != nil {
		return err
	}
	return chromaFormatter.Format(w, classStyle, it)
}

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
}

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

func renderHTMLBlock(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering && !strings.HasPrefix(htmlBlockText(n, src), "<!--") {
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
