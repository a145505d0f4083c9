package rules

import (
	"fmt"
	"strings"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// methodTrusted reports an endpoint whose method RFC 9110 calls idempotent
// but whose effect is not.
func methodTrusted(e contract.Endpoint) bool {
	if e.Method != "PUT" && e.Method != "DELETE" {
		return false
	}
	switch e.Effect {
	case "append", "increment", "decrement":
		return true
	}
	return false
}

// unprotected reports a state-changing endpoint that neither takes a key
// nor documents that it is unsafe to retry.
func unprotected(e contract.Endpoint) bool {
	return e.Effect != "" && !e.NaturallyIdempotent() && !e.Keyed() && e.UnsafeToRetry == ""
}

const endpointBase = "endpoints:\n  - operation: GET /v1/orders/{id}\n    effect: read\n    key: none\n"

var endpointRules = []Rule{
	{
		ID:       "endpoint/unsafe-without-key",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "a non-idempotent endpoint takes no key and is not documented as unsafe to retry",
		Rationale: "Every state-changing operation must either accept an idempotency key or tell integrators plainly that retrying it " +
			"can repeat its effect. An unkeyed create, append, increment, decrement or action is retried by SDKs and integrators " +
			"after a timeout like any other call, and each retry repeats the effect.",
		Sources: []findings.Source{srcRFC9110, srcStripe},
		Fix:     "set key: required on the endpoint, or write unsafe_to_retry: with the warning integrators need",
		Bad:     endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: none\n",
		Good:    endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n",
		Check: func(c *contract.Contract) []findings.Finding {
			var out []findings.Finding
			for i, e := range c.Endpoints {
				if !unprotected(e) || methodTrusted(e) {
					continue
				}
				out = append(out, at(c, fmt.Sprintf("endpoints[%d].key", i), "",
					fmt.Sprintf("%s has effect %s but key none and no unsafe_to_retry warning: a retry after a timeout repeats the %s", e.Operation, e.Effect, e.Effect),
					"set key: required, or add unsafe_to_retry: \"...\" telling integrators what a second call does"))
			}
			return out
		},
	},
	{
		ID:       "endpoint/method-trusted",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "a PUT or DELETE that appends, increments or decrements is trusted to be idempotent because of its method",
		Rationale: "RFC 9110 defines PUT and DELETE as idempotent methods, but that is a promise the implementation must keep, not a " +
			"property the method confers. A PUT that appends a line to a log or a DELETE that decrements a stock count changes " +
			"state again on every retry. Classify endpoints by what they do, not by their verb.",
		Sources: []findings.Source{srcRFC9110},
		Fix:     "give the endpoint key: required (or make the handler truly idempotent and classify it as replace / delete)",
		Bad:     endpointBase + "  - operation: DELETE /v1/items/{id}/stock\n    effect: decrement\n    key: none\n",
		Good:    endpointBase + "  - operation: DELETE /v1/items/{id}/stock\n    effect: decrement\n    key: required\n",
		Check: func(c *contract.Contract) []findings.Finding {
			var out []findings.Finding
			for i, e := range c.Endpoints {
				if !methodTrusted(e) || !unprotected(e) {
					continue
				}
				out = append(out, at(c, fmt.Sprintf("endpoints[%d].key", i), "",
					fmt.Sprintf("%s has effect %s: %s is idempotent only when the handler makes it so, and this one changes state again on every retry", e.Operation, e.Effect, e.Method),
					fmt.Sprintf("set key: required on %s", e.Operation)))
			}
			return out
		},
	},
	{
		ID:       "endpoint/external-call-in-transaction",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "an endpoint that calls external systems claims to run in a single transaction",
		Rationale: "A card charge or an outbound email cannot be rolled back with the local transaction. An endpoint that calls one " +
			"must be split into atomic phases separated by each foreign call, with a recovery point recorded between phases, so a " +
			"retry resumes after the call instead of repeating it (Brandur Leach's atomic phases).",
		Sources: []findings.Source{srcBrandur},
		Fix:     "set single_transaction: false and list recovery_points around each external call",
		Bad: endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n    single_transaction: true\n" +
			"    external_calls: [charge_card]\n    recovery_points: [started, card_charged, finished]\n",
		Good: endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n" +
			"    external_calls: [charge_card]\n    recovery_points: [started, card_charged, finished]\n",
		Check: func(c *contract.Contract) []findings.Finding {
			var out []findings.Finding
			for i, e := range c.Endpoints {
				if len(e.ExternalCalls) == 0 || !e.SingleTransaction {
					continue
				}
				out = append(out, at(c, fmt.Sprintf("endpoints[%d].single_transaction", i), "",
					fmt.Sprintf("%s calls %s inside a single transaction: rolling back the transaction does not undo the external call", e.Operation, strings.Join(e.ExternalCalls, ", ")),
					"split the request into atomic phases around each external call and record a recovery point after each"))
			}
			return out
		},
	},
	{
		ID:       "endpoint/no-recovery-points",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "an endpoint that calls external systems lacks a recovery point around each call",
		Rationale: "With a recovery point before the first external call and after each one, a retry (or the completer job) resumes " +
			"from where the first attempt stopped and never repeats a charge or an email. N external calls need at least N+1 " +
			"points. This is Brandur Leach's recovery-point design, recording intent before each foreign call.",
		Sources: []findings.Source{srcBrandur},
		Fix:     "list recovery_points: one before the first external call and one after each",
		Bad: endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n" +
			"    external_calls: [charge_card, send_receipt]\n    recovery_points: [started, finished]\n",
		Good: endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n" +
			"    external_calls: [charge_card, send_receipt]\n    recovery_points: [started, card_charged, receipt_sent]\n",
		Check: func(c *contract.Contract) []findings.Finding {
			var out []findings.Finding
			for i, e := range c.Endpoints {
				n := len(e.ExternalCalls)
				if n == 0 || len(e.RecoveryPoints) >= n+1 {
					continue
				}
				path := fmt.Sprintf("endpoints[%d].recovery_points", i)
				if len(e.RecoveryPoints) == 0 {
					path = fmt.Sprintf("endpoints[%d].external_calls", i)
				}
				out = append(out, at(c, path, "",
					fmt.Sprintf("%s makes %d external %s (%s) but lists %d recovery %s; it needs at least %d, one before the first call and one after each",
						e.Operation, n, plural(n, "call", "calls"), strings.Join(e.ExternalCalls, ", "),
						len(e.RecoveryPoints), plural(len(e.RecoveryPoints), "point", "points"), n+1),
					fmt.Sprintf("record a recovery point before %s and after each external call", e.ExternalCalls[0])))
			}
			return out
		},
	},
}

var openapiRules = []Rule{
	{
		ID:       "endpoint/unclassified",
		Severity: findings.Error,
		Scope:    ScopeOpenAPI,
		Summary:  "(with --openapi) a state-changing operation in the spec is missing from endpoints",
		Rationale: "The contract only protects the operations it lists. A POST, PUT, PATCH or DELETE in the OpenAPI spec that the " +
			"contract does not classify gets neither a key nor a documented warning, so integrators are left to guess whether a " +
			"retry is safe.",
		Sources: []findings.Source{srcRFC9110},
		Fix:     "add the operation to endpoints with its effect and key mode",
		Bad:     "# the spec has POST /v1/refunds; the contract lists only POST /v1/orders\n" + endpointBase,
		Good:    "# every state-changing operation of the spec is listed\n" + endpointBase,
	},
	{
		ID:       "endpoint/unknown",
		Severity: findings.Warning,
		Scope:    ScopeOpenAPI,
		Summary:  "(with --openapi) an endpoint in the contract is absent from the spec",
		Rationale: "An endpoint the spec does not have is usually a renamed or removed operation: its entry is stale, and the docs " +
			"generated from the contract would describe an operation that no longer exists.",
		Fix:  "remove the entry, or fix its method and path to match the spec",
		Bad:  "# the contract lists POST /v1/order (singular); the spec has POST /v1/orders\n",
		Good: "# the contract's operations all exist in the spec\n",
	},
	{
		ID:       "openapi/contradicts-contract",
		Severity: findings.Error,
		Scope:    ScopeOpenAPI,
		Summary:  "(with openapi) the spec already declares the key header or a conflict response, and it disagrees with the contract",
		Rationale: "SDK generators, API references and gateways read the OpenAPI spec, not the docs. A key parameter with another " +
			"name, another maxLength or another required flag than the contract's makes generated clients send keys the API " +
			"rejects, or omit keys it requires.",
		Sources: []findings.Source{srcOpenAPI},
		Fix:     "change the spec's declaration to match the contract (or the contract to match the spec), then run retryspec openapi again",
		Bad:     "# the spec declares Idempotency-Key with maxLength: 256; the contract says max_key_length: 255\n",
		Good:    "# the spec's Idempotency-Key parameter has maxLength: 255, as the contract says\n",
	},
}
