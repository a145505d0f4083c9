package render

import (
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/render/svg"
)

// Issue 16 item 4: the Retrying page says what the method says. Each check
// below failed on main before the choices partial and the figures existed.

func parseContract(t *testing.T, src string) *contract.Contract {
	t.Helper()
	c, err := contract.Parse("retryspec.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const issue16Base = `retryspec: 1
api: { name: Acme, base_url: "https://api.acme.example" }
idempotency:
  stored_failures: replay
  reaper_after: 72h
  in_flight: { response: conflict, lock_timeout: 2m }
  longest_retry_chain: { duration: 1h, because: "SDK retries only" }
  recovery: { completer: true, reaper: true }
endpoints:
  - { operation: POST /v1/orders, effect: create, key: required, external_calls: [] }
`

func retryingPage(t *testing.T, src string) string {
	t.Helper()
	return pages(t, Inputs{Contract: parseContract(t, src)})["retrying.md"]
}

func TestRetryingPresentsJitterAsAChoice(t *testing.T) {
	full := retryingPage(t, issue16Base+"retry:\n  statuses: [429, 503]\n  max_elapsed: 60s\n  attempt_timeout: { p99: 1s, factor: 2 }\n")
	for _, want := range []string{
		"### Choosing the jitter",
		"| full | this contract's choice |", "| decorrelated | the alternative |", "| equal | ruled out |", "| none | ruled out |",
		"Full jitter is the default pick",
	} {
		if !strings.Contains(full, want) {
			t.Errorf("full-jitter page lacks %q", want)
		}
	}
	dec := retryingPage(t, issue16Base+"retry:\n  statuses: [429, 503]\n  max_elapsed: 8s\n  attempt_timeout: { p99: 1s, factor: 2 }\n  backoff: { jitter: decorrelated, because: \"checkout answers within 8s\" }\n")
	for _, want := range []string{"| decorrelated | this contract's choice |", "| full | the alternative |",
		"Decorrelated jitter is picked for a tight deadline", "The contract's reason: checkout answers within 8s"} {
		if !strings.Contains(dec, want) {
			t.Errorf("decorrelated page lacks %q", want)
		}
	}
}

func TestRetryingStatesAmplification(t *testing.T) {
	page := retryingPage(t, issue16Base+"retry:\n  statuses: [429, 503]\n  max_attempts: 4\n  max_elapsed: 60s\n  attempt_timeout: { p99: 1s, factor: 2 }\n  fleet: 40\n  budget: { kind: token-bucket, capacity: 500, transient_cost: 14 }\n")
	for _, want := range []string{
		"This contract allows 4 attempts per call",
		"| 1 | 4 |", "| 2 | 16 |", "| 3 | 64 |",
		"With the 40 client instances this contract counts (`retry.fleet`), one failing moment can turn 40 requests into 160 calls.",
		"each client's bucket holds 500 tokens, 35 times the 14-token cost of retrying a transient error (1400 such costs across the fleet)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	noFleet := retryingPage(t, issue16Base+"retry:\n  statuses: [429, 503]\n  max_elapsed: 60s\n  attempt_timeout: { p99: 1s, factor: 2 }\n")
	if strings.Contains(noFleet, "client instances this contract counts") {
		t.Error("a contract without retry.fleet gets a fleet figure")
	}
}

// TestOmittedAttemptTimeoutIsNeverZero: a retry section without
// attempt_timeout renders the default the snippets use, with its reason.
func TestOmittedAttemptTimeoutIsNeverZero(t *testing.T) {
	page := retryingPage(t, issue16Base+"retry:\n  statuses: [429, 503]\n  max_elapsed: 60s\n")
	if strings.Contains(page, "timing out after 0s") || strings.Contains(page, "timeout of 0s") {
		t.Error("the page shows a 0s timeout")
	}
	for _, want := range []string{"each attempt timing out after 20s",
		"timeout of 20s, the default: no measured p99 is stated, so each of the 3 attempts gets an equal share of the 60s bound"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// No retry section at all: the same default, never zero.
	page = retryingPage(t, issue16Base)
	if strings.Contains(page, "timeout of 0s") || !strings.Contains(page, "each attempt timing out after 20s") {
		t.Error("a contract without a retry section renders a zero or missing timeout")
	}
}

// TestClassAndCautiousStatusReconciled (issue 15 item 11): 5XX with a
// cautious 500 says 500 is the exception, and lists 500 once at most.
func TestClassAndCautiousStatusReconciled(t *testing.T) {
	page := retryingPage(t, issue16Base+"retry:\n  statuses: [429, 5XX]\n  cautious_statuses: [500]\n  max_elapsed: 60s\n  attempt_timeout: { p99: 1s, factor: 2 }\n")
	for _, want := range []string{"| 5XX (any server error) | yes | Server errors in this class are treated as transient. Except 500, retried at most once (below). |",
		"| 500 Internal Server Error | once at most |"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestNoRecoveryPointsNoMention: the key-state diagram speaks of resuming
// at a recovery point only when some endpoint has one.
func TestNoRecoveryPointsNoMention(t *testing.T) {
	without := string(svg.KeyStates(parseContract(t, issue16Base)))
	if strings.Contains(without, "recovery point") || !strings.Contains(without, "taken over by a retry") {
		t.Errorf("diagram without recovery points:\n%s", without)
	}
	with := string(svg.KeyStates(parseContract(t, strings.Replace(issue16Base, "external_calls: [] }",
		"external_calls: [charge_card], recovery_points: [started, card_charged] }", 1))))
	if !strings.Contains(with, "resumes at") || !strings.Contains(with, "its recovery point") {
		t.Error("diagram with recovery points does not say a takeover resumes at one")
	}
	for path, page := range pages(t, Inputs{Contract: parseContract(t, issue16Base)}) {
		if strings.Contains(strings.ToLower(page), "recovery point") {
			t.Errorf("%s mentions recovery points, and no endpoint has any", path)
		}
	}
}
