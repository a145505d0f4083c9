package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// reNonRacePkgs is the Makefile's list of the packages `make unit` runs
// without the race detector.
var reNonRacePkgs = regexp.MustCompile(`(?m)^nonRacePkgs = (.+)$`)

// TestNonRacePackagesStartNoGoroutine holds the Makefile's reason for
// running nonRacePkgs without -race: no file of theirs, test or not,
// starts a goroutine, so the detector has nothing of theirs to watch.
// A package that starts one must go back under -race.
func TestNonRacePackagesStartNoGoroutine(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := reNonRacePkgs.FindSubmatch(mk)
	if m == nil {
		t.Fatal("Makefile: no nonRacePkgs line")
	}
	for _, pkg := range strings.Fields(string(m[1])) {
		files, err := filepath.Glob(filepath.Join("../..", pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("nonRacePkgs names %s, which has no Go files (%v)", pkg, err)
		}
		for _, f := range files {
			if pos, ok := firstGoStmt(t, f); ok {
				t.Errorf("%s: starts a goroutine; run %s under -race (remove it from the Makefile's nonRacePkgs)", pos, pkg)
			}
		}
	}
}

// firstGoStmt is the position of the first go statement in file f, or
// of the first call of a method named Go (sync.WaitGroup.Go,
// errgroup.Group.Go), which starts one as surely.
func firstGoStmt(t *testing.T, f string) (token.Position, bool) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var at token.Pos
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			at = n.Pos()
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Go" {
				at = n.Pos()
			}
		}
		return at == token.NoPos
	})
	return fset.Position(at), at != token.NoPos
}
