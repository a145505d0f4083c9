package client_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/verify"
	"github.com/retryspec/retryspec/verify/client"
)

// scaledExample is examples/NAME/retryspec.yaml with its clock scaled as
// testdata/retryspec.yaml scales the payouts contract (cap 2s, max_elapsed
// 12s, attempt_timeout 5s, the base kept at 1s for the jitter gate), so a
// run of every scenario takes half a minute. Everything else, the key's
// place and the first-sent header included, is the example's.
func scaledExample(t *testing.T, name string) *contract.Contract {
	t.Helper()
	c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "examples", name, "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Retry.Backoff.Base.D != time.Second {
		t.Fatalf("examples/%s: backoff base %s, the scaling here assumes 1s", name, c.Retry.Backoff.Base)
	}
	c.Retry.Backoff.Cap = contract.Dur(2 * time.Second)
	c.Retry.MaxElapsed = contract.Dur(12 * time.Second)
	c.Retry.AttemptTimeout = contract.AttemptTimeout{Bare: contract.Dur(5 * time.Second)}
	return c
}

// TestExampleSnippetsPassEveryGate runs the snippets `retryspec snippets`
// writes for the Square contract (the key in the JSON body at
// /idempotency_key) and the Azure one (Repeatability-Request-Id with
// Repeatability-First-Sent) through every gate: each passes every gate its
// contract asks about.
func TestExampleSnippetsPassEveryGate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs programs through every fault scenario (about a minute each)")
	}
	// Python and Node, two interpreted runtimes, keep the test to
	// minutes; `snippets test` proves every language's key handling.
	for _, example := range []string{"square-payments", "azure-email"} {
		t.Run(example+"/python", func(t *testing.T) { t.Parallel(); exampleSnippetPasses(t, example, "python") })
		t.Run(example+"/node", func(t *testing.T) { t.Parallel(); exampleSnippetPasses(t, example, "node") })
	}
}

func exampleSnippetPasses(t *testing.T, example, lang string) {
	l := need(t, lang)
	c := scaledExample(t, example)
	dir := t.TempDir()
	file := writeSnippet(t, c, lang, dir)
	argv := slices.Clone(l.Run)
	for i := range argv {
		argv[i] = strings.ReplaceAll(argv[i], "{file}", file)
	}
	res := verifyClient(t, client.Options{Contract: c, Command: argv, Dir: dir, Runs: 5})
	for id, g := range results(t, res) {
		if want := sound(c, id); g.Result != want {
			t.Errorf("%s %s, want %s: %s", id, g.Result, want, g.Reason)
		}
	}
}

// TestBrokenKeyPlaceClients: the Python snippet of each example with one
// mistake about where the key or the first-sent time travels fails exactly
// the gate that guards it, its finding at the contract path of that place,
// and every other gate holds.
func TestBrokenKeyPlaceClients(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Python through every fault scenario")
	}
	for _, tt := range []struct {
		name, example string
		edits         []string
		gate, path    string
		reason        string
	}{
		{"restamps first-sent on each attempt", "azure-email",
			[]string{"FIRST_SENT_HEADER: first_sent}", "FIRST_SENT_HEADER: email.utils.formatdate(usegmt=True)}"},
			"client/first-sent", "idempotency.first_sent.header", "a retry repeats the first-sent time, never restamps it"},
		{"omits first-sent", "azure-email",
			[]string{", FIRST_SENT_HEADER: first_sent}", "}"},
			"client/first-sent", "idempotency.first_sent.header", "attempt 1 carries no Repeatability-First-Sent header"},
		{"sends the key in a header instead of the body", "square-payments",
			[]string{
				"data = json.dumps(with_key(body, key)).encode()", "data = json.dumps(body).encode()",
				`headers={"Content-Type": "application/json"}`, `headers={"Content-Type": "application/json", "Idempotency-Key": key}`,
			},
			"client/same-key", "idempotency.key_field", "attempt 1 carries no key in the /idempotency_key member of the JSON body"},
		{"mints a body key per attempt", "square-payments",
			[]string{"data=data,", "data=json.dumps(with_key(body, str(uuid.uuid4()))).encode(),"},
			"client/same-key", "idempotency.key_field", "attempt 2 carries another key than attempt 1 in the /idempotency_key member of the JSON body"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			need(t, "python")
			c := scaledExample(t, tt.example)
			dir := t.TempDir()
			file := writeSnippet(t, c, "python", dir, tt.edits...)
			res := verifyClient(t, client.Options{Contract: c, Command: []string{"python3", file}, Dir: dir, Runs: 5})
			for id, g := range results(t, res) {
				want := sound(c, id)
				if id == tt.gate {
					want = verify.Failed
					if !strings.Contains(g.Reason, tt.reason) {
						t.Errorf("%s: reason lacks %q:\n%s", id, tt.reason, g.Reason)
					}
				}
				if g.Result != want {
					t.Errorf("%s %s, want %s: %s", id, g.Result, want, g.Reason)
				}
			}
			if len(res.Findings) != 1 || res.Findings[0].Rule != tt.gate || res.Findings[0].Path != tt.path || res.Findings[0].Line < 2 {
				t.Errorf("findings %+v, want one of %s at %s with its line", res.Findings, tt.gate, tt.path)
			}
		})
	}
}
