package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
)

// TestNoAutoKeyNamesTheKeyPlace: sdk/no-auto-key says what the caller must
// remember to send where the key travels: a GraphQL contract's directive
// argument, not a header it never reads.
func TestNoAutoKeyNamesTheKeyPlace(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "examples", "shopify-inventory", "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "auto_idempotency_key: true", "auto_idempotency_key: false", 1)
	c, err := contract.Parse("retryspec.yaml", []byte(edited))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range Run(c) {
		if f.Rule == "sdk/no-auto-key" {
			got = append(got, f.Message)
		}
	}
	want := "remembers to send the key argument of the @idempotent directive on the mutation"
	if len(got) != 1 || !strings.HasSuffix(got[0], want) {
		t.Errorf("sdk/no-auto-key messages %q, want one ending %q", got, want)
	}
}
