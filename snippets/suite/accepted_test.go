package suite

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/run"
)

// acceptedExample is the payouts example under in_flight.response:
// accepted: a repeat of a key whose first request still runs gets 202.
func acceptedExample(t *testing.T) *contract.Contract {
	t.Helper()
	c := loadExample(t)
	c.Idempotency.InFlight.Response = contract.InFlightAccepted
	return c
}

// acceptedVariants are accepted-mode contracts and the in-flight scenarios
// each gets: the default error body (the code looked for anywhere), the
// code at api.error_body's place, and `code: none`.
var acceptedVariants = []struct {
	name      string
	mutate    func(c *contract.Contract)
	scenarios []string
}{
	{"default error body", func(*contract.Contract) {}, []string{"in-flight-202-polled", "handler-202-is-the-result"}},
	{"stripe-like error body", func(c *contract.Contract) { c.API.ErrorBody = errorBodyShapes[0].body },
		[]string{"in-flight-202-polled", "handler-202-is-the-result", "in-flight-code-elsewhere-is-the-result"}},
	{"code none", func(c *contract.Contract) { c.Idempotency.Conflicts.InFlight.Code = "" }, []string{"in-flight-202-polled"}},
}

// TestAcceptedScenarios: under accepted the fault server answers the
// in-flight 202 as the middleware does (contract.Reply's status and code,
// the code at api.error_body's place) before the stored result, and a 202
// without that code is a scenario of its own, taken as the result.
func TestAcceptedScenarios(t *testing.T) {
	names := func(list []Scenario) (out []string) {
		for _, sc := range list {
			out = append(out, sc.Name)
		}
		return out
	}
	for _, tt := range acceptedVariants {
		t.Run(tt.name, func(t *testing.T) {
			c := acceptedExample(t)
			tt.mutate(c)
			p, err := snippets.NewPolicy(c)
			if err != nil {
				t.Fatal(err)
			}
			var got []Scenario
			list, _ := Scenarios(p)
			for _, sc := range list {
				if sc.Kind == KindInFlight || sc.Kind == KindInFlightElsewhere {
					got = append(got, sc)
				}
			}
			if strings.Join(names(got), " ") != strings.Join(tt.scenarios, " ") {
				t.Fatalf("in-flight scenarios %q, want %q", names(got), tt.scenarios)
			}
			rep := c.Reply(contract.ReplyInFlightAccepted)
			polled := got[0]
			if polled.Requests != 3 || !polled.Success || len(polled.Script) != 3 {
				t.Errorf("polled scenario: %d requests, success %v, %d steps; want two 202s then the stored result", polled.Requests, polled.Success, len(polled.Script))
			}
			for _, step := range polled.Script[:2] {
				if step.Status != rep.Status || pointerValue(t, step.Body, c.API.ErrorBody.Effective().CodeAt) != rep.Code {
					t.Errorf("in-flight step %d %s, want the middleware's %d with %q at its place", step.Status, step.Body, rep.Status, rep.Code)
				}
			}
			if last := polled.Script[2]; last.Status/100 != 2 || last.Status == rep.Status {
				t.Errorf("the stored result is %d, want a 2xx other than %d", last.Status, rep.Status)
			}
			for _, sc := range got[1:] {
				if sc.Requests != 1 || !sc.Success || sc.Script[0].Status != rep.Status {
					t.Errorf("%s: a %d that is not the in-flight answer must be the result at once", sc.Name, sc.Script[0].Status)
				}
			}
		})
	}
	c := loadExample(t)
	p, _ := snippets.NewPolicy(c)
	if list, _ := Scenarios(p); strings.Contains(strings.Join(names(list), " "), "202") {
		t.Errorf("a conflict-mode contract gets accepted scenarios: %q", names(list))
	}
}

// TestAcceptedInFlightProven runs every language's snippet of an
// accepted-mode contract: the 202 with the in-flight code is polled with
// the same key until the stored result comes back, a handler's own 202 is
// the result; for each of acceptedVariants.
func TestAcceptedInFlightProven(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every snippet in its runtime")
	}
	langs := availableLanguages(t)
	if len(langs) == 0 {
		return
	}
	for _, tt := range acceptedVariants {
		t.Run(tt.name, func(t *testing.T) {
			c := acceptedExample(t)
			tt.mutate(c)
			rep := proveScenarios(t, c, langs, tt.scenarios...)
			passed, failed := rep.Counts()
			t.Logf("%s: %d passed, %d failed in %.1fs", tt.name, passed, failed, rep.Elapsed.Seconds())
			if passed < len(langs)*len(tt.scenarios) {
				t.Errorf("only %d outcomes passed for %d languages and %d scenarios", passed, len(langs), len(tt.scenarios))
			}
		})
	}
}

// acceptedMutations undo the fix in each language's snippet, one edit per
// language (testdata/accepted-mutations.json): the success path takes any
// 2xx for the result again, so the in-flight 202 is reported as the
// payout. Each must fail the polled scenario.
func acceptedMutations(t *testing.T) map[string]struct{ Old, New string } {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "accepted-mutations.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]struct{ Old, New string }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAcceptedCatchesResultTaker: with the fix removed from a language's
// snippet, the polled scenario fails in that language's runtime (the
// server sees one request, not the polls).
func TestAcceptedCatchesResultTaker(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every snippet in its runtime")
	}
	mutations := acceptedMutations(t)
	for _, lang := range availableLanguages(t) {
		t.Run(lang, func(t *testing.T) {
			mut, ok := mutations[lang]
			if !ok {
				t.Fatalf("no mutation for %s in testdata/accepted-mutations.json: add the edit that drops its check of a 2xx for the in-flight answer", lang)
			}
			m := &mutatingRunner{Runner: run.Exec{}, old: mut.Old, new: mut.New}
			cache := cacheDir()
			rep, err := Run(context.Background(), acceptedExample(t), Options{
				Languages: []string{lang}, Runner: m, Scenarios: []string{"in-flight-202-polled"},
				Vars: map[string]string{
					"jars":      filepath.Join(cache, "jars") + "/*",
					"tsc":       filepath.Join(cache, "node_modules", ".bin", "tsc"),
					"typeroots": filepath.Join(cache, "node_modules", "@types"),
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if !m.applied {
				t.Fatalf("mutation %q does not apply to the rendered snippet", mut.Old)
			}
			var all []string
			for _, o := range rep.Outcomes {
				all = append(all, o.Problems...)
			}
			if !strings.Contains(strings.Join(all, "\n"), "server saw 1 requests, want 3") {
				t.Errorf("the client that takes the 202 for the result was not caught: %q", all)
			}
		})
	}
}

// TestAcceptedCatchesEvery202Poller: a Python client that polls every 202,
// not only the one with the in-flight code, fails the handler's-202
// scenario.
func TestAcceptedCatchesEvery202Poller(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Python")
	}
	if !slices.Contains(availableLanguages(t), "python") {
		return
	}
	m := &mutatingRunner{Runner: run.Exec{}, old: "status == IN_FLIGHT_STATUS and has_code(payload, IN_FLIGHT_CODE)", new: "status == IN_FLIGHT_STATUS"}
	rep, err := Run(context.Background(), acceptedExample(t), Options{
		Languages: []string{"python"}, Runner: m, Scenarios: []string{"handler-202-is-the-result"},
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
		t.Errorf("the every-202 poller was not caught: %q", all)
	}
}
