package render

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The HTML site is goldmark's output of the Markdown pages, extended as
// Hugo's markup/goldmark is: one file per concern.
//
//   - html.go: the configured engine, the page conversion and its outline
//   - html_layout.go: the site layout around each page (sidebar, contents, neighbours)
//   - html_nodes.go: the AST transformer and the node renderers (headings, code, raw HTML)
//   - html_tabs.go: language tabs from the tab markers
//   - html_details.go: the "Full program" disclosures
//   - html_tables.go: tables that scroll in their own box
//   - html_links.go: .md links rewritten to the .html pages
//   - highlight.go: chroma highlighting of fenced code and its style sheet
//   - lexer.go: chroma's tokenising without the rule runs that cannot match

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

// ReplaceLines is re.ReplaceAll(md, repl) for an expression of the form
// (?m)^...$ that matches within one line, and only lines that begin with
// prefix: it runs re on those lines alone. On a page of long programs
// with a few markers, the whole-page pass cost more than the page's
// Markdown parse.
func ReplaceLines(md []byte, prefix string, re *regexp.Regexp, repl []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(md); {
		j := bytes.Index(md[i:], []byte(prefix))
		if j < 0 {
			break
		}
		start := i + j
		end := len(md)
		if k := bytes.IndexByte(md[start:], '\n'); k >= 0 {
			end = start + k
		}
		if line := md[start:end]; (start == 0 || md[start-1] == '\n') && re.Match(line) {
			out = append(out, md[last:start]...)
			out = append(out, re.ReplaceAll(line, repl)...)
			last = end
		}
		i = end
	}
	if out == nil {
		return md
	}
	return append(out, md[last:]...)
}

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
	p := parsePage(md)
	if err := highlightCode([]*parsedPage{&p}, NewHighlighter()); err != nil {
		return nil, nil, err
	}
	return p.render()
}

// parsedPage is one page's Markdown, parsed and transformed, with its
// fenced code blocks in document order.
type parsedPage struct {
	path string // for errors; "" for a lone page
	md   []byte
	doc  ast.Node
	code []*ast.FencedCodeBlock
}

func parsePage(md []byte) parsedPage {
	// Most pages carry no marker: skip the regular expressions' passes.
	if bytes.HasPrefix(md, []byte("---\n")) {
		md = frontMatter.ReplaceAll(md, nil)
	}
	md = ReplaceLines(md, "[//]: # (retryspec", tabMarker, []byte("<!-- retryspec:$1 -->"))
	md = ReplaceLines(md, "[//]: # (retryspec", copyMarker, []byte("<!-- $1 -->"))
	p := parsedPage{md: md, doc: markdownEngine.Parser().Parse(text.NewReader(md))}
	_ = ast.Walk(p.doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if cb, ok := n.(*ast.FencedCodeBlock); ok && entering {
			p.code = append(p.code, cb)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return p
}

// render writes the page's HTML (its code highlighted by highlightCode)
// and returns its outline.
func (p *parsedPage) render() ([]byte, outline, error) {
	var b bytes.Buffer
	b.Grow(len(p.md) * 2)
	if err := markdownEngine.Renderer().Render(&b, p.md, p.doc); err != nil {
		return nil, nil, err
	}
	return b.Bytes(), pageOutline(p.doc, p.md), nil
}

// highlightedAttr holds a fenced code block's highlighted HTML once
// highlightCode has run; renderFencedCode writes it.
var highlightedAttr = []byte("retryspec-highlighted")

// highlightCode highlights the fenced code of the pages through h, each
// distinct block once (a language's program can appear on more than one
// page), the blocks spread over the cores longest first so that the
// Retrying page's six full programs do not all wait on one core.
func highlightCode(pages []*parsedPage, h *Highlighter) error {
	type block struct {
		lang  string
		code  []byte
		entry *highlighted
		page  string // the first page that shows it, for errors
		uses  []*ast.FencedCodeBlock
	}
	var blocks []*block
	byKey := map[string]*block{}
	for _, p := range pages {
		for _, cb := range p.code {
			lang := string(cb.Language(p.md))
			code := codeText(cb, p.md)
			key := blockKey(lang, code)
			b := byKey[key]
			if b == nil {
				b = &block{lang: lang, code: code, page: p.path}
				byKey[key] = b
				blocks = append(blocks, b)
			}
			b.uses = append(b.uses, cb)
		}
	}
	// Longest first; the stable sort keeps equal lengths in page order. A
	// block another goroutine has claimed (h prepared it) is waited for
	// after the rest are done.
	slices.SortStableFunc(blocks, func(a, b *block) int { return len(b.code) - len(a.code) })
	parallel(len(blocks), func(i int) {
		b := blocks[i]
		var mine bool
		b.entry, mine = h.claim(b.lang, b.code)
		b.entry.shown.Store(true)
		if mine {
			b.entry.fill(b.lang, b.code)
		}
	})
	for _, b := range blocks {
		<-b.entry.done
		if b.entry.err != nil && b.page != "" {
			return fmt.Errorf("%s: %w", b.page, b.entry.err)
		} else if b.entry.err != nil {
			return b.entry.err
		}
		for _, cb := range b.uses {
			cb.SetAttribute(highlightedAttr, b.entry.html)
		}
	}
	return nil
}

// codeText is a fenced code block's content.
func codeText(cb *ast.FencedCodeBlock, src []byte) []byte {
	var code []byte
	for i := 0; i < cb.Lines().Len(); i++ {
		seg := cb.Lines().At(i)
		code = append(code, seg.Value(src)...)
	}
	return code
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
