package suite

import (
	"path/filepath"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
)

// loadShopify is the GraphQL fixture: Shopify's inventory mutations, the
// key in @idempotent(key:), conflicts as userErrors codes in a 200.
func loadShopify(t *testing.T) *contract.Contract {
	t.Helper()
	c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "snippets", "testdata", "shopify-inventory", "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// graphQLScenarios are the scenarios TestGraphQLProven runs: a retried
// status, a reset connection, the concurrent-request userError (retried
// with the same key), the parameter mismatch, the in-flight code outside
// its place and another userError (none of them retried).
var graphQLScenarios = []string{"recover-after-503", "reset-connection-retried", "in-flight-conflict-retried",
	"no-retry-payload-mismatch", "in-flight-code-elsewhere-not-retried", "no-retry-other-error-entry"}

// TestGraphQLProven runs every language's snippet for the GraphQL
// fixture against the fault server reading the key from the directive:
// each POSTs the mutation document with the key as its variable, the same
// on every attempt, retries the statuses and the in-flight userError, and
// gives up at once on any other error entry.
func TestGraphQLProven(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every snippet in its runtime")
	}
	langs := availableLanguages(t)
	if len(langs) == 0 {
		return
	}
	rep := proveScenarios(t, loadShopify(t), langs, graphQLScenarios...)
	passed, failed := rep.Counts()
	t.Logf("%d passed, %d failed in %.1fs", passed, failed, rep.Elapsed.Seconds())
	if passed < len(langs)*len(graphQLScenarios) {
		t.Errorf("only %d outcomes passed for %d languages × %d scenarios", passed, len(langs), len(graphQLScenarios))
	}
}
