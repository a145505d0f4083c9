package suite

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/faultserver"
)

// Scenario is one scripted misbehaviour and what the contract says the
// client must do about it.
type Scenario struct {
	Name   string
	Kind   Kind
	Script faultserver.Script
	// Requests is how many requests the server must see; Success whether
	// the program must exit 0.
	Requests int
	Success  bool
	// MinRequests, when set, accepts fewer requests down to it: a client
	// whose cold start ate into its deadline may rightly stop sooner.
	MinRequests int
	// WithinElapsed demands the program stop no later than the overall
	// deadline (plus scheduling slack) after its first request.
	WithinElapsed bool
}

// Kind is what a scenario proves, for callers that judge its runs by
// their own table (verify client's gates) rather than by name.
type Kind int

const (
	KindRecover           Kind = iota + 1 // a retried status, then success
	KindGiveUp                            // a retried status on every attempt
	KindClientError                       // a 4xx that fails the same way again
	KindMismatch                          // the payload-mismatch conflict
	KindRetryAfter                        // 429 with a Retry-After to wait out
	KindMaxElapsed                        // Retry-After waits that cannot fit the deadline
	KindInFlight                          // the in-flight answer (the conflict, or accepted's 202), then success
	KindInFlightElsewhere                 // the in-flight status without the in-flight answer: its code outside api.error_body's place, or a handler's own 202
	KindReset                             // a reset connection, then success
	KindAttemptTimeout                    // a hung attempt, then success
	KindCautious                          // a cautious status on every attempt
)

// LongRetryAfter is the Retry-After (in seconds) of the max_elapsed
// scenario: one wait fits in the deadline and two do not.
func LongRetryAfter(p snippets.Policy) int {
	return int(p.MaxElapsed/2/time.Second) + 1
}

// errorBody is what the fault server answers with an error code: the body
// contract.ErrorBody.Render gives (the API's own shape, api.error_body, or
// the default one), the bytes the middleware sends, so each snippet is
// proven to read the code where the API puts it. An empty code is a
// conflict the API answers by status only: the body has no code.
func errorBody(p snippets.Policy, status int, code string) string {
	b, _ := json.Marshal(p.ErrorBody.Render(status, code, "see docs"))
	return string(b)
}

// statusBody is the API's error body for a retried or cautious status, as
// the API itself would send it: an SDK that tells errors by their body
// (Stripe's reads the error member, not the status) sees an error.
func statusBody(p snippets.Policy, status int) string {
	return errorBody(p, status, strings.ReplaceAll(strings.ToLower(http.StatusText(status)), " ", "_"))
}

// misplacedCodeBody carries the code, but in another member than the one
// api.error_body points at: a client that reads the code at its place does
// not take it for the in-flight conflict.
func misplacedCodeBody(p snippets.Policy, code string) string {
	eb := p.ErrorBody
	eb.CodeAt = append(append([]string{}, eb.CodeAt[:len(eb.CodeAt)-1]...), "hint")
	if len(eb.MessageAt) > 0 && contract.Pointer(eb.MessageAt) == contract.Pointer(eb.CodeAt) {
		eb.MessageAt = nil
	}
	b, _ := json.Marshal(eb.Example(code, "see docs"))
	return string(b)
}

