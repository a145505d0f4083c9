package render

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
)

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

func renderDetails(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		fmt.Fprintf(w, "<details class=\"full-program\">\n<summary>%s</summary>\n", htmlEscape(n.(*detailsNode).summary))
	} else {
		w.WriteString("</details>\n")
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
