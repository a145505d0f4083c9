package rules

import (
	"fmt"
	"slices"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

var stateRules = []Rule{
	{
		ID:       "state/no-in-flight",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "keys are binary (seen / not seen): nothing says what a retry gets while the first request still runs",
		Rationale: "A key has three states: absent, in flight and complete. A retry that arrives while the first attempt still runs is " +
			"not the bug: the client's retry library did exactly what it was configured to do when its connection dropped or its " +
			"timeout fired. The bug is a server that has no way to say \"seen, not finished\": a store that only knows seen/not-seen " +
			"either runs the request twice or replays a response that does not exist yet. The expired IETF draft made the in-flight " +
			"conflict a response of its own; Resend answers it with 409 concurrent_idempotent_requests.",
		Sources: []findings.Source{srcIETF, srcResend, srcBrandur},
		Fix:     "add idempotency.in_flight with response: conflict (or block / accepted)",
		Bad:     "idempotency:\n  in_flight: ~   # absent\n",
		Good:    "idempotency:\n  in_flight:\n    response: conflict\n",
		Check: func(c *contract.Contract) []findings.Finding {
			in := c.Idempotency.InFlight
			if in != nil && in.Response != "" {
				return nil
			}
			path, msg := "idempotency.in_flight", "no in_flight section: the contract treats keys as seen/not-seen and says nothing about a retry that arrives while the first request still runs"
			if in != nil {
				path, msg = "idempotency.in_flight.response", "in_flight has no response: a retry that arrives while the first request still runs gets no defined answer"
			}
			ifc := c.Idempotency.Conflicts.InFlight
			return []findings.Finding{at(c, findings.Finding{Path: path, Message: msg,
				Fix: fmt.Sprintf("add in_flight: { response: conflict } and answer %d %s while the first request runs", ifc.Status, ifc.Code)})}
		},
	},
	{
		ID:       "state/pass-through",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "a retry is let through to run again while (or because) the first request seems stuck",
		Rationale: "A retry meeting an in-flight key is the client doing what it was told; letting it run because the first request " +
			"\"seems stuck\" is the server's bug, exactly the duplicate the key exists to prevent: the first may still finish. An in-flight retry gets a conflict, waits for the bounded result, or gets 202 and repeats the " +
			"request with the same key until the result is stored; an abandoned claim is taken over only by an atomic conditional update on its lock time, resuming from the last " +
			"recovery point (Brandur Leach's reference design).",
		Sources: []findings.Source{srcBrandur, srcIETF},
		Fix:     "set in_flight.response: conflict and in_flight.takeover: conditional-update",
		Bad:     "idempotency:\n  in_flight:\n    response: pass-through\n",
		Good:    "idempotency:\n  in_flight:\n    response: conflict\n    takeover: conditional-update\n",
		Check: func(c *contract.Contract) []findings.Finding {
			in := c.Idempotency.InFlight
			if in == nil {
				return nil
			}
			var out []findings.Finding
			if in.Response == contract.InFlightPassThrough {
				out = append(out, at(c, findings.Finding{Path: "idempotency.in_flight.response",
					Message: "in_flight.response is pass-through: a retry that arrives while the first request runs executes the request a second time",
					Fix:     "answer it with response: conflict (wait and retry), block, or accepted (202, and the same key's retry gets the result)"}))
			}
			if in.Takeover == contract.TakeoverPassThrough {
				out = append(out, at(c, findings.Finding{Path: "idempotency.in_flight.takeover",
					Message: fmt.Sprintf("in_flight.takeover is pass-through: after lock_timeout %s a retry runs again from the start, while the first may still finish", in.LockTimeout),
					Fix:     "take an abandoned claim over with an atomic conditional update on locked_at and resume from its recovery point"}))
			}
			return out
		},
	},
	{
		ID:       "state/shared-conflict-code",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "the payload-mismatch and in-flight conflicts share one error code",
		Rationale: "The two conflicts ask the integrator for opposite actions: a payload mismatch is a bug to fix (never retry), an " +
			"in-flight conflict means wait and retry with the same key. With one code a client cannot tell them apart. Resend " +
			"uses invalid_idempotent_request and concurrent_idempotent_requests; the status may be shared (409), the code may not.",
		Sources: []findings.Source{srcResend, srcIETF},
		Fix:     "give conflicts.payload_mismatch and conflicts.in_flight distinct codes",
		Bad:     "idempotency:\n  conflicts:\n    payload_mismatch: { status: 409, code: idempotency_conflict }\n    in_flight: { status: 409, code: idempotency_conflict }\n",
		Good:    "idempotency:\n  conflicts:\n    payload_mismatch: { status: 409, code: invalid_idempotent_request }\n    in_flight: { status: 409, code: concurrent_idempotent_requests }\n",
		Check: func(c *contract.Contract) []findings.Finding {
			cf := c.Idempotency.Conflicts
			if cf.PayloadMismatch.Code == "" || cf.PayloadMismatch.Code != cf.InFlight.Code {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.conflicts.in_flight.code",
				Message: fmt.Sprintf("payload_mismatch and in_flight both answer code %s: a client cannot tell \"fix your request\" from \"wait and retry\"", cf.InFlight.Code),
				Fix:     "give them distinct codes, e.g. invalid_idempotent_request and concurrent_idempotent_requests"})}
		},
	},
	{
		ID:       "state/failure-policy-undecided",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "the contract does not say whether a stored failure is replayed or re-attempted",
		Rationale: "A retry of a request that failed (a 500 included) either gets the stored failure back verbatim (Stripe's v1 API) or " +
			"runs again, safe because the operation completes without repeating side effects (Stripe's v2). Both are defensible; " +
			"leaving it undecided means integrators cannot know whether retrying a failure can ever succeed.",
		Sources: []findings.Source{srcStripe, srcBrandur},
		Fix:     "set idempotency.stored_failures: replay or reattempt",
		Bad:     "idempotency:\n  stored_failures: ~   # absent\n",
		Good:    "idempotency:\n  stored_failures: replay\n",
		Check: func(c *contract.Contract) []findings.Finding {
			// stored_outcomes decides it too: it says whether a 5xx is
			// stored (replayed) or not (runs again).
			if c.Idempotency.StoredFailures != "" || c.Idempotency.StoredOutcomes != "" {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.stored_failures",
				Message: "stored_failures is not set: integrators cannot know whether retrying a failed request replays the failure or runs it again",
				Fix:     "add stored_failures: replay (return the stored failure verbatim) or reattempt (run again without repeating side effects)"})}
		},
	},
	{
		ID:       "state/retried-status-replayed",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "the client retries, on every attempt, a status the server stores and replays to every retry with the key",
		Rationale: "A retry with the same key gets the stored answer back for the whole replay window. When the client's policy " +
			"retries a status the server stores, every attempt after the first gets the same answer: the retries cannot succeed, " +
			"they only spend the attempt budget and the backoff, and the caller hears of the failure at the end of the schedule " +
			"instead of at once. Stripe stores 5xx answers and, for that reason, tells its SDKs not to retry them " +
			"(Stripe-Should-Retry); Checkout.com stores only successes, so a retry after a 4xx runs again; Azure re-executes a " +
			"5xx. This rule reads both halves through the one function the middleware uses (idempotency.stored_outcomes, or " +
			"what stored_failures implies). It leaves out what such a retry can still help with: 502 and 504, which a proxy or " +
			"load balancer in front answers without reaching the key store (RFC 9110 defines them as a gateway's answers), and a " +
			"status retried at most once (cautious_statuses), where one extra attempt is the documented price of telling a " +
			"transient 500 from a bug; the statuses that say a request was not carried out (408, 425, 429, 503) are never stored.",
		Sources: []findings.Source{srcStripe, srcStripeShouldRetry, srcCheckoutIdem, srcRFC9110Gateway},
		Fix:     "stop retrying the status, retry it at most once (cautious_statuses), or stop storing it: stored_outcomes: 2xx-4xx (a 5xx runs again) or 2xx (only successes are stored)",
		Bad:     "idempotency:\n  stored_failures: replay\nretry:\n  statuses: [429, 5XX]\n  cautious_statuses: [500]\n",
		Good:    "idempotency:\n  stored_failures: reattempt\n  stored_outcomes: 2xx-4xx\nretry:\n  statuses: [429, 5XX]\n  cautious_statuses: [500]\n",
		Check:   retriedStatusReplayed,
	},
	{
		ID:       "state/response-not-verbatim",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "a replay returns a summary instead of the stored response",
		Rationale: "A replay must be indistinguishable from the original response: same status, same body, same headers that matter. A " +
			"summary (\"already processed\") forces every integrator to special-case replays and loses the data the first response " +
			"carried, such as the created resource's ID.",
		Sources: []findings.Source{srcStripe, srcBrandur},
		Fix:     "set idempotency.stored_response: verbatim and store status, headers and body",
		Bad:     "idempotency:\n  stored_response: summary\n",
		Good:    "idempotency:\n  stored_response: verbatim\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.Idempotency.StoredResponse != contract.StoredSummary {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.stored_response",
				Message: "stored_response is summary: a replay differs from the original response and drops what it carried (the created resource's ID)",
				Fix:     "store the full response (status, relevant headers, body) and set stored_response: verbatim"})}
		},
	},
}

