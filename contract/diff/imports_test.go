package diff

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps the dependency direction: diff reads the contract model,
// the findings package (its text printer) and the standard library,
// nothing else of ours and no third party.
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == "github.com/retryspec/retryspec/contract" || p == "github.com/retryspec/retryspec/findings" || !strings.Contains(strings.Split(p, "/")[0], ".") {
				continue
			}
			t.Errorf("%s imports %s; diff may import only the contract model, findings and the standard library", f, p)
		}
	}
}
