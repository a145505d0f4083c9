package suite

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/run"
)

// azureExample is Azure Communication Services' email contract, whose
// window runs from the client's first-sent time (idempotency.first_sent).
func azureExample(t *testing.T) *contract.Contract {
	t.Helper()
	c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "examples", "azure-email", "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fileMutations edits each language's rendered source by its file name,
// so one suite run breaks every language at once.
type fileMutations struct {
	run.Runner
	edits   map[string]struct{ Old, New string } // by snippet file name
	applied map[string]bool
}

func (m *fileMutations) Prepare(ctx context.Context, p run.Program) (run.Prepared, error) {
	if e, ok := m.edits[p.FileName]; ok {
		src := string(p.Source)
		m.applied[p.FileName] = strings.Contains(src, e.Old)
		p.Source = []byte(strings.Replace(src, e.Old, e.New, 1))
	}
	return m.Runner.Prepare(ctx, p)
}

// TestFirstSentScenarios: only a first-sent contract gets the too-old
// scenario, answered with contract.Reply's too-old status and code.
func TestFirstSentScenarios(t *testing.T) {
	c := azureExample(t)
	p, err := snippets.NewPolicy(c)
	if err != nil {
		t.Fatal(err)
	}
	rep := c.Reply(contract.ReplyTooOld)
	if p.FirstSentHeader != "Repeatability-First-Sent" || p.TooOldStatus != rep.Status || p.TooOldCode != rep.Code {
		t.Fatalf("policy first-sent %q, too old %d %q; want the contract's header and %d %q", p.FirstSentHeader, p.TooOldStatus, p.TooOldCode, rep.Status, rep.Code)
	}
	list, _ := Scenarios(p)
	var found bool
	for _, sc := range list {
		if sc.Name == "no-retry-too-old" {
			found = true
			if sc.Requests != 1 || sc.Success || sc.Script[0].Status != rep.Status {
				t.Errorf("too-old scenario: %d requests, success %v, status %d; want one refused %d", sc.Requests, sc.Success, sc.Script[0].Status, rep.Status)
			}
		}
	}
	if !found {
		t.Error("a first-sent contract has no too-old scenario")
	}
	p, _ = snippets.NewPolicy(loadExample(t))
	list, _ = Scenarios(p)
	for _, sc := range list {
		if sc.Name == "no-retry-too-old" {
			t.Error("a contract without first_sent gets the too-old scenario")
		}
	}
}

// TestFirstSentCatchesBrokenClients breaks each language's first-sent
// header (testdata/first-sent-mutations.json): one edit drops it, one
// restamps it on every attempt. In every runtime, recover-after-503 (whose
// last retry waits out a one-second Retry-After, so a restamped time
// differs) must fail on the header.
func TestFirstSentCatchesBrokenClients(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every snippet in its runtime")
	}
	b, err := os.ReadFile(filepath.Join("testdata", "first-sent-mutations.json"))
	if err != nil {
		t.Fatal(err)
	}
	var mutations map[string]map[string]struct{ Old, New string }
	if err := json.Unmarshal(b, &mutations); err != nil {
		t.Fatal(err)
	}
	langs := availableLanguages(t)
	for _, kind := range []struct{ name, want string }{
		{"omit", "carries no Repeatability-First-Sent header"},
		{"restamp", "the first-sent time is stamped once per logical request"},
	} {
		t.Run(kind.name, func(t *testing.T) {
			m := &fileMutations{Runner: run.Exec{}, edits: map[string]struct{ Old, New string }{}, applied: map[string]bool{}}
			for _, lang := range langs {
				mut, ok := mutations[lang][kind.name]
				if !ok {
					t.Fatalf("no %s mutation for %s in testdata/first-sent-mutations.json", kind.name, lang)
				}
				l, _ := snippets.LanguageNamed(lang)
				m.edits[l.FileName] = mut
			}
			cache := cacheDir()
			rep, err := Run(context.Background(), azureExample(t), Options{
				Languages: langs, Runner: m, Scenarios: []string{"recover-after-503"},
				Vars: map[string]string{
					"jars":      filepath.Join(cache, "jars") + "/*",
					"tsc":       filepath.Join(cache, "node_modules", ".bin", "tsc"),
					"typeroots": filepath.Join(cache, "node_modules", "@types"),
				},
				Parallel: 1, MaxProcs: 4,
			})
			if err != nil {
				t.Fatal(err)
			}
			caught := map[string]bool{}
			for _, o := range rep.Outcomes {
				if strings.Contains(strings.Join(o.Problems, "\n"), kind.want) {
					caught[o.Language] = true
				}
			}
			for _, lang := range langs {
				l, _ := snippets.LanguageNamed(lang)
				if !m.applied[l.FileName] {
					t.Errorf("%s: the mutation %q does not apply to the rendered snippet", lang, m.edits[l.FileName].Old)
				} else if !caught[lang] {
					t.Errorf("%s: the client whose first-sent header is broken (%s) was not caught", lang, kind.name)
				}
			}
		})
	}
}