// retriedStatusReplayed finds each retry.statuses entry that retries, on
// every attempt, a status the server stores (contract.Idempotency.Stores)
// for a keyed endpoint.
func retriedStatusReplayed(c *contract.Contract) []findings.Finding {
	if !slices.ContainsFunc(c.Endpoints, contract.Endpoint.Keyed) {
		return nil
	}
	id, r := c.Idempotency, c.Retry
	// replayed is the first status of s that the loop retries on every
	// attempt and the server stores, 0 when none is.
	replayed := func(s contract.StatusSpec) int {
		lo, hi := s.Code, s.Code
		if s.Class {
			lo, hi = s.Code*100, s.Code*100+99
		}
		for st := lo; st <= hi; st++ {
			if id.Stores(st) && !slices.Contains(gatewayStatuses, st) && r.Treatment(st) == contract.Retried {
				return st
			}
		}
		return 0
	}
	var out []findings.Finding
	if r.AnyStatus {
		if st := replayed(contract.StatusSpec{Code: 4, Class: true}); st != 0 {
			out = append(out, replayedFinding(c, "retry.statuses", "any", st))
		} else if st := replayed(contract.StatusSpec{Code: 5, Class: true}); st != 0 {
			out = append(out, replayedFinding(c, "retry.statuses", "any", st))
		}
		return out
	}
	for i, s := range r.Statuses {
		if st := replayed(s); st != 0 {
			out = append(out, replayedFinding(c, fmt.Sprintf("retry.statuses[%d]", i), s.String(), st))
		}
	}
	return out
}

