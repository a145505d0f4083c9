package rules

import (
	"fmt"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// replyRules check the answers the server writes itself and the ones it
// stores and replays: what a client can tell apart, and what a retry gets.
var replyRules = []Rule{
	{
		ID:       "state/ambiguous-in-flight",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "the in-flight conflict has no code and shares its status with another conflict: a client cannot tell \"wait\" from \"stop\"",
		Rationale: "An in-flight conflict asks the client to wait and retry with the same key; a payload mismatch or a bad key asks it " +
			"to stop. Many libraries answer conflicts with a status and a message only (the IETF draft leaves codes to the API). " +
			"That is fine while the status alone tells them apart; when two share a status and the in-flight one has no code, " +
			"a client can only stop on both, so the generated snippets do not wait the in-flight conflict out.",
		Sources: []findings.Source{srcIETF, srcResend},
		Fix:     "give the in-flight conflict a code, or answer the other conflicts with statuses of their own (e.g. payload_mismatch: { status: 422 })",
		Bad:     "idempotency:\n  in_flight:\n    response: conflict\n  conflicts:\n    payload_mismatch: { status: 409, code: none }\n    in_flight: { status: 409, code: none }\n",
		Good:    "idempotency:\n  in_flight:\n    response: conflict\n  conflicts:\n    payload_mismatch: { status: 422, code: none }\n    in_flight: { status: 409, code: none }\n",
		Check: func(c *contract.Contract) []findings.Finding {
			in, ifc := c.Idempotency.InFlight, c.Idempotency.Conflicts.InFlight
			// A code shared with another conflict is state/shared-conflict-code's.
			if in == nil || in.Response != contract.InFlightConflict || ifc.Code != "" || contract.InFlightDistinct(c.Idempotency.Conflicts) {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.conflicts.in_flight",
				Message: fmt.Sprintf("the in-flight conflict is %d without a code, a status another conflict also answers: clients cannot tell it apart, so they stop instead of waiting", ifc.Status),
				Fix:     "give conflicts.in_flight a code, or answer the other conflict with a status of its own (e.g. payload_mismatch: { status: 422 })"})}
		},
	},
	{
		ID:       "state/ambiguous-accepted",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "the in-flight 202 has no code: a client cannot tell \"still running, ask again\" from an endpoint's own 202 result",
		Rationale: "Under in_flight.response: accepted, a repeat of a request that is still running gets 202, and asking again with the same " +
			"key is how the client learns the result. An endpoint may also answer 202 as its own result (work queued on purpose). " +
			"The in-flight 202 carries conflicts.in_flight's code so a client can tell the two apart; without a code, the status is " +
			"all it has, so the generated snippets poll every 202 and a handler's own 202 is asked again until the retry bounds run out.",
		Sources: []findings.Source{srcIETF},
		Fix:     "give conflicts.in_flight a code (e.g. { status: 409, code: concurrent_idempotent_requests }); the 202 carries it",
		Bad:     "idempotency:\n  in_flight:\n    response: accepted\n  conflicts:\n    in_flight: { status: 409, code: none }\n",
		Good:    "idempotency:\n  in_flight:\n    response: accepted\n  conflicts:\n    in_flight: { status: 409, code: concurrent_idempotent_requests }\n",
		Check: func(c *contract.Contract) []findings.Finding {
			in := c.Idempotency.InFlight
			if in == nil || in.Response != contract.InFlightAccepted || c.Idempotency.Conflicts.InFlight.Code != "" {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.conflicts.in_flight",
				Message: "the in-flight answer is a 202 without a code: clients cannot tell it from an endpoint's own 202, so they ask again on every 202 until their retry bounds run out",
				Fix:     "give conflicts.in_flight a code; the in-flight 202 carries it (e.g. code: concurrent_idempotent_requests)"})}
		},
	},
}
