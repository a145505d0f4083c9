package suite

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/faultserver"
	"github.com/retryspec/retryspec/snippets/run"
)

// loadShopify is the GraphQL fixture: Shopify's inventory mutations, the
// key in @idempotent(key:), conflicts as userErrors codes in a 200.
func loadShopify(t *testing.T) *contract.Contract {
	t.Helper()
	c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "examples", "shopify-inventory", "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// graphQLScenarios are the scenarios TestGraphQLProven runs: a retried
// status, a reset connection, the concurrent-request userError (retried
// with the same key), the parameter mismatch, the in-flight code outside
// its place and another userError (none of them retried).
var graphQLScenarios = []string{"recover-after-503", "reset-connection-retried", "in-flight-conflict-retried",
	"no-retry-payload-mismatch", "in-flight-code-elsewhere-not-retried", "no-retry-other-error-entry"}

// TestGraphQLProven runs every language's snippet for the GraphQL
// fixture against the fault server reading the key from the directive:
// each POSTs the mutation document with the key as its variable, the same
// on every attempt, retries the statuses and the in-flight userError, and
// gives up at once on any other error entry.
func TestGraphQLProven(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every snippet in its runtime")
	}
	langs := availableLanguages(t)
	if len(langs) == 0 {
		return
	}
	rep := proveScenarios(t, loadShopify(t), langs, graphQLScenarios...)
	passed, failed := rep.Counts()
	t.Logf("%d passed, %d failed in %.1fs", passed, failed, rep.Elapsed.Seconds())
	if passed < len(langs)*len(graphQLScenarios) {
		t.Errorf("only %d outcomes passed for %d languages × %d scenarios", passed, len(langs), len(graphQLScenarios))
	}
}

// TestCheckGraphQL: with a GraphQL contract the check reads the key from
// the document's variable and wants the fixture's mutation document: a
// run whose request lacks the variable, whose retry carries another key,
// whose document is not the example's, or whose client sent the mutation
// again after its result (the effect twice) fails; the right one passes.
func TestCheckGraphQL(t *testing.T) {
	p, err := snippets.NewPolicy(TestContract(loadShopify(t)))
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := Scenarios(p)
	var sc Scenario
	for _, s := range scs {
		if s.Name == "in-flight-conflict-retried" {
			sc = s
		}
	}
	if len(sc.Script) != 2 || sc.Script[0].Status != 200 || !strings.Contains(sc.Script[0].Body, `"userErrors":[{"code":"IDEMPOTENCY_CONCURRENT_REQUEST"`) || !sc.Script[1].Effect {
		t.Fatalf("in-flight scenario %+v: want the concurrent-request userError in a 200, then the result", sc)
	}
	body := func(key string) []byte { return []byte(contract.GraphQLVariables(p.Body, p.KeyVariable, key).String()) }
	other := []byte(contract.GraphQLVariables(contract.GraphQLRequest("mutation ($key: String!) { inventorySetQuantities @idempotent(key: $key) { userErrors { code } } }"), "key", "k-1").String())
	req := func(key string, b []byte, at time.Time, step faultserver.Step) faultserver.Request {
		return faultserver.Request{Arrived: at, Answered: at.Add(5 * time.Millisecond), Method: "POST", Path: p.Path,
			Key: key, RawKey: key, Body: b, ContentType: "application/json", Step: step}
	}
	t0 := time.Now()
	good := run.Result{Stderr: logLines(40)}
	twice := sc
	twice.Requests = 3
	for _, tt := range []struct {
		name string
		sc   Scenario
		reqs []faultserver.Request
		res  run.Result
		want string
	}{
		{"same key in the same document", sc, []faultserver.Request{req("k-1", body("k-1"), t0, sc.Script[0]), req("k-1", body("k-1"), t0.Add(50*time.Millisecond), sc.Script[1])}, good, ""},
		{"no variable", sc, []faultserver.Request{req("", []byte(p.Body.String()), t0, sc.Script[0]), req("", []byte(p.Body.String()), t0.Add(50*time.Millisecond), sc.Script[1])}, good, "carries no key in the mutation's $idempotencyKey variable"},
		{"a new key on the retry", sc, []faultserver.Request{req("k-1", body("k-1"), t0, sc.Script[0]), req("k-2", body("k-2"), t0.Add(50*time.Millisecond), sc.Script[1])}, good, "one key per logical request"},
		{"another document", sc, []faultserver.Request{req("k-1", other, t0, sc.Script[0]), req("k-1", other, t0.Add(50*time.Millisecond), sc.Script[1])}, good, "not the contract's example request"},
		{"the mutation sent again after its result", twice, []faultserver.Request{req("k-1", body("k-1"), t0, sc.Script[0]), req("k-1", body("k-1"), t0.Add(50*time.Millisecond), sc.Script[1]),
			req("k-1", body("k-1"), t0.Add(300*time.Millisecond), sc.Script[1])}, run.Result{Stderr: logLines(40, 200)}, "the effect happened 2 times, want once"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			problems, _ := check(p, tt.sc, tt.res, tt.reqs)
			got := strings.Join(problems, "\n")
			if tt.want == "" && len(problems) > 0 {
				t.Errorf("problems: %s", got)
			}
			if tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("problems %q lack %q", got, tt.want)
			}
		})
	}
}

// TestGraphQLChecksCatchBrokenClients runs broken variants of the Python
// GraphQL snippet: one retrying every error entry, one taking a 200 with
// an error entry for the result, one that does not wait out the
// concurrent request. Each must fail the scenario that guards its rule.
func TestGraphQLChecksCatchBrokenClients(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Python")
	}
	testenv.LookPath(t, "python3")
	if exec.Command("python3", "-c", "from tenacity import stop_before_delay").Run() != nil {
		testenv.Missing(t, "python package tenacity>=8.3 (run .ci/install-snippets)")
	}
	for _, tt := range []struct {
		name, old, new, scenario, want string
	}{
		{"retries the mismatch", `AttemptFailed(f"{error} with an error entry")`, `AttemptFailed(f"{error} with an error entry", retryable=True)`,
			"no-retry-payload-mismatch", "requests, want 1"},
		{"an error entry taken for the result", " and not has_entry(payload):", ":", "no-retry-other-error-entry", "exit code 0, want non-zero"},
		{"the concurrent request not waited out", `return AttemptFailed(f"{error} {IN_FLIGHT_CODE}", retryable=True)`, `return AttemptFailed(f"{error} {IN_FLIGHT_CODE}")`,
			"in-flight-conflict-retried", "requests, want 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := &mutatingRunner{Runner: run.Exec{}, old: tt.old, new: tt.new}
			rep, err := Run(context.Background(), loadShopify(t), Options{Languages: []string{"python"}, Runner: m, Scenarios: []string{tt.scenario}})
			if err != nil {
				t.Fatal(err)
			}
			if !m.applied {
				t.Fatalf("mutation %q does not apply to the rendered snippet", tt.old)
			}
			var all []string
			for _, o := range rep.Outcomes {
				all = append(all, o.Problems...)
			}
			if !strings.Contains(strings.Join(all, "\n"), tt.want) {
				t.Errorf("the broken client was not caught: want a problem containing %q, got %q", tt.want, all)
			}
		})
	}
}
