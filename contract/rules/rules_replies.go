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
}
