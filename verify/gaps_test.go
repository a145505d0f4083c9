package verify

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
)

// TestRefusesOnlyGraphQL: verify sends a body key and a first-sent time and
// judges too_old and the result header, so the Square and Azure examples
// run (here: no operations, so no request); a GraphQL contract, which
// verify does not speak yet, is refused before any request, naming the field.
func TestRefusesOnlyGraphQL(t *testing.T) {
	for _, name := range []string{"square-payments", "azure-email", "payouts"} {
		c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "examples", name, "retryspec.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), Options{Contract: c, Plan: &Plan{BaseURL: "http://127.0.0.1:1", Concurrency: 2}, BaseURL: "http://127.0.0.1:1", Yes: true}); err != nil {
			t.Errorf("%s: Run = %v, want a run", name, err)
		}
	}
	g, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "testdata", "graphql", "mutation.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), Options{Contract: g, Plan: &Plan{BaseURL: "http://127.0.0.1:1"}, BaseURL: "http://127.0.0.1:1", Yes: true})
	if err == nil || !strings.Contains(err.Error(), "idempotency.key_in: graphql") {
		t.Errorf("GraphQL: Run = %v, want a refusal naming key_in: graphql", err)
	}
}
