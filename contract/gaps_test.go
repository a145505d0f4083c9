package contract

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestVerifyGaps: verify sends a body key, a first-sent time and a GraphQL
// mutation, and judges too_old, the result header and a conflict's code in
// a 200, so none of issue 32's examples (a body key; a first-sent window
// with a result header; a GraphQL directive) has a verify gap.
func TestVerifyGaps(t *testing.T) {
	for name, want := range map[string][]string{
		"square-payments":   nil,
		"azure-email":       nil,
		"shopify-inventory": nil,
	} {
		c, err := Load(filepath.Join("..", "examples", name, "retryspec.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.VerifyGaps(); !slices.Equal(got, want) {
			t.Errorf("%s: VerifyGaps = %q, want %q", name, got, want)
		}
	}
	g, err := Parse("retryspec.yaml", []byte(graphqlMutation(t)))
	if err != nil {
		t.Fatal(err)
	}
	if got := g.VerifyGaps(); got != nil {
		t.Errorf("GraphQL: VerifyGaps = %q, want none", got)
	}
}
