package rules

import (
	"fmt"
	"slices"
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
	case contract.EffectAppend, contract.EffectIncrement, contract.EffectDecrement:
		return true
	}
	return false
}

// unprotected reports a state-changing endpoint that neither takes a key
// nor documents that it is unsafe to retry.
func unprotected(e contract.Endpoint) bool {
	return e.Effect != "" && !e.NaturallyIdempotent() && !e.Keyed() && e.UnsafeToRetry == ""
}

// IDs of the rules checked against an OpenAPI spec, for package openapi:
// the catalog is their one source.
const (
	EndpointUnclassified = "endpoint/unclassified"
	EndpointUnknown      = "endpoint/unknown"
	OpenAPIContradicts   = "openapi/contradicts-contract"
	// OpenAPISummaryContradicts is endpoint/summary-contradicts-effect on
	// the spec's words; SpecSummaryContradicts checks it.
	OpenAPISummaryContradicts = "openapi/summary-contradicts-effect"
)

const endpointBase = "endpoints:\n  - operation: GET /v1/orders/{id}\n    effect: read\n    key: none\n"

// withExample ends a Good fragment whose last endpoint is keyed with the
// example request the docs show, so the near miss is clean of
// endpoint/no-example-request too.
const withExample = "    example: {body: '{\"sku\": \"SKU-1042\", \"quantity\": 1}'}\n"

