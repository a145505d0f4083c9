package render

import (
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"
)

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
