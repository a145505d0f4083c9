package storage_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// TestStatementsAreNamedOnlyByConstants compiles code that uses package
// storage: naming a statement by its constant builds, naming it by a
// string does not. So renaming a statement is a compile error at every
// use, never a lookup that finds nothing at run time.
func TestStatementsAreNamedOnlyByConstants(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED: runs go build; not with -short")
	}
	goBin := testenv.LookPath(t, "go")
	root := testenv.RepoRoot(t)
	for _, tc := range []struct {
		use    string
		builds bool
	}{
		{`st, _ := (&storage.Schema{}).Statement(storage.Claim); return st`, true},
		{`return storage.Statement{Name: storage.ClaimBatch}`, true},
		{`st, _ := (&storage.Schema{}).Statement("Claim"); return st`, false},
		{`return storage.Statement{Name: "ClaimBatch"}`, false},
	} {
		t.Run(tc.use, func(t *testing.T) {
			tmp := t.TempDir()
			src := filepath.Join(tmp, "use.go")
			code := "package use\n\nimport \"github.com/retryspec/retryspec/storage\"\n\nvar _ = func() any { " + tc.use + " }\n"
			if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
				t.Fatal(err)
			}
			// A package of the module that exists only in the overlay.
			pkg := filepath.Join(root, "storage", "internal", "namesuse")
			overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(pkg, "use.go"): src}})
			if err := os.WriteFile(filepath.Join(tmp, "overlay.json"), overlay, 0o644); err != nil {
				t.Fatal(err)
			}
			build := exec.Command(goBin, "build", "-overlay", filepath.Join(tmp, "overlay.json"), "./storage/internal/namesuse")
			build.Dir = root
			out, err := build.CombinedOutput()
			switch {
			case tc.builds && err != nil:
				t.Fatalf("does not build: %v\n%s", err, out)
			case !tc.builds && err == nil:
				t.Fatal("builds: a statement can be named by a string")
			case !tc.builds && !strings.Contains(string(out), "StatementName"):
				t.Fatalf("fails to build for another reason:\n%s", out)
			}
		})
	}
}
