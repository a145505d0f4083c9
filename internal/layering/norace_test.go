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

var (
	reNonRaceTests    = regexp.MustCompile(`(?m)^nonRaceTests = \^\(([^)]*)\)\$\$$`)
	reNonRaceTestPkgs = regexp.MustCompile(`(?m)^nonRaceTestPkgs = (.+)$`)
)

// TestSkippedUnderRaceRunWithout: a test that skips itself under -race
// (testenv.SkipUnderRace) runs in `make test` only because the Makefile
// runs it again without the detector, by name in nonRaceTests within
// nonRaceTestPkgs, or with its whole package in nonRacePkgs. A skip the
// Makefile does not know of would drop the test from CI in silence.
func TestSkippedUnderRaceRunWithout(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	names, pkgs, whole := reNonRaceTests.FindSubmatch(mk), reNonRaceTestPkgs.FindSubmatch(mk), reNonRacePkgs.FindSubmatch(mk)
	if names == nil || pkgs == nil || whole == nil {
		t.Fatal("Makefile: no nonRaceTests, nonRaceTestPkgs or nonRacePkgs line")
	}
	listed := map[string]bool{}
	for _, n := range strings.Split(string(names[1]), "|") {
		listed[n] = true
	}
	inPkgs := func(line []byte, dir string) bool {
		for _, p := range strings.Fields(string(line)) {
			if filepath.Clean(p) == dir {
				return true
			}
		}
		return false
	}
	found := 0
	err = filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "../.." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir // .git, caches and fixtures hold no test of the module
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel("../..", filepath.Dir(path))
		for _, fn := range skippingTests(t, path) {
			found++
			switch {
			case inPkgs(whole[1], rel):
			case !listed[fn]:
				t.Errorf("%s: %s skips under -race but is not in the Makefile's nonRaceTests", path, fn)
			case !inPkgs(pkgs[1], rel):
				t.Errorf("%s: %s is in nonRaceTests, but %s is not in nonRaceTestPkgs", path, fn, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no test calls testenv.SkipUnderRace: the walk found nothing to check")
	}
}

// skippingTests are the test functions of file f that call
// testenv.SkipUnderRace.
func skippingTests(t *testing.T, f string) []string {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && isSkipUnderRace(call) {
				out = append(out, fn.Name.Name)
				return false
			}
			return true
		})
	}
	return out
}

// isSkipUnderRace reports whether call is testenv.SkipUnderRace(...).
func isSkipUnderRace(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "SkipUnderRace" {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "testenv"
}
