package verify

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"

	"github.com/retryspec/retryspec/contract/rules"
)

// TestGateTable: every row is complete, its ID unique, and the rule
// catalog's verify rules are exactly the gates and the closing warning:
// a gate without documentation, or documentation without a gate, fails.
func TestGateTable(t *testing.T) {
	// The gates of issue 32's fields judge values the payouts contract
	// does not set; the Azure example sets them.
	c, azure := payouts(t), loadExample(t, "azure-email")
	seen := map[string]bool{}
	for _, g := range Gates {
		if seen[g.ID] {
			t.Errorf("%s: two rows", g.ID)
		}
		seen[g.ID] = true
		if g.Path == "" || g.Help == "" || g.run == nil || g.dry == nil {
			t.Errorf("%s: incomplete row (path %q, help %q, run set %t, dry set %t)", g.ID, g.Path, g.Help, g.run != nil, g.dry != nil)
		}
		if !c.Has(g.Path) && !azure.Has(g.Path) {
			t.Errorf("%s: path %s is a value of neither the payouts nor the Azure contract", g.ID, g.Path)
		}
		if r, ok := rules.ByID(g.ID); !ok || r.Scope != rules.ScopeVerify {
			t.Errorf("%s: no verify rule in the catalog", g.ID)
		}
	}
	for _, r := range rules.Catalog() {
		if r.Scope == rules.ScopeVerify && r.ID != RuleEffectsUnobserved && !slices.Contains(IDs(), r.ID) {
			t.Errorf("the catalog documents %s, which is no gate of the table", r.ID)
		}
	}
}

func loadExample(t testing.TB, name string) *contract.Contract {
	t.Helper()
	c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "examples", name, "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