var endpointRules = []Rule{
	{
		ID:       "endpoint/no-example-request",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "the endpoint the docs and snippets call names no example request",
		Rationale: "Integrators copy the first request they see. The Retrying page's code, the full programs and the Idempotent " +
			"requests page all call the first keyed endpoint; without a request the contract names (or the OpenAPI spec's " +
			"example, with --openapi), they send an empty placeholder body your API would refuse, and a reader learns the " +
			"retry loop on a request that is not theirs. Stripe's API reference shows its idempotency key on one of its own requests " +
			"(creating a customer), not on a stand-in.",
		Sources: []findings.Source{srcStripe},
		Fix:     "add example: with body: <a request your API accepts> and, for a path with parameters, path: values",
		Bad:     endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n    external_calls: []\n",
		Good:    endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n    external_calls: []\n" + withExample,
		Check: func(c *contract.Contract) []findings.Finding {
			ep, ok := c.FirstRequiredKeyEndpoint()
			if !ok {
				return nil
			}
			if _, stated := ep.ExampleBody(); stated {
				return nil
			}
			i := slices.IndexFunc(c.Endpoints, func(e contract.Endpoint) bool { return e.Operation == ep.Operation })
			return []findings.Finding{at(c, findings.Finding{Path: fmt.Sprintf("endpoints[%d].operation", i),
				Message: fmt.Sprintf("%s names no example request: the snippets and the Idempotent requests page send the placeholder body %s to it", ep.Operation, contract.PlaceholderBody.String()),
				Fix:     fmt.Sprintf("add to %s example: with body: <a request your API accepts>, or give the operation a request example in the OpenAPI spec and build with --openapi", ep.Operation)})}
		},
	},
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
		Bad:     endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: none\n" + withExample,
		Good:    endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n    external_calls: []\n" + withExample,
		Check: func(c *contract.Contract) []findings.Finding {
			var out []findings.Finding
			for i, e := range c.Endpoints {
				if !unprotected(e) || methodTrusted(e) {
					continue
				}
				out = append(out, at(c, findings.Finding{Path: fmt.Sprintf("endpoints[%d].key", i),
					Message: fmt.Sprintf("%s has effect %s but key none and no unsafe_to_retry warning: a retry after a timeout repeats the %s", e.Operation, e.Effect, e.Effect),
					Fix:     "set key: required and answer external_calls: ([] when the handler calls nothing else), or add unsafe_to_retry: \"...\" telling integrators what a second call does"}))
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
			"property the method confers, and the RFC says nothing about an idempotency key header: \"idempotent per the HTTP spec\" " +
			"covers no handler that appends or decrements. A PUT that appends a line to a log or a DELETE that decrements a stock " +
			"count changes state again on every retry. Classify endpoints by what they do, not by their verb.",
		Sources: []findings.Source{srcRFC9110},
		Fix:     "give the endpoint key: required (or make the handler truly idempotent and classify it as replace / delete)",
		Bad:     endpointBase + "  - operation: DELETE /v1/items/{id}/stock\n    effect: decrement\n    key: none\n" + withExample,
		Good:    endpointBase + "  - operation: DELETE /v1/items/{id}/stock\n    effect: decrement\n    key: required\n    external_calls: []\n" + withExample,
		Check: func(c *contract.Contract) []findings.Finding {
			var out []findings.Finding
			for i, e := range c.Endpoints {
				if !methodTrusted(e) || !unprotected(e) {
					continue
				}
				out = append(out, at(c, findings.Finding{Path: fmt.Sprintf("endpoints[%d].key", i),
					Message: fmt.Sprintf("%s has effect %s: %s is idempotent only when the handler makes it so, and this one changes state again on every retry", e.Operation, e.Effect, e.Method),
					Fix:     fmt.Sprintf("set key: required on %s and answer external_calls: ([] when the handler calls nothing else)", e.Operation)}))
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
			"    external_calls: [charge_card]\n    recovery_points: [started, card_charged, finished]\n    max_duration: 45s\n" + withExample,
		Good: endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n" +
			"    external_calls: [charge_card]\n    recovery_points: [started, card_charged, finished]\n    max_duration: 45s\n" + withExample,
		Check: func(c *contract.Contract) []findings.Finding {
			var out []findings.Finding
			for i, e := range c.Endpoints {
				if len(e.ExternalCalls) == 0 || !e.SingleTransaction {
					continue
				}
				out = append(out, at(c, findings.Finding{Path: fmt.Sprintf("endpoints[%d].single_transaction", i),
					Message: fmt.Sprintf("%s calls %s inside a single transaction: rolling back the transaction does not undo the external call", e.Operation, strings.Join(e.ExternalCalls, ", ")),
					Fix:     "split the request into atomic phases around each external call and record a recovery point after each"}))
			}
			return out
		},
	},
	{
		ID:       "endpoint/no-recovery-points",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "an endpoint that calls external systems lacks a recovery point around each call",
		Rationale: "Each external call needs a recovery point before it, recording the intent (the key the call will carry " +
			"downstream), and one after it, recording its result. A retry (or the completer job) then resumes from where the first " +
			"attempt stopped and never repeats a charge or an email. The point after one call can record the next call's intent, so " +
			"N external calls need at least N+1 points. This is Brandur Leach's recovery-point design.",
		Sources: []findings.Source{srcBrandur},
		Fix:     "list recovery_points: one before the first external call and one after each",
		Bad: endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n" +
			"    external_calls: [charge_card, send_receipt]\n    recovery_points: [started, finished]\n    max_duration: 45s\n" + withExample,
		Good: endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n" +
			"    external_calls: [charge_card, send_receipt]\n    recovery_points: [started, card_charged, receipt_sent]\n    max_duration: 45s\n" + withExample,
		Fixed: endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n" +
			"    external_calls: [charge_card, send_receipt]\n    recovery_points: [started, charge_card_done, send_receipt_done]\n    max_duration: 45s\n" + withExample,
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
				out = append(out, at(c, findings.Finding{Path: path,
					Message: fmt.Sprintf("%s makes %d external %s (%s) but lists %d recovery %s; it needs at least %d: one before the first call recording its intent, and one after each recording its result",
						e.Operation, n, plural(n, "call", "calls"), strings.Join(e.ExternalCalls, ", "),
						len(e.RecoveryPoints), plural(len(e.RecoveryPoints), "point", "points"), n+1),
					Fix: fmt.Sprintf("list recovery_points: [%s]: one recording the intent before %s, then one after each external call", strings.Join(pointsFor(e), ", "), e.ExternalCalls[0])}))
			}
			return out
		},
	},
}

var openapiRules = []Rule{
	{
		ID:       EndpointUnclassified,
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
		ID:       EndpointUnknown,
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
		ID:       OpenAPIContradicts,
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
	{
		ID:       OpenAPISummaryContradicts,
		Severity: findings.Error,
		Scope:    ScopeOpenAPI,
		Summary:  "(with --openapi) a PUT or DELETE is classified idempotent by its method while the spec's summary or description says it appends, counts, sends or charges",
		Rationale: "The spec's summary and description are often the only account of what an operation does, and a contract " +
			"endpoint written or imported without a summary does not carry them. RFC 9110 makes a PUT idempotent only when its " +
			"handler is: when the spec says the operation appends, increments, decrements, sends or charges, each retry does it " +
			"again, and an effect of replace or delete taken from the method tells integrators a blind retry is safe. This is " +
			"endpoint/summary-contradicts-effect judged on the spec's words, reported when the contract's own summary does not " +
			"already say it.",
		Sources: []findings.Source{srcRFC9110},
		Fix:     "set the effect the spec describes (append, increment, decrement or action) with key: required, or correct the spec's summary",
		Bad:     "# the spec's PUT /v1/carts/{id}/items says \"Appends an item to the cart\"; the contract lists it with effect: replace, key: none\n",
		Good:    "# the contract lists PUT /v1/carts/{id}/items with effect: append, key: required, as the spec's summary says\n",
	},
}

// stateChangingKeyed reports an endpoint that takes a key and changes
// state: the ones whose external calls decide whether a retry is safe.
func stateChangingKeyed(e contract.Endpoint) bool {
	return e.Keyed() && e.Effect != "" && e.Effect != contract.EffectRead
}

// callWords are the words of a call or recovery-point name, stemmed so
// charge_bank and bank_charged, send_receipt and receipt_sent share one.
func callWords(name string) []string {
	var out []string
	for _, w := range strings.Split(name, "_") {
		if slices.Contains(genericWords, w) {
			continue
		}
		for _, suf := range []string{"ing", "ed", "es", "s", "d", "e"} {
			if len(w)-len(suf) >= 4 && strings.HasSuffix(w, suf) {
				w = strings.TrimSuffix(w, suf)
				break
			}
		}
		if len(w) >= 4 && !slices.Contains(genericStems, w) {
			out = append(out, w)
		}
	}
	return out
}

// genericWords say nothing about which call a point belongs to; the stems
// catch their other forms (started, finished, recorded, completed).
var (
	genericWords = []string{"start", "started", "finish", "finished", "done", "call", "called", "record", "recorded",
		"request", "response", "result", "intent", "complete", "completed", "create", "created", "send", "sent"}
	genericStems = []string{"start", "finish", "record", "request", "respons", "result", "intent", "complet", "creat"}
)

// resultPoints maps each external call to the one recovery point whose name
// shares a word with it (bank_charged for charge_bank). ok is false when a
// call matches no point or several, or a point matches several calls: then
// the names say nothing reliable about order and only the count is checked.
func resultPoints(e contract.Endpoint) (idx []int, ok bool) {
	owner := map[int]int{}
	for ci, call := range e.ExternalCalls {
		cw := callWords(call)
		found := -1
		for pi, pt := range e.RecoveryPoints {
			if !slices.ContainsFunc(callWords(pt), func(w string) bool { return slices.Contains(cw, w) }) {
				continue
			}
			if found >= 0 {
				return nil, false
			}
			found = pi
		}
		if found < 0 {
			return nil, false
		}
		if _, taken := owner[found]; taken {
			return nil, false
		}
		owner[found] = ci
		idx = append(idx, found)
	}
	return idx, true
}

// pointsFor proposes recovery points for an endpoint that lists too few: an
// intent point, then one result point per external call, named after it.
func pointsFor(e contract.Endpoint) []string {
	out := []string{"started"}
	for _, call := range e.ExternalCalls {
		out = append(out, call+"_done")
	}
	return out
}

// reordered proposes an endpoint's recovery points in call order: the
// points that name no call and came before the first call's result (or
// "started" when none did), then each call's result point in call order,
// then the remaining points as written.
func reordered(e contract.Endpoint, idx []int) []string {
	first := slices.Min(idx)
	var head, tail []string
	for pi, pt := range e.RecoveryPoints {
		switch {
		case slices.Contains(idx, pi):
		case pi < first:
			head = append(head, pt)
		default:
			tail = append(tail, pt)
		}
	}
	if len(head) == 0 {
		head = []string{"started"}
	}
	for _, pi := range idx {
		head = append(head, e.RecoveryPoints[pi])
	}
	return append(head, tail...)
}

// endpointAnswerRules catch what an endpoint leaves unsaid or proposes
// without review (issue 16): each is new since the external_calls answer
// became required, and says so in its finding.
var endpointAnswerRules = []Rule{
	{
		ID:       "endpoint/external-calls-unstated",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "a keyed endpoint that changes state does not say whether it calls other systems",
		Rationale: "Whether a handler charges a card, sends an email or calls a partner mid-request decides how its retries must be " +
			"handled: such a call cannot be rolled back with the local transaction, so the handler needs recovery points around it. " +
			"Only the team knows, so the contract must answer: external_calls: [] says \"none\", a missing list says nothing, and " +
			"reading silence as \"none\" lets the flaw through. This is question 4 of the design method.",
		Sources: []findings.Source{srcBrandur},
		Fix:     "add external_calls: [] when the handler only touches its own database, or list each call with recovery_points around it",
		Bad:     endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n" + withExample,
		Good:    endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n    external_calls: []\n" + withExample,
		Check: func(c *contract.Contract) []findings.Finding {
			var out []findings.Finding
			for i, e := range c.Endpoints {
				if !stateChangingKeyed(e) || e.ExternalCallsStated {
					continue
				}
				out = append(out, at(c, findings.Finding{Path: fmt.Sprintf("endpoints[%d]", i),
					Message: fmt.Sprintf("%s (effect %s, key %s) does not say whether it calls other systems: a charge or an email made mid-request cannot be rolled back, "+
						"and without recovery points a retry repeats it (a missing external_calls is not read as none)", e.Operation, e.Effect, e.Key),
					Fix: "add external_calls: [] if the handler calls nothing outside its own database, or list each call and the recovery_points around it"}))
			}
			return out
		},
	},
	{
		ID:       "endpoint/recovery-point-order",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "recovery points are in an order that cannot bracket each external call",
		Rationale: "A recovery point records the intent before an external call and its result after it, so a retry resumes past the " +
			"calls already made. When a point is named after the call it follows (bank_charged after charge_bank), the order of the " +
			"names must follow the order of the calls, with a point before the first call: a result recorded before its call, or " +
			"before the previous call's result, resumes a retry at the wrong phase (Brandur Leach's atomic phases).",
		Sources: []findings.Source{srcBrandur},
		Fix:     "list recovery_points in call order: one recording intent before the first call, then one after each call",
		Bad: endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n" +
			"    external_calls: [charge_card, send_receipt]\n    recovery_points: [started, receipt_sent, card_charged]\n    max_duration: 45s\n" + withExample,
		Good: endpointBase + "  - operation: POST /v1/orders\n    effect: create\n    key: required\n" +
			"    external_calls: [charge_card, send_receipt]\n    recovery_points: [started, card_charged, receipt_sent]\n    max_duration: 45s\n" + withExample,
		Check: func(c *contract.Contract) []findings.Finding {
			var out []findings.Finding
			for i, e := range c.Endpoints {
				n := len(e.ExternalCalls)
				if n == 0 || len(e.RecoveryPoints) < n+1 {
					continue // endpoint/no-recovery-points reports too few
				}
				idx, ok := resultPoints(e)
				if !ok {
					continue
				}
				path := fmt.Sprintf("endpoints[%d].recovery_points", i)
				if idx[0] == 0 {
					out = append(out, at(c, findings.Finding{Path: path,
						Message: fmt.Sprintf("%s's first recovery point %s is the result of %s: nothing records the intent before that call, so a crash during it leaves no evidence",
							e.Operation, e.RecoveryPoints[0], e.ExternalCalls[0]),
						Fix: fmt.Sprintf("list recovery_points: [%s]: a point recording the intent (and the key it sends downstream) before %s", strings.Join(reordered(e, idx), ", "), e.ExternalCalls[0])}))
					continue
				}
				for k := 1; k < n; k++ {
					if idx[k] > idx[k-1] {
						continue
					}
					out = append(out, at(c, findings.Finding{Path: path,
						Message: fmt.Sprintf("%s calls %s then %s, but lists %s before %s: a retry that resumes at %s would skip %s or repeat it",
							e.Operation, e.ExternalCalls[k-1], e.ExternalCalls[k], e.RecoveryPoints[idx[k]], e.RecoveryPoints[idx[k-1]],
							e.RecoveryPoints[idx[k]], e.ExternalCalls[k-1]),
						Fix: fmt.Sprintf("order recovery_points as the calls happen, intent first: [%s]", strings.Join(reordered(e, idx), ", "))}))
					break
				}
			}
			return out
		},
	},
	{
		ID:       "endpoint/unreviewed-effect",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "an endpoint's effect is a proposal (reviewed: false) that no person has confirmed",
		Rationale: "`init --openapi` can only guess a PUT's or DELETE's effect from its method, and RFC 9110's idempotent methods are " +
			"a promise the handler must keep, not a property the verb confers. The design method says verify the behaviour, do not " +
			"trust the method: a PUT that appends to a list or a log, a DELETE that decrements a counter, or either one that sends a " +
			"notification, email or webhook on every call repeats that on every retry.",
		Sources: []findings.Source{srcRFC9110},
		Fix:     "read the handler; set the effect it really has (append, increment, decrement or action need key: required), then remove reviewed: false",
		Bad:     endpointBase + "  - operation: PUT /v1/orders/{id}\n    effect: replace\n    key: optional\n    external_calls: []\n    reviewed: false\n" + withExample,
		Good:    endpointBase + "  - operation: PUT /v1/orders/{id}\n    effect: replace\n    key: optional\n    external_calls: []\n" + withExample,
		Check: func(c *contract.Contract) []findings.Finding {
			var out []findings.Finding
			for i, e := range c.Endpoints {
				if !e.Unreviewed {
					continue
				}
				out = append(out, at(c, findings.Finding{Path: fmt.Sprintf("endpoints[%d].reviewed", i),
					Message: fmt.Sprintf("%s is proposed as effect %s but not reviewed: check whether the handler appends (to a list, a log, a ledger), "+
						"bumps or lowers a counter, or sends a notification, email or webhook on each call, since a retry would repeat that", e.Operation, e.Effect),
					Fix: "if it does, set effect: append, increment, decrement or action with key: required; then delete reviewed: false"}))
			}
			return out
		},
	},
}
