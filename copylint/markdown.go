package copylint

import (
	"bytes"
	"regexp"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// mdParser is the one configured goldmark parser: CommonMark plus the GFM
// block and inline extensions that change what is prose (tables, task
// lists, strikethrough). Linkify is left out on purpose: a bare URL is not
// a claim either way, and it costs time on every file. A goldmark parser is
// safe for concurrent use.
var mdParser = goldmark.New(goldmark.WithExtensions(
	extension.Table, extension.Strikethrough, extension.TaskList,
)).Parser()

// frontMatterEnd returns the end offset of a YAML (---) or TOML (+++) front
// matter block at the start of src, or 0 when there is none.
func frontMatterEnd(src []byte) int {
	s := bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	bom := len(src) - len(s)
	var fence string
	switch {
	case bytes.HasPrefix(s, []byte("---")):
		fence = "---"
	case bytes.HasPrefix(s, []byte("+++")):
		fence = "+++"
	default:
		return 0
	}
	first := bytes.IndexByte(s, '\n')
	if first < 0 || len(bytes.TrimSpace(s[len(fence):first])) != 0 {
		return 0
	}
	off := first + 1
	for off < len(s) {
		end := bytes.IndexByte(s[off:], '\n')
		line := s[off:]
		next := len(s)
		if end >= 0 {
			line = s[off : off+end]
			next = off + end + 1
		}
		t := string(bytes.TrimRight(line, " \t\r"))
		if t == fence || (fence == "---" && t == "...") {
			return bom + next
		}
		off = next
	}
	return 0 // unclosed: not front matter, a thematic break
}

// markdownDocument builds the prose view of a Markdown (CommonMark + GFM)
// file. parseSrc is what goldmark reads (the source with front matter, and
// for MDX the ESM lines, blanked to keep offsets); src is the original.
func markdownDocument(src []byte, lintCode bool) *document {
	return markdownFrom(src, src, lintCode)
}

func markdownFrom(src, parseSrc []byte, lintCode bool) *document {
	if fm := frontMatterEnd(parseSrc); fm > 0 {
		if &parseSrc[0] == &src[0] {
			parseSrc = append([]byte(nil), parseSrc...)
		}
		blankSpaces(parseSrc, 0, fm)
	}
	if deep := flattenDeepQuotes(parseSrc); deep != nil {
		parseSrc = deep
	}
	if deeplyIndented(parseSrc) {
		// goldmark's list continuation costs the open lists times the
		// indentation on every line (1,600 nested lists after a deep quote:
		// 4 s of CPU for a 320 KB file); such a file is read as plain text.
		return textDocument(src)
	}
	d := &document{mask: blankMask(src)}
	root := mdParser.Parse(text.NewReader(parseSrc))
	w := mdWalker{d: d, src: src, lintCode: lintCode, cur: -1}
	_ = ast.Walk(root, w.visit)
	w.closeBlock()
	return d
}

// blankSpaces overwrites src[start:end] with spaces, keeping newlines, so a
// parser sees empty lines where front matter or ESM was.
func blankSpaces(src []byte, start, end int) {
	for i := start; i < end; i++ {
		if src[i] != '\n' && src[i] != '\r' {
			src[i] = ' '
		}
	}
}

type mdWalker struct {
	d        *document
	src      []byte
	lintCode bool
	// cur is the start of the open block, or -1; curEnd its end so far.
	cur, curEnd int
	// header is the header row's cells of the table being walked.
	header []span
	// struck counts the inline <del>, <s> and <strike> tags open in the
	// paragraph: their text is withdrawn.
	struck int
}

// reStrikeTag is an inline tag that opens or closes struck text.
var reStrikeTag = regexp.MustCompile(`(?i)^<(/?)(del|s|strike)\b[^>]*>$`)

// strikeTag counts an inline <del>, <s> or <strike> tag in and out. The
// text between an opening and closing inline tag is a Text node of its
// own, so the count decides whether it is prose.
func (w *mdWalker) strikeTag(n *ast.RawHTML) {
	var raw []byte
	for i := 0; i < n.Segments.Len(); i++ {
		s := n.Segments.At(i)
		raw = append(raw, w.src[s.Start:s.Stop]...)
	}
	m := reStrikeTag.FindSubmatch(bytes.TrimSpace(raw))
	switch {
	case m == nil:
	case len(m[1]) == 0:
		w.struck++
	case w.struck > 0:
		w.struck--
	}
}

// tableCellsOf is the prose range of each cell of a table row: from the
// first to the last text segment inside it (an empty cell is an empty
// range at the end of the one before).
func tableCellsOf(row ast.Node) []span {
	var out []span
	for c := row.FirstChild(); c != nil; c = c.NextSibling() {
		cell := span{-1, -1}
		_ = ast.Walk(c, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if t, ok := n.(*ast.Text); ok && entering {
				if cell.start < 0 || t.Segment.Start < cell.start {
					cell.start = t.Segment.Start
				}
				cell.end = max(cell.end, t.Segment.Stop)
			}
			return ast.WalkContinue, nil
		})
		if cell.start < 0 {
			if len(out) > 0 {
				cell = span{out[len(out)-1].end, out[len(out)-1].end}
			} else {
				cell = span{0, 0}
			}
		}
		out = append(out, cell)
	}
	return out
}

func (w *mdWalker) closeBlock() {
	if w.cur >= 0 && w.curEnd > w.cur {
		w.d.blocks = append(w.d.blocks, span{w.cur, w.curEnd})
	}
	w.cur = -1
}

