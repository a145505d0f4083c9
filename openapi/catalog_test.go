package openapi

import (
	"testing"

	"github.com/retryspec/retryspec/contract/rules"
)

// The rule this package reports is documented in the one catalog.
func TestContradictionRuleIsInTheCatalog(t *testing.T) {
	r, ok := rules.ByID(RuleContradiction)
	if !ok || r.Scope != rules.ScopeOpenAPI {
		t.Fatalf("%s: in catalog %v, scope %q", RuleContradiction, ok, r.Scope)
	}
}
