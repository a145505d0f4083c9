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
