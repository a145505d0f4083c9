package render

import (
	"fmt"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
)

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
	lang  string
	group int // which tab group of the page, from 0: ids stay unique with two
}

// groupTabs groups the nodes between tab markers into tab panels.
func groupTabs(doc *ast.Document, src []byte) {
	var tabs *tabsNode
	var panel *tabPanelNode
	groups := 0
	for n := doc.FirstChild(); n != nil; {
		next := n.NextSibling()
		marker := htmlBlockText(n, src)
		switch {
		case marker == tabsStart:
			tabs = &tabsNode{}
			doc.ReplaceChild(doc, n, tabs)
			panel = nil
			groups++
		case tabs != nil && strings.HasPrefix(marker, tabPrefix):
			lang := Slug(strings.TrimSuffix(strings.TrimPrefix(marker, tabPrefix), " -->"))
			panel = &tabPanelNode{lang: lang, group: groups - 1}
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
		id := "tab-" + p.lang
		if p.group > 0 {
			id = fmt.Sprintf("tab%d-%s", p.group+1, p.lang)
		}
		fmt.Fprintf(w, `<section class="tab-panel" id="%s" data-lang="%s">`+"\n", id, p.lang)
	} else {
		w.WriteString("</section>\n")
	}
	return ast.WalkContinue, nil
}
