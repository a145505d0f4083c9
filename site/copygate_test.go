package site

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/copylint"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/internal/testenv"
)

// TestSitePassesItsOwnGate (issue 17 item 5): what `build` writes passes
// `copy` with the same contract, as a team's CI would run it over the
// output folder: every page, HTML and Markdown, rule pages included. It
// runs for every example contract and every testdata contract that
// builds; a contract that does not build is counted, not linted.
func TestSitePassesItsOwnGate(t *testing.T) {
	root := testenv.RepoRoot(t)
	var paths []string
	for _, p := range examples(t) {
		paths = append(paths, p)
	}
	for _, pattern := range []string{"testdata/rules/*/*/*.yaml", "testdata/hostile/*.yaml", "testdata/invalid/*.yaml"} {
		m, _ := filepath.Glob(filepath.Join(root, pattern))
		paths = append(paths, m...)
	}
	sort.Strings(paths)
	built := 0
	for _, p := range paths {
		rel, _ := filepath.Rel(root, p)
		c, err := contract.Load(p)
		if err != nil || c == nil {
			continue // does not load: nothing to build
		}
		out := filepath.Join(t.TempDir(), "out")
		if _, err := Build(context.Background(), Options{Contract: p, Out: out, git: noHistory{}}); err != nil {
			continue // does not build (the contract has errors)
		}
		built++
		if _, err := os.Stat(out); err != nil {
			t.Errorf("%s: built, but %s is missing", rel, out)
			continue
		}
		fs, err := copylint.Lint(context.Background(), c, []string{out}, copylint.Options{})
		if err != nil {
			t.Errorf("%s: copy: %v", rel, err)
			continue
		}
		for _, f := range fs {
			if f.Waived || f.Severity != findings.Error && f.Rule != copylint.RuleUnusedSuppression {
				continue
			}
			// Warnings other than unused marks do not fail `copy` (exit 0);
			// an unused mark means a quote lost its claim, which is a bug here.
			t.Errorf("%s: %s:%d:%d: %s [%s]", rel, strings.TrimPrefix(f.File, out+"/"), f.Line, f.Column, f.Message, f.Rule)
		}
	}
	if built < 3 {
		t.Fatalf("only %d contracts built; the examples at least must", built)
	}
	t.Logf("%d of %d contracts built and passed copy over their whole output", built, len(paths))
}