func (w *mdWalker) extend(start, end int) {
	if w.cur < 0 {
		w.cur = start
	}
	if end > w.curEnd {
		w.curEnd = end
	}
}

func (w *mdWalker) visit(n ast.Node, entering bool) (ast.WalkStatus, error) {
	if n.Type() == ast.TypeBlock {
		// Every block boundary ends the prose block before it: a heading
		// and the paragraph under it are two blocks, so are two cells. An
		// inline strike tag left open ends with its block.
		w.closeBlock()
		w.struck = 0
	}
	if !entering {
		return ast.WalkContinue, nil
	}
	switch n := n.(type) {
	case *east.TableHeader:
		w.header = tableCellsOf(n)
	case *east.TableRow:
		w.d.rows = append(w.d.rows, tableRow{header: w.header, cells: tableCellsOf(n)})
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		if w.lintCode {
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				s := lines.At(i)
				copyText(w.d.mask, w.src, s.Start, s.Stop)
				w.extend(s.Start, s.Stop)
			}
			w.closeBlock()
		} else if lines := n.Lines(); lines.Len() > 0 {
			w.d.skipped = append(w.d.skipped, span{lines.At(0).Start, lines.At(lines.Len() - 1).Stop})
		}
		return ast.WalkSkipChildren, nil
	case *ast.HTMLBlock:
		lines := n.Lines()
		if lines.Len() > 0 {
			start, end := lines.At(0).Start, lines.At(lines.Len()-1).Stop
			if n.HasClosure() {
				end = n.ClosureLine.Stop
			}
			htmlInto(w.d, w.src, start, end, w.lintCode)
		}
		return ast.WalkSkipChildren, nil
	case *ast.CodeSpan:
		if w.struck > 0 {
			return ast.WalkSkipChildren, nil
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				copyText(w.d.mask, w.src, t.Segment.Start, t.Segment.Stop)
				w.d.code = append(w.d.code, span{t.Segment.Start, t.Segment.Stop})
				w.extend(t.Segment.Start, t.Segment.Stop)
			}
		}
		return ast.WalkSkipChildren, nil
	case *ast.Text:
		if w.struck > 0 {
			return ast.WalkContinue, nil
		}
		copyText(w.d.mask, w.src, n.Segment.Start, n.Segment.Stop)
		w.extend(n.Segment.Start, n.Segment.Stop)
		if n.SoftLineBreak() || n.HardLineBreak() {
			// The newline after the segment is already in the mask.
			w.extend(n.Segment.Start, n.Segment.Stop)
		}
	case *east.Strikethrough:
		// Struck text (GFM ~~...~~) is shown withdrawn: the page takes it
		// back rather than asserting it, so it is not prose.
		return ast.WalkSkipChildren, nil
	case *ast.RawHTML:
		w.strikeTag(n)
		return ast.WalkSkipChildren, nil
	case *ast.AutoLink:
		// A URL or an inline tag: not prose. The text between an opening
		// and closing inline tag is a Text node of its own.
		return ast.WalkSkipChildren, nil
	}
	return ast.WalkContinue, nil
}

// maxQuoteDepth bounds block quote nesting before goldmark sees it: its
// time grows with the square of the depth (80,000 "> " took 3.4 s of CPU
// for a 160 KB file; found by the hostile-input tests). No prose nests
// quotes a hundred deep.
const maxQuoteDepth = 100

// flattenDeepQuotes returns a copy of src in which every '>' beyond
// maxQuoteDepth at the start of a line is a space (offsets unchanged), or
// nil when no line nests that deep.
func flattenDeepQuotes(src []byte) []byte {
	var out []byte
	for start := 0; start < len(src); {
		depth := 0
		i := start
		for ; i < len(src) && (src[i] == '>' || src[i] == ' ' || src[i] == '\t'); i++ {
			if src[i] != '>' {
				continue
			}
			if depth++; depth > maxQuoteDepth {
				if out == nil {
					out = append([]byte(nil), src...)
				}
				out[i] = ' '
			}
		}
		next := bytes.IndexByte(src[i:], '\n')
		if next < 0 {
			break
		}
		start = i + next + 1
	}
	return out
}

// maxIndent bounds the leading whitespace and list markers of a line that
// goldmark is given; no prose is indented past it.
const maxIndent = 256

// deeplyIndented reports whether some line starts with more than maxIndent
// bytes of spaces, tabs, quote or list markers.
func deeplyIndented(src []byte) bool { return deeplyIndentedAfter(src, 0) }

// indentByte marks the bytes deeplyIndented counts as indentation.
var indentByte = [256]bool{' ': true, '\t': true, '>': true, '-': true, '*': true, '+': true}

// deeplyIndentedAfter is deeplyIndented of src with src[:fm] (front matter,
// whole lines) read as blankSpaces leaves it: spaces up to each line's
// '\r' or '\n'. It spares readsAsText the copy.
func deeplyIndentedAfter(src []byte, fm int) bool {
	for start := 0; start < len(src); {
		i := start
		for i < len(src) && i-start <= maxIndent && (indentByte[src[i]] || i < fm && src[i] != '\r' && src[i] != '\n') {
			i++
		}
		if i-start > maxIndent {
			return true
		}
		next := bytes.IndexByte(src[i:], '\n')
		if next < 0 {
			return false
		}
		start = i + next + 1
	}
	return false
}
