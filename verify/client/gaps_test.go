package client_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/verify/client"
)

// TestRefusesWhatItCannotJudge: a contract whose key travels in the body,
// or whose window runs from a first-sent time, is bad input (exit 2) that
// names the field, before any program runs; its gates would otherwise pass
// a client that ignores them.
func TestRefusesWhatItCannotJudge(t *testing.T) {
	for name, want := range map[string]string{
		"square-payments": "idempotency.key_in: body",
		"azure-email":     "idempotency.first_sent",
	} {
		c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "examples", name, "retryspec.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = client.Run(context.Background(), client.Options{Contract: c, Command: []string{"true"}})
		if err == nil || !client.IsInputError(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Run = %v, want an input error naming %s", name, err, want)
		}
	}
}

// TestRefusesGraphQL: a GraphQL contract, whose snippets now send the
// mutation, is still refused by the run and the dry run, naming key_in:
// graphql: the gates do not read error entries in a 200.
func TestRefusesGraphQL(t *testing.T) {
	c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "testdata", "graphql", "mutation.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	o := client.Options{Contract: c, Command: []string{"true"}}
	_, runErr := client.Run(context.Background(), o)
	_, dryErr := client.DryRun(o)
	for name, err := range map[string]error{"Run": runErr, "DryRun": dryErr} {
		if err == nil || !client.IsInputError(err) || !strings.Contains(err.Error(), "idempotency.key_in: graphql") {
			t.Errorf("%s = %v, want an input error naming key_in: graphql", name, err)
		}
	}
}
