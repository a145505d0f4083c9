package site

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"go.yaml.in/yaml/v3"
	nethtml "golang.org/x/net/html"
)

// payloadWords are the texts the markup contract wraps in emphasis, links
// and tags; none of them may end up as the content of such an element.
var payloadWords = []string{"em", "b", "bold", "really", "under", "strike", "l", "x", "i"}

// TestEscaping builds a contract whose free-text fields carry HTML, Markdown,
// MDX and table syntax, and checks that none of it survives as markup: in
// the HTML site, in the Markdown (rendered by a permissive GFM renderer that
// lets raw HTML through, as some docs platforms do) and in the SVGs.
func TestEscaping(t *testing.T) {
	files := checkEscapedBuild(t, "testdata/markup.yaml")
	permissive := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	// The payload must still be shown, as text.
	if !bytes.Contains(files["index.html"], []byte("&lt;script&gt;alert(&#39;n&#39;)&lt;/script&gt;")) {
		t.Error("index.html does not show the API name as text")
	}
	checkHeaderCell(t, files, permissive)
}

// TestEscapingGraphQL: a GraphQL contract's pages (the mutation, its POST,
// the conflicts as error entries) carry its markup-laden messages and
// example values as text only, in every generated file.
func TestEscapingGraphQL(t *testing.T) {
	files := checkEscapedBuild(t, "testdata/markup-graphql.yaml")
	for _, p := range []string{"idempotency.html", "errors.html"} {
		if !bytes.Contains(files[p], []byte("&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(22)&lt;/script&gt;")) {
			t.Errorf("%s does not show the conflict's message as text", p)
		}
	}
	if !bytes.Contains(files["idempotency.html"], []byte("&lt;/script&gt;&lt;img src=x onerror=alert(26)&gt;")) {
		t.Error("idempotency.html does not show the mutation's argument as text")
	}
}

// checkEscapedBuild builds contract and checks that no markup of it
// survives in any HTML, Markdown or SVG file; it returns the files.
func checkEscapedBuild(t *testing.T, contract string) map[string][]byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Build(context.Background(), Options{Contract: contract, Out: out}); err != nil {
		t.Fatal(err)
	}
	files := snapshot(t, out)
	permissive := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	checked := 0
	for p, b := range files {
		switch path.Ext(p) {
		case ".html":
			checkHTML(t, p, b, true)
		case ".md":
			b = checkFrontMatter(t, p, b)
			var buf bytes.Buffer
			if err := permissive.Convert(b, &buf); err != nil {
				t.Fatal(err)
			}
			checkHTML(t, p+" (as GFM with raw HTML allowed)", buf.Bytes(), false)
			checkMDX(t, p, b)
		case ".svg":
			checkSVG(t, p, b)
		default:
			continue
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("checked only %d files", checked)
	}
	return files
}

