package suite

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/run"
)

func loadExample(t *testing.T) *contract.Contract {
	t.Helper()
	return loadNamed(t, "payouts")
}

// loadNamed loads the contract of examples/NAME.
func loadNamed(t *testing.T, name string) *contract.Contract {
	t.Helper()
	c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "examples", name, "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// cacheDir is where .ci/install-snippets puts jars and npm packages.
func cacheDir() string {
	if d := os.Getenv("RETRYSPEC_SNIPPETS_CACHE"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "retryspec", "snippets")
}

// runtimeVars are the runners' variables for the libraries
// .ci/install-snippets puts in cacheDir.
func runtimeVars() map[string]string {
	cache := cacheDir()
	return map[string]string{
		"jars":      filepath.Join(cache, "jars") + "/*",
		"tsc":       filepath.Join(cache, "node_modules", ".bin", "tsc"),
		"typeroots": filepath.Join(cache, "node_modules", "@types"),
	}
}

// available reports whether lang's runtime and libraries are installed,
// checking the needs of its registry row as `snippets test` does, and
// calls testenv.Missing (fail on CI, loud skip elsewhere) for the first gap.
func available(t *testing.T, l snippets.Language) bool {
	cache := cacheDir()
	opts := Options{Runner: run.Exec{}, Vars: map[string]string{
		"cache":     cache,
		"jars":      filepath.Join(cache, "jars") + "/*",
		"tsc":       filepath.Join(cache, "node_modules", ".bin", "tsc"),
		"typeroots": filepath.Join(cache, "node_modules", "@types"),
	}}
	if msg := MissingNeed(context.Background(), l, opts, exec.LookPath); msg != "" {
		t.Run(l.Name, func(t *testing.T) { testenv.Missing(t, msg+" (or run .ci/install-snippets)") })
		return false
	}
	return true
}

// TestSnippetsProven runs every language's rendered snippet through every
// scenario against the fault server: the test behind `retryspec snippets
// test`, with the same code path.
func TestSnippetsProven(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every snippet in its runtime (about a minute)")
	}
	var langs []string
	for _, l := range snippets.Languages() {
		if available(t, l) {
			langs = append(langs, l.Name)
		}
	}
	if len(langs) == 0 {
		return
	}
	cache := cacheDir()
	var progress bytes.Buffer
	rep, err := Run(context.Background(), loadExample(t), Options{
		Languages: langs,
		Runner:    run.Exec{},
		Vars: map[string]string{
			"jars":      filepath.Join(cache, "jars") + "/*",
			"tsc":       filepath.Join(cache, "node_modules", ".bin", "tsc"),
			"typeroots": filepath.Join(cache, "node_modules", "@types"),
		},
		Progress: &progress,
		// Under `go test ./...` other packages compete for the CPU: fewer
		// snippets at once keep cold starts inside the test budgets.
		Parallel: 2, MaxProcs: 4,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + progress.String())
	for _, o := range rep.Outcomes {
		if !o.Passed() {
			t.Errorf("%s %s: %v", o.Language, o.Scenario, o.Problems)
		}
	}
	for _, l := range langs {
		t.Logf("%-10s %5.1fs", l, rep.LanguageTime[l].Seconds())
	}
	passed, failed := rep.Counts()
	t.Logf("%d passed, %d failed in %.1fs", passed, failed, rep.Elapsed.Seconds())
	if passed < len(langs)*8 {
		t.Errorf("only %d outcomes passed for %d languages: scenarios went missing", passed, len(langs))
	}
}

// TestJitterStrategiesProven renders the example with each other jitter
// strategy and proves the retrying scenarios in every language, so each
// formula's branch of each template runs and keeps to its envelope.
func TestJitterStrategiesProven(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every snippet in its runtime")
	}
	var langs []string
	for _, l := range snippets.Languages() {
		if available(t, l) {
			langs = append(langs, l.Name)
		}
	}
	if len(langs) == 0 {
		return
	}
	cache := cacheDir()
	for _, jitter := range []contract.Jitter{"decorrelated", "equal", "none"} {
		t.Run(string(jitter), func(t *testing.T) {
			c := loadExample(t)
			c.Retry.Backoff.Jitter = jitter
			switch jitter {
			case "decorrelated":
				// Another header name and a templated path: nothing is
				// hard-coded to the example's.
				c.Idempotency.Header = "Payout-Request-Key"
				c.Endpoints[0].Path = "/v2/accounts/{account_id}/payouts"
			case "equal":
				// A 5XX class beside the cautious 500: the 500 keeps its
				// once-only limit, the 503 is retried through the class.
				c.Retry.Statuses = []contract.StatusSpec{{Code: 429}, {Code: 5, Class: true}}
			case "none":
				c.Idempotency.HeaderValue = "sf-string"
			}
			rep, err := Run(context.Background(), c, Options{
				Languages: langs,
				Runner:    run.Exec{},
				Vars: map[string]string{
					"jars":      filepath.Join(cache, "jars") + "/*",
					"tsc":       filepath.Join(cache, "node_modules", ".bin", "tsc"),
					"typeroots": filepath.Join(cache, "node_modules", "@types"),
				},
				Scenarios: []string{"recover-after-503", "give-up-at-max-attempts", "500-retried-once-only", "in-flight-conflict-retried"},
				Parallel:  2, MaxProcs: 4,
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range rep.Outcomes {
				if !o.Passed() {
					t.Errorf("%s %s: %v", o.Language, o.Scenario, o.Problems)
				}
			}
			passed, failed := rep.Counts()
			t.Logf("%s jitter: %d passed, %d failed in %.1fs", jitter, passed, failed, rep.Elapsed.Seconds())
			if passed < len(langs)*4 {
				t.Errorf("only %d outcomes passed for %d languages", passed, len(langs))
			}
		})
	}
}
