package client_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/run"
	"github.com/retryspec/retryspec/snippets/suite"
	"github.com/retryspec/retryspec/verify"
	"github.com/retryspec/retryspec/verify/client"
)

// scaled is the payouts contract with its clock scaled down (testdata
// says how), so a run of every scenario takes seconds.
func scaled(t *testing.T) *contract.Contract {
	t.Helper()
	c, err := contract.Load(filepath.Join("testdata", "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// need checks a language's runtime as the snippet suite does: a missing
// one fails on CI and skips loudly elsewhere.
func need(t *testing.T, lang string) snippets.Language {
	t.Helper()
	l, ok := snippets.LanguageNamed(lang)
	if !ok {
		t.Fatalf("no snippet language %q", lang)
	}
	if msg := suite.MissingNeed(context.Background(), l, suite.Options{Runner: run.Exec{}}, exec.LookPath); msg != "" {
		testenv.Missing(t, msg+" (or run .ci/install-snippets)")
	}
	return l
}

// writeSnippet renders lang's snippet of c into dir, as
// `retryspec snippets --lang L --out DIR` does, and returns its file name.
func writeSnippet(t *testing.T, c *contract.Contract, lang, dir string, edits ...string) string {
	t.Helper()
	l, _ := snippets.LanguageNamed(lang)
	src, err := snippets.Render(c, lang)
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(s, edits[i]) {
			t.Fatalf("edit %q does not apply to the rendered %s snippet", edits[i], lang)
		}
		s = strings.Replace(s, edits[i], edits[i+1], 1)
	}
	if err := os.WriteFile(filepath.Join(dir, l.FileName), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return l.FileName
}

// docsExample is the first fenced block tagged fence in docs/verify.md's
// "Verify a client" section: the program the docs show is the one tested.
func docsExample(t *testing.T, fence string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "docs", "verify.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Verify a client\n")
	if !ok {
		t.Fatal(`docs/verify.md has no "## Verify a client" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	m := regexp.MustCompile("(?s)\n```" + fence + "\n(.*?)\n```\n").FindStringSubmatch(section)
	if m == nil {
		t.Fatalf("the Verify a client section has no %s block", fence)
	}
	return m[1] + "\n"
}

func verifyClient(t *testing.T, o client.Options) *verify.Result {
	t.Helper()
	o.Env = os.Environ()
	res, err := client.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// results maps each gate to its result, and logs the table.
func results(t *testing.T, res *verify.Result) map[string]verify.GateResult {
	t.Helper()
	out := map[string]verify.GateResult{}
	for _, g := range res.Gates {
		t.Logf("%-30s %-7s %s", g.Gate, g.Result, strings.SplitN(g.Reason, "\n", 2)[0])
		out[g.Gate] = g
	}
	if len(out) != len(client.Gates) {
		t.Errorf("%d gates reported, want every one of %d", len(out), len(client.Gates))
	}
	return out
}

// TestProgramsPassEveryGate runs the project's own snippets (the languages
// that need no build step), and the two example programs of docs/verify.md
// around them, through every gate.
func TestProgramsPassEveryGate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs programs through every fault scenario (about a minute each)")
	}
	c := scaled(t)
	for _, tt := range []struct {
		name, lang string
		// docs is the fence of the docs example to run (around the
		// snippet), file its name; empty runs the snippet itself as its
		// language's registry row says.
		docs, file string
		run        func(file string) []string
	}{
		{name: "snippet/python", lang: "python"},
		{name: "snippet/node", lang: "node"},
		{name: "snippet/ruby", lang: "ruby"},
		{name: "snippet/curl", lang: "curl"},
		{name: "docs/python", lang: "python", docs: "python", file: "verify_client.py", run: func(f string) []string { return []string{"python3", f} }},
		{name: "docs/node", lang: "node", docs: "javascript", file: "verify-client.mjs", run: func(f string) []string { return []string{"node", f} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := need(t, tt.lang)
			dir := t.TempDir()
			file := writeSnippet(t, c, tt.lang, dir)
			command := func(f string) []string {
				argv := slices.Clone(l.Run)
				for i := range argv {
					argv[i] = strings.ReplaceAll(argv[i], "{file}", f)
				}
				return argv
			}
			if tt.run != nil {
				command = tt.run
			}
			if tt.docs != "" {
				file = tt.file
				if err := os.WriteFile(filepath.Join(dir, file), []byte(docsExample(t, tt.docs)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// Five runs of the backoff scenario: fourteen waits for the jitter gate.
			res := verifyClient(t, client.Options{Contract: c, Command: command(file), Dir: dir, Runs: 5})
			for id, g := range results(t, res) {
				if want := sound(c, id); g.Result != want {
					t.Errorf("%s %s, want %s: %s", id, g.Result, want, g.Reason)
				}
			}
		})
	}
}

// sound is the result a sound client gets from gate id under c: passed,
// or skipped where c does not ask what the gate judges (client/first-sent
// without idempotency.first_sent).
func sound(c *contract.Contract, id string) verify.Outcome {
	if id == "client/first-sent" && !c.Idempotency.FirstSent.Set() {
		return verify.Skipped
	}
	return verify.Passed
}

// TestBrokenClientFailsItsGates: the Python snippet with three mistakes
// (a fresh key per attempt, no jitter, a 400 retried) fails exactly the
// three gates that guard them, and every other gate holds.
func TestBrokenClientFailsItsGates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Python through every fault scenario")
	}
	t.Parallel()
	need(t, "python")
	c := scaled(t)
	dir := t.TempDir()
	file := writeSnippet(t, c, "python", dir,
		"KEY_HEADER: header_value(key)", "KEY_HEADER: header_value(str(uuid.uuid4()))",
		"backoff = wait_random_exponential(multiplier=BASE, max=CAP, exp_base=MULTIPLIER)", "backoff = lambda rs: min(CAP, BASE * MULTIPLIER ** (rs.attempt_number - 1))",
		"    return AttemptFailed(error)\n", "    return AttemptFailed(error, retryable=status == 400)\n",
	)
	res := verifyClient(t, client.Options{Contract: c, Command: []string{"python3", file}, Dir: dir})
	broken := []string{"client/same-key", "client/jitter", "client/no-retry-client-error"}
	for id, g := range results(t, res) {
		want := sound(c, id)
		if slices.Contains(broken, id) {
			want = verify.Failed
		}
		if g.Result != want {
			t.Errorf("%s %s, want %s: %s", id, g.Result, want, g.Reason)
		}
	}
	if len(res.Findings) != len(broken) {
		t.Fatalf("%d findings, want %d", len(res.Findings), len(broken))
	}
	for _, f := range res.Findings {
		// Each failure names its contract line and fix; under it, the
		// attempts the server saw and the command that reruns the gate.
		notes := strings.Join(f.Reproduction, "\n")
		if f.File != c.File || f.Line == 0 || f.Fix == "" || !strings.Contains(notes, "--only "+f.Rule) ||
			!strings.Contains(notes, "attempts seen") && f.Rule != "client/jitter" {
			t.Errorf("finding %s lacks its place, fix, attempts or rerun command: %+v\n%s", f.Rule, f.Finding, notes)
		}
	}
	for _, want := range []struct{ gate, text string }{
		{"client/same-key", "carries another key than attempt 1"},
		{"client/jitter", "at least its envelope's top"},
		{"client/no-retry-client-error", "the server saw 3 attempts, want 1"},
	} {
		for _, g := range res.Gates {
			if g.Gate == want.gate && !strings.Contains(g.Reason, want.text) {
				t.Errorf("%s: reason %q lacks %q", g.Gate, g.Reason, want.text)
			}
		}
	}
}
