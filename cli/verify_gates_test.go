package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/verify"
)

// TestVerifyGatesFromTheTable: every row of verify's gate table reaches
// each place the CLI names gates: --help lists it with its help line,
// --only takes it with or without its verify/ prefix and runs it alone in
// the dry run, explain explains it, and explain --list names it.
func TestVerifyGatesFromTheTable(t *testing.T) {
	contractFile := filepath.Join(testenv.RepoRoot(t), "examples", "payouts", "retryspec.yaml")
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(plan, []byte(`base_url: http://127.0.0.1:9
other_principal:
  Authorization: "Bearer other"
operations:
  "POST /v1/transfers":
    body: {"amount": 1000, "currency": "usd", "destination": "acct_1"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, help, _ := runCLI(t, "verify", "--help")
	flatHelp := strings.Join(strings.Fields(help), " ")
	_, list, _ := runCLI(t, "explain", "--list")
	for _, g := range verify.Gates {
		if !strings.Contains(flatHelp, g.ID+" "+g.Help) {
			t.Errorf("verify --help lacks %s %q", g.ID, g.Help)
		}
		for _, name := range []string{g.ID, strings.TrimPrefix(g.ID, "verify/")} {
			code, out, errOut := runCLI(t, "verify", "-c", contractFile, "--plan", plan, "--dry-run", "--only", name)
			if code != 0 {
				t.Errorf("verify --only %s: exit %d: %s", name, code, errOut)
				continue
			}
			var heads []string
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "# verify/") {
					heads = append(heads, l)
				}
			}
			if len(heads) != 1 || !strings.HasPrefix(heads[0], "# "+g.ID+" ") {
				t.Errorf("verify --dry-run --only %s ran %q, want %s alone", name, heads, g.ID)
			}
		}
		if code, out, errOut := runCLI(t, "explain", g.ID); code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), g.Doc().Fix) {
			t.Errorf("explain %s: exit %d, lacks its fix: %s%s", g.ID, code, out, errOut)
		}
		if !strings.Contains(list, g.ID+" ") {
			t.Errorf("explain --list lacks %s", g.ID)
		}
	}
}
