package diff

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// FuzzCompare feeds pairs of contract sources to Compare. Whatever parses
// must compare without panicking; a contract never differs from itself;
// a difference seen one way is seen the other way; every change carries a
// row and a reason.
func FuzzCompare(f *testing.F) {
	for _, a := range []string{"full.yaml", "reformatted.yaml", "changed.yaml"} {
		for _, b := range []string{"full.yaml", "changed.yaml"} {
			f.Add(readTestdataF(f, a), readTestdataF(f, b))
		}
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		old, err1 := contract.Parse("a.yaml", a)
		new, err2 := contract.Parse("b.yaml", b)
		if err1 != nil || err2 != nil {
			return
		}
		if cs := Compare(old, old); len(cs) != 0 {
			t.Fatalf("a contract differs from itself: %+v", cs)
		}
		forward, backward := Compare(old, new), Compare(new, old)
		if (len(forward) == 0) != (len(backward) == 0) {
			t.Fatalf("difference seen one way only: %d vs %d changes", len(forward), len(backward))
		}
		for _, c := range forward {
			if _, ok := rowByField(c.Row); !ok || c.Why == "" || c.Class < Compatible || c.Class > Breaking {
				t.Fatalf("malformed change %+v", c)
			}
		}
	})
}

func readTestdataF(f *testing.F, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		f.Fatal(err)
	}
	return b
}
