package copyfield

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/copylint"
)

// TestFieldPrefilter checks that the prefilter hides nothing on the files
// of the field set: each labelled file, linted with and without the
// example contract, gets the same findings from copylint.LintSource as
// from copylint.LintSourceUnfiltered, which parses every file and matches
// every sentence against every rule. A field measurement: without
// ../shared it says so and skips (TestHeldOutPrefilter runs from the
// repository alone).
func TestFieldPrefilter(t *testing.T) {
	corpus := fieldCorpus(t)
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

// TestHeldOutPrefilter does the same on the held-out page (heldout.tsv,
// in the repository), as Markdown, MDX, HTML and text, with and without
// the example contract.
func TestHeldOutPrefilter(t *testing.T) {
	page := heldOutPage(readHeldOut(t, "heldout.tsv"))
	html := []byte("<p>" + strings.ReplaceAll(string(page), "\n\n", "</p>\n<p>") + "</p>\n")
	for _, ct := range []*contract.Contract{nil, exampleContract(t)} {
		for name, data := range map[string][]byte{"heldout.md": page, "heldout.mdx": page, "heldout.txt": page, "heldout.html": html} {
			want := copylint.LintSourceUnfiltered(ct, name, data)
			if len(want) < 50 {
				t.Errorf("%s (contract %v): only %d findings; the comparison proves little", name, ct != nil, len(want))
			}
			if diff := cmp.Diff(want, copylint.LintSource(ct, name, data)); diff != "" {
				t.Errorf("%s (contract %v): the prefilter changes the findings (-unfiltered +prefiltered):\n%s", name, ct != nil, diff)
			}
		}
	}
}