// Scenarios derives the scripted scenarios from the (test) policy. A
// scenario whose premise the contract lacks (no in-flight conflict, resets
// not retried, no cautious status) is left out, and the reason returned.
func Scenarios(p snippets.Policy) (list []Scenario, omitted []string) {
	ok := faultserver.Step{Status: 201, Body: `{"id":"tr_1","status":"created"}`, Effect: true}
	if p.GraphQL {
		ok = faultserver.Step{Status: 200, Body: graphQLResult(p), Effect: true}
	}
	transient := 0
	for _, s := range []int{503, 502, 504} {
		if contains(p.Statuses, s) || contains(p.StatusClasses, s/100) {
			transient = s
			break
		}
	}
	if transient == 0 && len(p.Statuses) > 0 {
		transient = p.Statuses[len(p.Statuses)-1]
	}
	if transient == 0 {
		omitted = append(omitted, "no retried status in the allowlist: recovery and max_attempts scenarios left out")
	} else {
		fail := faultserver.Step{Status: transient, Body: statusBody(p, transient)}
		n := min(3, p.MaxAttempts)
		script := faultserver.Script{}
		for i := range n - 1 {
			step := fail
			// The second failure names its own wait: a Retry-After on a
			// 503 is honoured as on a 429.
			if i == 1 && contains(p.RetryAfterStatuses, transient) {
				step.RetryAfter = strconv.Itoa(TestRetryAfter)
			}
			script = append(script, step)
		}
		list = append(list,
			Scenario{Name: fmt.Sprintf("recover-after-%d", transient), Kind: KindRecover, Script: append(script, ok), Requests: n, Success: true},
			Scenario{Name: "give-up-at-max-attempts", Kind: KindGiveUp, Script: faultserver.Script{fail}, Requests: p.MaxAttempts},
		)
	}
	for _, s := range []int{400, 401} {
		list = append(list, Scenario{Name: fmt.Sprintf("no-retry-%d", s), Kind: KindClientError, Script: faultserver.Script{{Status: s, Body: errorBody(p, s, "invalid_request")}}, Requests: 1})
	}
	if p.MismatchStatus != 0 {
		list = append(list, Scenario{Name: "no-retry-payload-mismatch", Kind: KindMismatch,
			Script: faultserver.Script{{Status: p.MismatchStatus, Body: errorBody(p, p.MismatchStatus, p.MismatchCode)}}, Requests: 1})
	}
	if p.GraphQL {
		// An error entry that is no conflict (a validation error of the
		// mutation's own) in a 200: the mutation failed and fails again.
		list = append(list, Scenario{Name: "no-retry-other-error-entry", Kind: KindClientError,
			Script: faultserver.Script{{Status: 200, Body: errorBody(p, 200, "INVALID")}}, Requests: 1})
	}
	if p.FirstSentHeader != "" {
		// Older than the first-sent window: a retry carries the same
		// first-sent time and is refused the same way.
		list = append(list, Scenario{Name: "no-retry-too-old", Kind: KindClientError,
			Script: faultserver.Script{{Status: p.TooOldStatus, Body: errorBody(p, p.TooOldStatus, p.TooOldCode)}}, Requests: 1})
	}
	if contains(p.RetryAfterStatuses, 429) {
		list = append(list, Scenario{Name: "429-retry-after", Kind: KindRetryAfter,
			Script: faultserver.Script{{Status: 429, RetryAfter: strconv.Itoa(TestRetryAfter), Body: statusBody(p, 429)}, ok}, Requests: 2, Success: true})
		if p.MaxAttempts >= 3 {
			// Two Retry-After waits cannot fit in the deadline: the client
			// must give up before the second wait, not sleep past it.
			list = append(list, Scenario{Name: "stop-at-max-elapsed", Kind: KindMaxElapsed,
				Script: faultserver.Script{{Status: 429, RetryAfter: strconv.Itoa(LongRetryAfter(p)), Body: statusBody(p, 429)}}, Requests: 2, MinRequests: 1, WithinElapsed: true})
		}
	} else {
		omitted = append(omitted, "429 is not retried with Retry-After: 429 and max_elapsed scenarios left out")
	}
	if p.InFlightAccepted && p.MaxAttempts >= 2 {
		list = append(list, acceptedScenarios(p, ok)...)
	} else if p.InFlight && p.MaxAttempts >= 2 {
		list = append(list, Scenario{Name: "in-flight-conflict-retried", Kind: KindInFlight,
			Script: faultserver.Script{{Status: p.InFlightStatus, Body: errorBody(p, p.InFlightStatus, p.InFlightCode)}, ok}, Requests: 2, Success: true})
		if p.ErrorBody.Set() && p.InFlightCode != "" {
			list = append(list, Scenario{Name: "in-flight-code-elsewhere-not-retried", Kind: KindInFlightElsewhere,
				Script: faultserver.Script{{Status: p.InFlightStatus, Body: misplacedCodeBody(p, p.InFlightCode)}, ok}, Requests: 1})
		}
	} else {
		omitted = append(omitted, "no in-flight conflict to wait out: in-flight scenario left out")
	}
	if p.RetryReset && p.MaxAttempts >= 2 {
		list = append(list, Scenario{Name: "reset-connection-retried", Kind: KindReset,
			Script: faultserver.Script{{Reset: true}, ok}, Requests: 2, Success: true})
	}
	if p.RetryTimeout && p.MaxAttempts >= 2 {
		list = append(list, Scenario{Name: "attempt-timeout-retried", Kind: KindAttemptTimeout,
			Script: faultserver.Script{{Status: 200, Delay: 5 * p.AttemptTimeout}, ok}, Requests: 2, Success: true})
	}
	if len(p.Cautious) > 0 && p.MaxAttempts >= 3 {
		list = append(list, Scenario{Name: fmt.Sprintf("%d-retried-once-only", p.Cautious[0]), Kind: KindCautious,
			Script: faultserver.Script{{Status: p.Cautious[0], Body: statusBody(p, p.Cautious[0])}}, Requests: 2})
	}
	return list, omitted
}

