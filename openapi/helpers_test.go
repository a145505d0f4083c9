package openapi

import (
	"os"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

func mustRead(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mergedSmall lays the additions of testdata/contract.yaml, with each
// edit's first occurrence replaced, over testdata/small.yaml, and checks
// the merged spec validates. It returns the contract and the merged spec.
func mergedSmall(t *testing.T, edits ...[2]string) (*contract.Contract, []byte) {
	t.Helper()
	src := mustRead(t, "testdata/contract.yaml")
	for _, e := range edits {
		if !strings.Contains(src, e[0]) {
			t.Fatalf("testdata/contract.yaml no longer says %q", e[0])
		}
		src = strings.Replace(src, e[0], e[1], 1)
	}
	c, err := contract.Parse("contract.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load("testdata/small.yaml", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	merged, err := Merged(s, NewPlan(c, s))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("merged.yaml", merged, LoadOptions{}); err != nil {
		t.Fatalf("merged spec does not validate: %v", err)
	}
	return c, merged
}
