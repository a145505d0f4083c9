package render

import (
	"strings"

	"github.com/yuin/goldmark/ast"
)

// rewriteLinks points the .md links at the .html pages.
func rewriteLinks(doc *ast.Document) {
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
