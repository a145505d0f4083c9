package cli

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExitErrorsOnlyFromHelpers: an exit code leaves a command only through
// failed, failedf, failedWith, inputError and usageErrorf (main.go), so
// each code means one thing everywhere.
func TestExitErrorsOnlyFromHelpers(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	helpers := map[string]bool{"failed": true, "failedWith": true, "inputError": true, "usageErrorf": true}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			ast.Inspect(decl, func(n ast.Node) bool {
				lit, ok2 := n.(*ast.CompositeLit)
				if !ok2 {
					return true
				}
				if id, ok3 := lit.Type.(*ast.Ident); ok3 && id.Name == "ExitError" && !(ok && fn.Recv == nil && helpers[fn.Name.Name]) {
					t.Errorf("%s: an ExitError built by hand; return failed, failedf, failedWith, inputError or usageErrorf", fset.Position(lit.Pos()))
				}
				return true
			})
		}
	}
}

// TestRunFSeam: each command hands its validated options to runF instead
// of running (gh's seam), so flag handling is tested without doing the work.
func TestRunFSeam(t *testing.T) {
	sys, _, _ := testIO()
	var gotCheck *checkOptions
	cmd := newCheckCmd(sys, func(_ context.Context, o *checkOptions) error { gotCheck = o; return nil })
	cmd.SetArgs([]string{"-c", "api.yaml", "--format", "sarif", "--strict", "--openapi", "spec.yaml"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	want := &checkOptions{IO: sys, Contract: "api.yaml", Format: "sarif", Strict: true, OpenAPI: "spec.yaml"}
	if d := cmp.Diff(want, gotCheck, cmp.Comparer(func(a, b *IO) bool { return a == b })); d != "" {
		t.Errorf("check options (-want +got):\n%s", d)
	}
	if gotCheck.memory() != specMemory {
		t.Errorf("check --openapi runs under %+v, want specMemory", gotCheck.memory())
	}

	// A usage error stops before runF.
	called := false
	cmd = newCopyCmd(sys, func(context.Context, *copyOptions) error { called = true; return nil })
	cmd.SetArgs([]string{"--format", "yaml", "docs"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.Execute(); err == nil || called {
		t.Errorf("copy --format yaml: err %v, runF called %v; want a usage error before any work", err, called)
	}

	var gotOpenAPI *openapiOptions
	cmd = newOpenAPICmd(sys, func(_ context.Context, o *openapiOptions) error { gotOpenAPI = o; return nil })
	cmd.SetArgs([]string{"--spec", "s.yaml", "--overlay", "o.yaml", "--format", "json"})
	if err := cmd.Execute(); err != nil || gotOpenAPI == nil || gotOpenAPI.Format != "json" || gotOpenAPI.Contract != "retryspec.yaml" {
		t.Errorf("openapi: err %v, options %+v", err, gotOpenAPI)
	}
}