// gatewayStatuses are answered by a gateway or proxy about the server
// behind it (RFC 9110, 15.6.3 and 15.6.5): a retry of one usually meets an
// answer the key store never saw.
var gatewayStatuses = []int{502, 504}

func replayedFinding(c *contract.Contract, path, entry string, st int) findings.Finding {
	id := c.Idempotency
	what := fmt.Sprintf("%d", st)
	if entry != what {
		what = fmt.Sprintf("%s, %d included,", entry, st)
	}
	fix := "stop retrying it, or store only successes: stored_outcomes: 2xx (as Checkout.com), with stored_failures: reattempt if it is set"
	if st >= 500 {
		fix = fmt.Sprintf("let a 5xx run again: stored_outcomes: 2xx-4xx with stored_failures: reattempt (as Azure), or retry %d at most once (cautious_statuses)", st)
	}
	return at(c, findings.Finding{Path: path,
		Message: fmt.Sprintf("the client retries %s on every attempt, but the server stores a %d its handler answers (stored_outcomes %s) and replays it to every retry with the key for %s: the retries cannot succeed and only delay the failure",
			what, st, id.Outcomes(), id.ReplayWindow),
		Fix: fix})
}

// requestWorstCase is the longest one attempt may keep working: the
// client's attempt timeout, or the longest handler duration an endpoint
// states, whichever is larger, with the endpoint that sets it ("" for the
// attempt timeout).
func requestWorstCase(c *contract.Contract) (contract.Duration, string) {
	worst, who := c.Retry.AttemptTimeout.Value(), ""
	for _, e := range c.Endpoints {
		if e.Keyed() && e.MaxDuration.D > worst.D {
			worst, who = e.MaxDuration, e.Operation
		}
	}
	return worst, who
}

// stateAnswerRules compare the in-flight lock with the request it guards.
var stateAnswerRules = []Rule{
	{
		ID:       "state/lock-timeout-below-request",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "lock_timeout is not longer than a request's own worst case (the attempt timeout or a stated handler duration)",
		Rationale: "A claim older than lock_timeout is taken to be abandoned: a retry may take it over and resume. If a request can " +
			"legitimately run as long as that (up to its attempt timeout, or the max_duration its endpoint states), the takeover " +
			"starts while the original is still working, and both run the effect: a lock equal to the attempt timeout expires " +
			"at the very moment the client gives up and retries, while the first attempt's slow call to another system may still " +
			"be running. Whatever takeover says, the lock must outlast the longest request (Brandur Leach's locked_at design).",
		Sources: []findings.Source{srcBrandur},
		Fix:     "raise in_flight.lock_timeout above the longest request, or bound the handler below it",
		Bad:     "idempotency:\n  in_flight:\n    response: conflict\n    lock_timeout: 2s\n",
		Good:    "idempotency:\n  in_flight:\n    response: conflict\n    lock_timeout: 2m\n",
		Fixed:   "idempotency:\n  in_flight:\n    lock_timeout: 4s\n",
		Check: func(c *contract.Contract) []findings.Finding {
			in := c.Idempotency.InFlight
			if in == nil || in.LockTimeout.IsZero() {
				return nil
			}
			worst, who := requestWorstCase(c)
			if in.LockTimeout.D > worst.D {
				return nil
			}
			what := fmt.Sprintf("the attempt timeout %s", worst)
			if c.Retry.AttemptTimeoutDefaulted() {
				what = fmt.Sprintf("the default attempt timeout %s (attempt_timeout is not set)", worst)
			}
			if who != "" {
				what = fmt.Sprintf("%s's max_duration %s", who, worst)
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.in_flight.lock_timeout",
				Message: fmt.Sprintf("lock_timeout %s is %s %s: a retry arriving after %s takes over the claim while the first request may still be working, and both run the effect",
					in.LockTimeout, shorterOrEqual(in.LockTimeout, worst), what, in.LockTimeout),
				Fix: fmt.Sprintf("set lock_timeout: %s, twice %s, so the lock outlasts the longest request (takeover %s does not change this)", contract.FormatDuration(2*worst.D), worst, in.Takeover)})}
		},
	},
}

// shorterOrEqual words the comparison of a lock with the request it guards.
func shorterOrEqual(lock, worst contract.Duration) string {
	if lock.D == worst.D {
		return "no longer than"
	}
	return "shorter than"
}
