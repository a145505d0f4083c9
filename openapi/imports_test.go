package openapi

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// TestOnlyThisPackageImportsKinOpenAPI keeps kin-openapi behind this
// package's API (style: only the OpenAPI package imports kin-openapi), and
// this package from importing the CLI or other renderers.
func TestOnlyThisPackageImportsKinOpenAPI(t *testing.T) {
	goBin := testenv.LookPath(t, "go")
	cmd := exec.Command(goBin, "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = testenv.RepoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const self = "github.com/retryspec/retryspec/openapi"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		for _, imp := range imports {
			if strings.HasPrefix(imp, "github.com/getkin/") && pkg != self {
				t.Errorf("%s imports %s; go through package openapi", pkg, imp)
			}
			// contract/rules only for its rules' IDs and severities; it
			// imports contract and findings alone (contract/rules' deps test).
			if pkg == self && strings.HasPrefix(imp, "github.com/retryspec/retryspec/") &&
				imp != "github.com/retryspec/retryspec/contract" && imp != "github.com/retryspec/retryspec/findings" &&
				imp != "github.com/retryspec/retryspec/contract/rules" {
				t.Errorf("openapi imports %s; it may import only contract, contract/rules and findings", imp)
			}
		}
	}
}