func checkHeaderCell(t *testing.T, files map[string][]byte, permissive goldmark.Markdown) {
	t.Helper()
	// The header name "Idem|Key" (a legal token) stays whole in its table
	// cell: GFM splits a row at an unescaped | even inside a code span, and
	// drops the cells past the header's count, so the cell count alone
	// cannot tell (issue 13 item 8).
	for _, p := range []string{"idempotency.html", "markdown/idempotency.md"} {
		b := files[p]
		if path.Ext(p) == ".md" {
			var buf bytes.Buffer
			if err := permissive.Convert(b, &buf); err != nil {
				t.Fatal(err)
			}
			b = buf.Bytes()
		}
		doc, err := nethtml.Parse(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if txt := textOf(doc); !strings.Contains(txt, "Add the Idem|Key header.") {
			t.Errorf("%s: the missing-key row does not read \"Add the Idem|Key header.\" (a | cut the cell)", p)
		}
	}
}

func checkHTML(t *testing.T, name string, b []byte, layout bool) {
	t.Helper()
	doc, err := nethtml.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var walk func(n *nethtml.Node)
	walk = func(n *nethtml.Node) {
		if n.Type == nethtml.ElementNode {
			for _, a := range n.Attr {
				if strings.HasPrefix(a.Key, "on") {
					t.Errorf("%s: <%s %s=%q> carries an event handler", name, n.Data, a.Key, a.Val)
				}
				if (a.Key == "href" || a.Key == "src") && strings.HasPrefix(strings.ToLower(strings.TrimSpace(a.Val)), "javascript:") {
					t.Errorf("%s: <%s %s=%q>", name, n.Data, a.Key, a.Val)
				}
			}
			switch n.Data {
			case "script":
				if !layout || attr(n, "src") == "" || textOf(n) != "" {
					t.Errorf("%s: a <script> element survived: %s", name, outerHTML(n))
				}
			case "img":
				if src := attr(n, "src"); !strings.HasSuffix(src, ".svg") {
					t.Errorf("%s: unexpected <img src=%q>", name, src)
				}
			case "svg", "iframe", "object", "embed", "style", "del", "s":
				t.Errorf("%s: <%s> survived", name, n.Data)
			case "em", "strong", "a":
				if slices.Contains(payloadWords, strings.TrimSpace(textOf(n))) {
					t.Errorf("%s: contract text became <%s>: %s", name, n.Data, outerHTML(n))
				}
			case "table":
				checkTable(t, name, n)
			}
		}
		if n.Type == nethtml.CommentNode && strings.Contains(n.Data, " c ") {
			t.Errorf("%s: a contract comment survived: <!--%s-->", name, n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
}

// checkTable: every row has as many cells as the header, so no contract
// text split a cell.
func checkTable(t *testing.T, name string, table *nethtml.Node) {
	t.Helper()
	want := -1
	var rows func(n *nethtml.Node)
	rows = func(n *nethtml.Node) {
		if n.Type == nethtml.ElementNode && n.Data == "tr" {
			cells := 0
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == nethtml.ElementNode && (c.Data == "td" || c.Data == "th") {
					cells++
				}
			}
			if want < 0 {
				want = cells
			} else if cells != want {
				t.Errorf("%s: table row has %d cells, header %d: %s", name, cells, want, textOf(n))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rows(c)
		}
	}
	rows(table)
}

func attr(n *nethtml.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textOf(n *nethtml.Node) string {
	var b strings.Builder
	var walk func(*nethtml.Node)
	walk = func(n *nethtml.Node) {
		if n.Type == nethtml.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func outerHTML(n *nethtml.Node) string {
	var b bytes.Buffer
	nethtml.Render(&b, n)
	return b.String()
}

// mdxExpression finds a { or < that MDX would read as an expression or a
// JSX tag: one not escaped with a backslash, outside code.
var mdxExpression = regexp.MustCompile(`(^|[^\\])[{<]`)

// checkMDX: outside code spans and fences, every { and < is escaped or
// opens one of the comment markers.
func checkMDX(t *testing.T, name string, b []byte) {
	t.Helper()
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(b))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindFencedCodeBlock, ast.KindCodeSpan:
			return ast.WalkSkipChildren, nil
		case ast.KindHTMLBlock, ast.KindRawHTML:
			raw := rawText(n, b)
			if !strings.HasPrefix(raw, "<!--") && !fullProgramTag.MatchString(raw) {
				t.Errorf("%s: raw HTML %q in Markdown", name, raw)
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	// Line by line outside fences and code spans, no bare { or <.
	inFence := false
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence || strings.HasPrefix(line, "<!--") || fullProgramTag.MatchString(line) {
			continue
		}
		if loc := mdxExpression.FindStringIndex(stripCodeSpans(line)); loc != nil {
			t.Errorf("%s:%d: unescaped { or < outside code: %q", name, i+1, line)
		}
	}
}

// fullProgramTag is the only HTML the Markdown carries: the "Full program"
// disclosure, which CommonMark passes through and MDX reads as JSX. Its
// summary is template text and a file name from the snippet table.
var fullProgramTag = regexp.MustCompile(`^(<details>\n?(<summary>Full program: [A-Za-z0-9.]+, \d+ lines, tested</summary>)?|<summary>Full program: [A-Za-z0-9.]+, \d+ lines, tested</summary>|</details>)$`)

// checkFrontMatter: a page starts with YAML front matter whose title and
// description are plain strings (the contract's text, unescaped: docs
// platforms escape it as text), and returns the page after it.
func checkFrontMatter(t *testing.T, name string, b []byte) []byte {
	t.Helper()
	rest, ok := bytes.CutPrefix(b, []byte("---\n"))
	fm, body, ok2 := bytes.Cut(rest, []byte("\n---\n"))
	if !ok || !ok2 {
		t.Errorf("%s: no front matter", name)
		return b
	}
	var meta struct {
		Title       string `yaml:"title"`
		Description string `yaml:"description"`
		Position    int    `yaml:"sidebar_position"`
	}
	if err := yaml.Unmarshal(fm, &meta); err != nil || meta.Title == "" || meta.Description == "" || meta.Position == 0 {
		t.Errorf("%s: front matter %q does not decode to a title, description and position: %v", name, fm, err)
	}
	return body
}

// stripCodeSpans removes inline code spans (a backtick run up to the next
// run of the same length) from a line.
func stripCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		end := -1
		for j := i + n; j < len(line); {
			if line[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(line) && line[j+m] == '`' {
				m++
			}
			if m == n {
				end = j + m
				break
			}
			j += m
		}
		if end < 0 {
			b.WriteString(line[i : i+n])
			i += n
			continue
		}
		i = end
	}
	return b.String()
}

func rawText(n ast.Node, src []byte) string {
	var b strings.Builder
	if r, ok := n.(*ast.RawHTML); ok {
		for i := 0; i < r.Segments.Len(); i++ {
			s := r.Segments.At(i)
			b.Write(s.Value(src))
		}
		return b.String()
	}
	for i := 0; i < n.Lines().Len(); i++ {
		s := n.Lines().At(i)
		b.Write(s.Value(src))
	}
	return strings.TrimSpace(b.String())
}

// checkSVG: only the drawing elements the generator uses, no handlers, no
// links, and well-formed XML (an unescaped < or & would break parsing).
func checkSVG(t *testing.T, name string, b []byte) {
	t.Helper()
	allowed := []string{"svg", "title", "desc", "style", "rect", "text", "line", "path", "defs", "marker"}
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", name, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if !slices.Contains(allowed, se.Name.Local) {
				t.Errorf("%s: element <%s> in SVG", name, se.Name.Local)
			}
			for _, a := range se.Attr {
				if strings.HasPrefix(a.Name.Local, "on") || a.Name.Local == "href" {
					t.Errorf("%s: attribute %s=%q in SVG", name, a.Name.Local, a.Value)
				}
			}
		}
	}
}

// portabilityIssues lists what would keep a Markdown page from dropping
// into Docusaurus, Mintlify or MkDocs unchanged.
func portabilityIssues(name string, b []byte, files map[string][]byte) []string {
	var issues []string
	// Front matter is read by the platform, not parsed as Markdown.
	if bytes.HasPrefix(b, []byte("---\n")) {
		b = b[bytes.Index(b, []byte("\n---\n"))+5:]
	} else {
		issues = append(issues, "no front matter")
	}
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(b))
	dir := path.Dir(name)
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			if len(n.Language(b)) == 0 {
				issues = append(issues, "fenced code block without a language tag")
			}
		case *ast.CodeBlock:
			issues = append(issues, "indented code block (use a fence with a language)")
		case *ast.HTMLBlock, *ast.RawHTML:
			// MDX rejects HTML comments; the only HTML is the "Full
			// program" disclosure, which MDX reads as JSX.
			if raw := rawText(n, b); !fullProgramTag.MatchString(raw) {
				issues = append(issues, "raw HTML: "+raw)
			}
		case *ast.Image:
			dest := string(n.Destination)
			if !strings.HasSuffix(dest, ".svg") {
				issues = append(issues, "image is not an SVG file: "+dest)
			} else if _, ok := files[path.Join(dir, dest)]; !ok {
				issues = append(issues, "image file missing: "+dest)
			}
		case *ast.Link:
			dest, _, _ := strings.Cut(string(n.Destination), "#")
			if dest != "" && !strings.Contains(dest, "://") {
				if _, ok := files[path.Join(dir, dest)]; !ok {
					issues = append(issues, "link to a missing page: "+string(n.Destination))
				}
			}
		}
		return ast.WalkContinue, nil
	})
	return issues
}
