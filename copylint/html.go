package copylint

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
)

// htmlDocument builds the prose view of an HTML page or fragment: the text
// nodes only, never tags, attributes, comments, scripts or styles.
func htmlDocument(src []byte, lintCode bool) *document {
	d := &document{mask: blankMask(src)}
	htmlInto(d, src, 0, len(src), lintCode)
	return d
}

// blockTags end the prose block before them: text on either side of one is
// two paragraphs, not one sentence.
var blockTags = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "body": true, "br": true,
	"caption": true, "dd": true, "details": true, "div": true, "dl": true, "dt": true,
	"fieldset": true, "figcaption": true, "figure": true, "footer": true, "form": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "head": true,
	"header": true, "hr": true, "html": true, "li": true, "main": true, "nav": true, "ol": true,
	"option": true, "p": true, "pre": true, "section": true, "summary": true, "table": true,
	"tbody": true, "td": true, "tfoot": true, "th": true, "thead": true, "title": true,
	"tr": true, "ul": true,
}

// htmlInto copies the text nodes of src[start:end] into d's mask and adds
// their blocks. It tokenizes (never builds a tree), so fragments, unclosed
// tags and template placeholders are fine.
func htmlInto(d *document, src []byte, start, end int, lintCode bool) {
	h := htmlWalker{d: d, src: src, lintCode: lintCode, cur: -1, cellStart: -1, headerRow: true}
	h.run(start, end)
	h.closeBlock()
	h.rowEnd(end)
}

type htmlWalker struct {
	d        *document
	src      []byte
	lintCode bool
	cur      int
	curEnd   int
	// skip counts open elements whose text is not prose (pre, style, ...);
	// code counts open inline <code> elements; struck open <del>, <s>
	// and <strike> elements.
	skip, code, struck int
	// The table being read: its header cells, the open row's cells (all
	// <th> so far: headerRow) and the open cell's start (-1: none).
	header, row []span
	headerRow   bool
	cellStart   int
}

// cellEnd closes the open cell of a table row at off.
func (h *htmlWalker) cellEnd(off int) {
	if h.cellStart >= 0 {
		h.row = append(h.row, span{h.cellStart, max(off, h.cellStart)})
		h.cellStart = -1
	}
}

// rowEnd closes the open row at off: a row of <th> cells is the table's
// header, any other row a data row under it.
func (h *htmlWalker) rowEnd(off int) {
	h.cellEnd(off)
	switch {
	case len(h.row) == 0:
	case h.headerRow:
		h.header = h.row
	default:
		h.d.rows = append(h.d.rows, tableRow{header: h.header, cells: h.row})
	}
	h.row, h.headerRow = nil, true
}

// tableTag follows the table structure through tag (open or closing)
// between tokStart and tokEnd.
func (h *htmlWalker) tableTag(tag string, open bool, tokStart, tokEnd int) {
	switch {
	case tag == "table":
		h.rowEnd(tokStart)
		h.header = nil
	case tag == "tr":
		h.rowEnd(tokStart)
	case (tag == "td" || tag == "th") && open:
		h.cellEnd(tokStart)
		h.cellStart = tokEnd
		h.headerRow = h.headerRow && tag == "th"
	case tag == "td" || tag == "th":
		h.cellEnd(tokStart)
	}
}

func (h *htmlWalker) closeBlock() {
	if h.cur >= 0 && h.curEnd > h.cur {
		h.d.blocks = append(h.d.blocks, span{h.cur, h.curEnd})
	}
	h.cur = -1
}

func (h *htmlWalker) run(start, end int) {
	z := html.NewTokenizer(bytes.NewReader(h.src[start:end]))
	off := start
	var rawTag string // the raw-text element being read (script, style, textarea, ...)
	var templateScript bool
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		raw := z.Raw()
		tokStart, tokEnd := off, off+len(raw)
		off = tokEnd
		switch tt {
		case html.TextToken:
			if rawTag != "" {
				// Script and style bodies are never prose, except template
				// scripts (Handlebars, Knockout): their body is the page.
				if templateScript {
					h.run(tokStart, tokEnd)
				}
				continue
			}
			if h.struck > 0 {
				continue // struck text is withdrawn, not asserted
			}
			if h.skip > 0 && !h.lintCode {
				h.d.skipped = append(h.d.skipped, span{tokStart, tokEnd})
				continue
			}
			if len(bytes.TrimSpace(raw)) == 0 {
				continue
			}
			copyText(h.d.mask, h.src, tokStart, tokEnd)
			if h.code > 0 {
				h.d.code = append(h.d.code, span{tokStart, tokEnd})
			}
			if h.cur < 0 {
				h.cur = tokStart
			}
			h.curEnd = tokEnd
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			if blockTags[tag] {
				h.closeBlock()
			}
			h.tableTag(tag, tt != html.EndTagToken, tokStart, tokEnd)
			if tt == html.SelfClosingTagToken {
				continue
			}
			open := tt == html.StartTagToken
			switch tag {
			case "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript", "plaintext":
				// The tokenizer reads these as raw text; remember which.
				if open {
					rawTag = tag
					templateScript = tag == "script" && hasAttr && isTemplateScript(z)
				} else {
					rawTag, templateScript = "", false
				}
				if tag == "title" && open {
					rawTag = "" // a page title is prose; the tokenizer still reads it raw
				}
			case "pre", "svg", "math", "template":
				if open {
					h.skip++
				} else if h.skip > 0 {
					h.skip--
				}
			case "del", "s", "strike":
				// Struck text is shown withdrawn (<del>, <s>): the page
				// takes it back, so it is no claim.
				if open {
					h.struck++
				} else if h.struck > 0 {
					h.struck--
				}
			case "code", "kbd", "samp", "var", "tt":
				if open {
					h.code++
				} else if h.code > 0 {
					h.code--
				}
			}
		}
	}
}

// isTemplateScript reports whether the current <script> tag's type is a
// client-side template, whose body is HTML meant to be shown.
func isTemplateScript(z *html.Tokenizer) bool {
	for {
		k, v, more := z.TagAttr()
		if string(k) == "type" {
			t := strings.ToLower(string(v))
			return strings.Contains(t, "template") || strings.Contains(t, "html")
		}
		if !more {
			return false
		}
	}
}
