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

// TestRefusesWhatItCannotJudge: a GraphQL contract is bad input (exit 2)
// that names the field, before any program runs: the fault server answers
// statuses, not conflicts as error entries in a 200. A contract whose key
// travels in the body, or whose window runs from a first-sent time, is
// judged: its runs reach the gates.
func TestRefusesWhatItCannotJudge(t *testing.T) {
	for _, tt := range []struct {
		file, refusal string
	}{
		{"testdata/graphql/mutation.yaml", "idempotency.key_in: graphql"},
		{"examples/square-payments/retryspec.yaml", ""},
		{"examples/azure-email/retryspec.yaml", ""},
	} {
		t.Run(tt.file, func(t *testing.T) {
			c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), tt.file))
			if err != nil {
				t.Fatal(err)
			}
			// A program that never calls the server: each run ends at once.
			sh := testenv.LookPath(t, "true")
			res, err := client.Run(context.Background(), client.Options{Contract: c, Command: []string{sh}, Only: []string{"client/same-key"}, Runs: 1})
			switch {
			case tt.refusal != "" && (err == nil || !client.IsInputError(err) || !strings.Contains(err.Error(), tt.refusal)):
				t.Errorf("Run = %v, want an input error naming %s", err, tt.refusal)
			case tt.refusal == "" && err != nil:
				t.Errorf("Run = %v, want the contract judged", err)
			case tt.refusal == "" && (len(res.Gates) != 1 || res.Gates[0].Result != "failed"):
				t.Errorf("gates %+v, want client/same-key judged (and failed: the program never called)", res.Gates)
			}
		})
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
