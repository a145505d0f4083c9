package suite

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/run"
)

// errorBodyShapes are the error bodies of real APIs: Stripe's nested
// object, Resend's flat body with the code in "name", JSON:API's list.
var errorBodyShapes = []struct {
	name string
	body contract.ErrorBody
}{
	{"stripe-like", contract.ErrorBody{CodeAt: []string{"error", "code"}, MessageAt: []string{"error", "message"}}},
	{"flat", contract.ErrorBody{CodeAt: []string{"name"}, MessageAt: []string{"message"}}},
	{"json-api", contract.ErrorBody{CodeAt: []string{"errors", "0", "code"}, MessageAt: []string{"errors", "0", "detail"}}},
	{"problem+json", contract.ErrorBody{CodeAt: []string{"code"}, MessageAt: []string{"detail"}, Format: contract.ErrorFormatProblem}},
}

// TestErrorBodyScenarios: with api.error_body set, the fault server
// answers in that shape, and a body with the code in another member is a
// scenario of its own. Without it, the bodies are as before.
func TestErrorBodyScenarios(t *testing.T) {
	c := loadExample(t)
	p, err := snippets.NewPolicy(c)
	if err != nil {
		t.Fatal(err)
	}
	find := func(list []Scenario, name string) *Scenario {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
		return nil
	}
	list, _ := Scenarios(p)
	if find(list, "in-flight-code-elsewhere-not-retried") != nil {
		t.Error("the misplaced-code scenario runs without api.error_body")
	}
	if got := find(list, "in-flight-conflict-retried").Script[0].Body; got != `{"code":"concurrent_idempotent_requests","message":"see docs"}` {
		t.Errorf("default in-flight body changed: %s", got)
	}
	for _, shape := range errorBodyShapes {
		p.ErrorBody = shape.body
		list, _ := Scenarios(p)
		in := find(list, "in-flight-conflict-retried")
		elsewhere := find(list, "in-flight-code-elsewhere-not-retried")
		if in == nil || elsewhere == nil {
			t.Fatalf("%s: in-flight scenarios missing", shape.name)
		}
		if got, want := pointerValue(t, in.Script[0].Body, shape.body.CodeAt), p.InFlightCode; got != want {
			t.Errorf("%s: in-flight body %s has %q at %s, want %q", shape.name, in.Script[0].Body, got, contract.Pointer(shape.body.CodeAt), want)
		}
		body := elsewhere.Script[0].Body
		if got := pointerValue(t, body, shape.body.CodeAt); got != "" || !strings.Contains(body, p.InFlightCode) {
			t.Errorf("%s: misplaced body %s should carry the code, but not at %s", shape.name, body, contract.Pointer(shape.body.CodeAt))
		}
	}
}

// pointerValue reads the string at tokens in a JSON body, "" when absent.
func pointerValue(t *testing.T, body string, tokens []string) string {
	t.Helper()
	var node any
	if err := json.Unmarshal([]byte(body), &node); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	for _, tok := range tokens {
		switch n := node.(type) {
		case map[string]any:
			node = n[tok]
		case []any:
			if tok != "0" || len(n) == 0 {
				return ""
			}
			node = n[0]
		default:
			return ""
		}
	}
	s, _ := node.(string)
	return s
}

// TestErrorBodyShapesProven runs every language's snippet, rendered for
// each error body shape, against the fault server answering in that shape:
// the in-flight conflict is waited out when its code is where the contract
// says, and not when the same code sits in another member.
func TestErrorBodyShapesProven(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every snippet in its runtime")
	}
	langs := availableLanguages(t)
	if len(langs) == 0 {
		return
	}
	for _, shape := range errorBodyShapes {
		t.Run(shape.name, func(t *testing.T) {
			c := loadExample(t)
			c.API.ErrorBody = shape.body
			rep := proveScenarios(t, c, langs, "in-flight-conflict-retried", "in-flight-code-elsewhere-not-retried")
			passed, failed := rep.Counts()
			t.Logf("%s: %d passed, %d failed in %.1fs", shape.name, passed, failed, rep.Elapsed.Seconds())
			if passed < len(langs)*2 {
				t.Errorf("only %d outcomes passed for %d languages", passed, len(langs))
			}
		})
	}
}

// TestStatusOnlyInFlightProven: a contract whose in-flight conflict has no
// code (`code: none`) and a status of its own gets snippets that wait it
// out on the status alone, and still stop on the payload mismatch; the
// fault server's in-flight body carries no code.
func TestStatusOnlyInFlightProven(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every snippet in its runtime")
	}
	langs := availableLanguages(t)
	if len(langs) == 0 {
		return
	}
	c := loadExample(t)
	c.Idempotency.Conflicts.InFlight = contract.Conflict{Status: 423}
	c.Idempotency.Conflicts.PayloadMismatch = contract.Conflict{Status: 422}
	p, err := snippets.NewPolicy(c)
	if err != nil {
		t.Fatal(err)
	}
	if !p.InFlight || p.InFlightCode != "" {
		t.Fatalf("policy: in flight %v, code %q; want a status-only conflict to wait out", p.InFlight, p.InFlightCode)
	}
	rep := proveScenarios(t, c, langs, "in-flight-conflict-retried", "no-retry-payload-mismatch")
	if passed, _ := rep.Counts(); passed < len(langs)*2 {
		t.Errorf("only %d outcomes passed for %d languages", passed, len(langs))
	}
}

// TestMisplacedCodeCatchesAnywhereClient: a Python client that looks for
// the in-flight code anywhere in the body, instead of at code_at, fails
// the misplaced-code scenario.
func TestMisplacedCodeCatchesAnywhereClient(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Python")
	}
	testenv.LookPath(t, "python3")
	if exec.Command("python3", "-c", "from tenacity import stop_before_delay").Run() != nil {
		testenv.Missing(t, "python package tenacity>=8.3 (run .ci/install-snippets)")
	}
	c := loadExample(t)
	c.API.ErrorBody = errorBodyShapes[0].body
	m := &mutatingRunner{Runner: run.Exec{}, old: "def has_code(payload, code):\n", new: "def has_code(payload, code):\n    return code in payload.decode()\n"}
	rep, err := Run(context.Background(), c, Options{
		Languages: []string{"python"}, Runner: m, Scenarios: []string{"in-flight-code-elsewhere-not-retried"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !m.applied {
		t.Fatal("the mutation does not apply to the rendered snippet")
	}
	var all []string
	for _, o := range rep.Outcomes {
		all = append(all, o.Problems...)
	}
	if !strings.Contains(strings.Join(all, "\n"), "requests, want 1") {
		t.Errorf("the anywhere-client was not caught: %q", all)
	}
}

// availableLanguages lists the languages whose runtime is installed (a
// missing one is reported by available).
func availableLanguages(t *testing.T) []string {
	var langs []string
	for _, l := range snippets.Languages() {
		if available(t, l) {
			langs = append(langs, l.Name)
		}
	}
	return langs
}

// proveScenarios runs c's snippets in langs through the named scenarios
// and reports every outcome that did not pass.
func proveScenarios(t *testing.T, c *contract.Contract, langs []string, scenarios ...string) Report {
	t.Helper()
	rep, err := Run(context.Background(), c, Options{
		Languages: langs,
		Runner:    run.Exec{},
		Vars:      runtimeVars(),
		Scenarios: scenarios,
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
	return rep
}
