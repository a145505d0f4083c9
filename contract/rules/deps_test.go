package rules

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// TestImportDirection keeps dependencies pointing toward the model: the
// contract and findings packages import nothing of retryspec's own, the
// rules only those two, and none of them imports cobra.
func TestImportDirection(t *testing.T) {
	goBin := testenv.LookPath(t, "go")
	allowed := map[string][]string{
		"github.com/retryspec/retryspec/contract":        nil,
		"github.com/retryspec/retryspec/findings":        nil,
		"github.com/retryspec/retryspec/contract/schema": nil,
		"github.com/retryspec/retryspec/contract/rules":  {"github.com/retryspec/retryspec/contract", "github.com/retryspec/retryspec/findings"},
	}
	for pkg, ok := range allowed {
		cmd := exec.Command(goBin, "list", "-deps", pkg)
		cmd.Dir = testenv.RepoRoot(t)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == pkg {
				continue
			}
			if strings.HasPrefix(dep, "github.com/retryspec/") && !slices.Contains(ok, dep) {
				t.Errorf("%s imports %s", pkg, dep)
			}
			if strings.Contains(dep, "spf13/cobra") {
				t.Errorf("%s imports cobra", pkg)
			}
		}
	}
}
