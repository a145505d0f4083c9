package contract

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestVerifyGaps: verify sends a body key and a first-sent time and judges
// too_old and the result header, so of issue 32's fields it refuses only a
// GraphQL contract (and that one with the GraphQL gap alone); the Square and Azure examples (a body key; a
// first-sent window with a result header) have no verify gap.
func TestVerifyGaps(t *testing.T) {
	for name, want := range map[string][]string{
		"square-payments": nil,
		"azure-email":     nil,
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
	if got := g.VerifyGaps(); !slices.Equal(got, []string{gapGraphQL}) {
		t.Errorf("GraphQL: VerifyGaps = %q, want only the GraphQL gap", got)
	}
}
