package site

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
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
	// Under -race only the examples build, side by side, which is what
	// the detector watches; every testdata contract is the same code on
	// other input, and building them all under it cost minutes of CI's
	// two cores. make unit builds and lints them all in its run without
	// -race (nonRaceTests in the Makefile).
	if !testenv.UnderRace() {
		for _, pattern := range []string{"testdata/rules/*/*/*.yaml", "testdata/hostile/*.yaml", "testdata/invalid/*.yaml"} {
			m, _ := filepath.Glob(filepath.Join(root, pattern))
			paths = append(paths, m...)
		}
	}
	sort.Strings(paths)
	var built atomic.Int64
	t.Run("contracts", func(t *testing.T) {
		for _, p := range paths {
			rel, _ := filepath.Rel(root, p)
			t.Run(rel, func(t *testing.T) {
				t.Parallel()
				c, err := contract.Load(p)
				example := strings.HasPrefix(rel, "examples"+string(filepath.Separator))
				if err != nil || c == nil {
					if example {
						t.Fatalf("example does not load: %v", err)
					}
					return // does not load: nothing to build
				}
				out := filepath.Join(t.TempDir(), "out")
				if _, err := Build(context.Background(), Options{Contract: p, Out: out, git: noHistory{}}); err != nil {
					if example {
						t.Fatalf("example does not build: %v", err)
					}
					return // does not build (the contract has errors)
				}
				built.Add(1)
				fs, err := copylint.Lint(context.Background(), c, []string{out}, copylint.Options{})
				if err != nil {
					t.Fatalf("copy: %v", err)
				}
				for _, f := range fs {
					// Errors fail `copy` (exit 1). Of the warnings, an unused
					// mark means a quote lost its claim: a bug here too.
					if f.Waived || f.Severity != findings.Error && f.Rule != copylint.RuleUnusedSuppression {
						continue
					}
					t.Errorf("%s:%d:%d: %s [%s]", strings.TrimPrefix(f.File, out+"/"), f.Line, f.Column, f.Message, f.Rule)
				}
			})
		}
	})
	if built.Load() < 3 {
		t.Fatalf("only %d contracts built; the examples at least must", built.Load())
	}
	t.Logf("%d of %d contracts built and were linted over their whole output", built.Load(), len(paths))
}
