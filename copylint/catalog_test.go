package copylint

import (
	"testing"

	"github.com/retryspec/retryspec/contract/rules"
)

// Every rule this package reports is documented in the one catalog, so
// explain, SARIF metadata and the site's rule pages know it.
func TestRulesAreInTheCatalog(t *testing.T) {
	for _, id := range RuleIDs() {
		r, ok := rules.ByID(id)
		if !ok {
			t.Errorf("%s: not in rules.Catalog()", id)
			continue
		}
		if r.Scope != rules.ScopeCopy {
			t.Errorf("%s: catalog scope %q, want copy", id, r.Scope)
		}
	}
}
