package verify

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
)

// TestGapsRefuseNone: verify sends a body key, a first-sent time and a
// GraphQL mutation, and judges too_old, the result header and a conflict's
// code in a 200, so the Square, Azure and Shopify examples and a GraphQL
// contract with a field-argument key run (here: no operations, so no
// request).
func TestGapsRefuseNone(t *testing.T) {
	root := testenv.RepoRoot(t)
	for _, path := range []string{
		filepath.Join(root, "examples", "square-payments", "retryspec.yaml"),
		filepath.Join(root, "examples", "azure-email", "retryspec.yaml"),
		filepath.Join(root, "examples", "payouts", "retryspec.yaml"),
		filepath.Join(root, "examples", "shopify-inventory", "retryspec.yaml"),
		filepath.Join(root, "testdata", "graphql", "mutation.yaml"),
	} {
		c, err := contract.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), Options{Contract: c, Plan: &Plan{BaseURL: "http://127.0.0.1:1", Concurrency: 2}, BaseURL: "http://127.0.0.1:1", Yes: true}); err != nil {
			t.Errorf("%s: Run = %v, want a run", path, err)
		}
	}
}
