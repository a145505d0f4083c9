package verify

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
)

// TestRefusesWhatItCannotCheck: a contract whose key travels in the body,
// or whose window runs from a first-sent time, is refused before any
// request, naming the field; verify would otherwise send header keys
// without the first-sent time and fail a sound server.
func TestRefusesWhatItCannotCheck(t *testing.T) {
	for name, want := range map[string]string{
		"square-payments": "idempotency.key_in: body",
		"azure-email":     "idempotency.first_sent",
	} {
		c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "examples", name, "retryspec.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(context.Background(), Options{Contract: c, Plan: &Plan{BaseURL: "http://127.0.0.1:1"}, BaseURL: "http://127.0.0.1:1", Yes: true})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Run = %v, want a refusal naming %s", name, err, want)
		}
	}
	if gaps := payouts(t).VerifyGaps(); len(gaps) != 0 {
		t.Errorf("payouts has gaps %v", gaps)
	}
}