// acceptedScenarios are the in-flight scenarios of in_flight.response:
// accepted. The repeat of a key whose first request still runs gets 202
// with the in-flight code, which is not the result: the client polls with
// the same key and the backoff schedule until the stored result comes
// back. A 202 that is not that answer (the handler's own, or the code
// outside api.error_body's place) is the result, taken at once. With
// `code: none` the contract tells the in-flight 202 by its status alone,
// so there is no other 202 to take.
func acceptedScenarios(p snippets.Policy, stored faultserver.Step) []Scenario {
	polled := faultserver.Step{Status: p.InFlightStatus, Body: errorBody(p, p.InFlightStatus, p.InFlightCode)}
	n := min(3, p.MaxAttempts)
	script := faultserver.Script{}
	for range n - 1 {
		script = append(script, polled)
	}
	list := []Scenario{{Name: fmt.Sprintf("in-flight-%d-polled", p.InFlightStatus), Kind: KindInFlight,
		Script: append(script, stored), Requests: n, Success: true}}
	if p.InFlightCode == "" {
		return list
	}
	own := faultserver.Step{Status: p.InFlightStatus, Body: `{"id":"tr_1","status":"pending"}`}
	list = append(list, Scenario{Name: fmt.Sprintf("handler-%d-is-the-result", p.InFlightStatus), Kind: KindInFlightElsewhere,
		Script: faultserver.Script{own, stored}, Requests: 1, Success: true})
	if p.ErrorBody.Set() {
		elsewhere := faultserver.Step{Status: p.InFlightStatus, Body: misplacedCodeBody(p, p.InFlightCode)}
		list = append(list, Scenario{Name: "in-flight-code-elsewhere-is-the-result", Kind: KindInFlightElsewhere,
			Script: faultserver.Script{elsewhere, stored}, Requests: 1, Success: true})
	}
	return list
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// graphQLResult is a GraphQL mutation's successful answer: the mutation's
// payload without error entries (an empty userErrors list, or no errors
// member at all when they come in the top-level errors).
func graphQLResult(p snippets.Policy) string {
	payload := map[string]any{"userErrors": []any{}}
	if p.ErrorsIn == contract.ErrorsInErrors {
		payload = map[string]any{"__typename": "Payload"}
	}
	b, _ := json.Marshal(map[string]any{"data": map[string]any{p.Mutation: payload}})
	return string(b)
}
