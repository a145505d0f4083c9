package copyfield

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/copylint"
	"github.com/retryspec/retryspec/internal/testenv"
)

// TestFieldPrefilter checks that the prefilter hides nothing on the files
// of the field set: each labelled file, linted with and without the
// example contract, gets the same findings from copylint.LintSource as
// from copylint.LintSourceUnfiltered, which parses every file and matches
// every sentence against every rule.
func TestFieldPrefilter(t *testing.T) {
	corpus := filepath.Join(testenv.SharedData(t), "corpus")
	c := exampleContract(t)
	seen := map[string]bool{}
	runs := 0
	for _, l := range readLabels(t) {
		if seen[l.path] {
			continue
		}
		seen[l.path] = true
		data, err := os.ReadFile(filepath.Join(corpus, l.path))
		if err != nil {
			t.Fatalf("%s: %v", l.path, err)
		}
		for _, ct := range []*contract.Contract{nil, c} {
			got := copylint.LintSource(ct, l.path, data)
			want := copylint.LintSourceUnfiltered(ct, l.path, data)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s (contract %v): the prefilter changes the findings (-unfiltered +prefiltered):\n%s", l.path, ct != nil, diff)
			}
			runs++
		}
	}
	t.Logf("%d files, %d runs compared", len(seen), runs)
}
