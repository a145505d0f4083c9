package suite

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/faultserver"
	"github.com/retryspec/retryspec/snippets/run"
)

// azureExample is Azure Communication Services' email contract, whose
// window runs from the client's first-sent time (idempotency.first_sent).
func azureExample(t *testing.T) *contract.Contract {
	t.Helper()
	return loadNamed(t, "azure-email")
}

// fileMutations edits each language's rendered source by its file name,
// so one suite run breaks every language at once.
type fileMutations struct {
	run.Runner
	edits map[string]struct{ Old, New string } // by snippet file name

	mu      sync.Mutex // the suite prepares languages in parallel
	applied map[string]bool
}

func (m *fileMutations) Prepare(ctx context.Context, p run.Program) (run.Prepared, error) {
	if e, ok := m.edits[p.FileName]; ok {
		src := string(p.Source)
		m.mu.Lock()
		m.applied[p.FileName] = strings.Contains(src, e.Old)
		m.mu.Unlock()
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

// TestCheckFirstSent: the suite's first-sent check against recorded
// histories, each breaking one thing a real client could get wrong.
func TestCheckFirstSent(t *testing.T) {
	p := testPolicy()
	p.FirstSentHeader = "Repeatability-First-Sent"
	start := time.Date(2026, 12, 3, 8, 49, 37, 400e6, time.UTC)
	arrived := start.Add(800 * time.Millisecond)
	good := "Thu, 03 Dec 2026 08:49:37 GMT"
	tests := []struct {
		name  string
		sent  []string
		want  string // "" passes
		drop  bool   // no first-sent header in the contract
		start time.Time
	}{
		{name: "stamped once", sent: []string{good, good, good}},
		{name: "no first_sent in the contract", sent: []string{"", ""}, drop: true},
		{name: "missing", sent: []string{"", ""}, want: "request 1 carries no Repeatability-First-Sent header"},
		{name: "missing on a retry", sent: []string{good, ""}, want: "request 2 carries no Repeatability-First-Sent header"},
		{name: "restamped", sent: []string{good, "Thu, 03 Dec 2026 08:49:38 GMT"}, want: "stamped once per logical request"},
		{name: "day not padded", sent: []string{"Thu, 3 Dec 2026 08:49:37 GMT"}, want: "is not an HTTP date"},
		{name: "numeric zone", sent: []string{"Thu, 03 Dec 2026 08:49:37 -0000"}, want: "is not an HTTP date"},
		{name: "obsolete RFC 850 form", sent: []string{"Thursday, 03-Dec-26 08:49:37 GMT"}, want: "is not an IMF-fixdate"},
		{name: "a fixed date", sent: []string{"Sun, 06 Nov 1994 08:49:37 GMT"}, want: "stamp the time the call is first sent"},
		{name: "after the first arrival", sent: []string{"Thu, 03 Dec 2026 08:49:39 GMT"}, want: "stamp the time the call is first sent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := p
			if tt.drop {
				p.FirstSentHeader = ""
			}
			var reqs []faultserver.Request
			for i, v := range tt.sent {
				reqs = append(reqs, faultserver.Request{Arrived: arrived.Add(time.Duration(i) * time.Second), FirstSent: v})
			}
			got := strings.Join(checkFirstSent(p, start, reqs), "\n")
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("problems %q, want %q", got, tt.want)
			}
		})
	}
}

// TestTooOldNeverRetried: the too-old answer is left out of the retried
// and cautious statuses even when the contract gives it a status that the
// retry allowlist names (a retry carries the same first-sent time).
func TestTooOldNeverRetried(t *testing.T) {
	for _, status := range []int{503, 500} {
		c := azureExample(t)
		c.Idempotency.Conflicts.TooOld.Status = status
		p, err := snippets.NewPolicy(c)
		if err != nil {
			t.Fatal(err)
		}
		if p.TooOldStatus != status || slices.Contains(p.Statuses, status) || slices.Contains(p.Cautious, status) {
			t.Errorf("too_old %d: policy too-old %d, retried %v, cautious %v; want it in neither list", status, p.TooOldStatus, p.Statuses, p.Cautious)
		}
	}
}

// TestTooOldInRetriedClassProven: a too-old answer whose status falls in a
// class the policy retries (503 under 5XX) is still never retried: every
// language's snippet stops after the one refused request. The policy can
// leave a status out of its lists but not out of a class, so each
// template tests the too-old status before the allowlist.
func TestTooOldInRetriedClassProven(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every snippet in its runtime")
	}
	langs := availableLanguages(t)
	if len(langs) == 0 {
		return
	}
	c := azureExample(t)
	c.Idempotency.Conflicts.TooOld.Status = 503
	c.Retry.Statuses = append(c.Retry.Statuses, contract.StatusSpec{Code: 5, Class: true})
	p, err := snippets.NewPolicy(c)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.StatusClasses, 5) {
		t.Fatalf("policy classes %v: the premise (5XX retried) is lost", p.StatusClasses)
	}
	rep := proveScenarios(t, c, langs, "no-retry-too-old")
	if passed, _ := rep.Counts(); passed < len(langs) {
		t.Errorf("only %d of %d languages stopped at the too-old answer", passed, len(langs))
	}
}
