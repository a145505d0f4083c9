package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

var keyRules = []Rule{
	{
		ID:       "key/server-derived",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "the server derives the key from the request instead of the client minting it",
		Rationale: "A key the server computes by hashing the request cannot tell a retry from a second, deliberately identical request: " +
			"two identical transfers meant on purpose collapse into one. Only the caller knows whether two requests are the same intent, " +
			"so only a caller-minted key expresses it. AWS's Builders' Library names the server-side hash as the rejected design; " +
			"Stripe, AWS, Twilio and Resend all let the client mint the key.",
		Sources: []findings.Source{srcAWSIdem, srcStripe},
		Fix:     "set idempotency.key_source: client and document how integrators derive keys",
		Bad:     "idempotency:\n  key_source: server-derived\n",
		Good:    "idempotency:\n  key_source: client\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.Idempotency.KeySource != contract.KeyServerDerived {
				return nil
			}
			msg := fmt.Sprintf("key_source is server-derived: the server makes the key from a hash of the request (%s), and that hash cannot tell a retry from an intended identical second request", serverHash(c))
			fix := "set key_source: client; the caller mints one key per intent and reuses it on every retry"
			if len(c.Idempotency.Derivation) == 0 {
				msg += "; derivation is empty, so integrators are told to mint nothing and two identical transfers meant on purpose collapse into one"
				fix = "set key_source: client and list derivation: [{kind: event-derived}] so the caller mints one key per intent and reuses it on every retry"
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.key_source", Message: msg, Fix: fix})}
		},
	},
	{
		ID:       "key/global-scope",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "keys are unique globally rather than per caller",
		Rationale: "With a global key space, two accounts that happen to pick the same key string collide: one gets the other's stored " +
			"response, which is both a correctness bug and a data leak. Stripe, AWS and the Postgres reference implementation " +
			"(Brandur Leach) all key on the pair (account, key).",
		Sources: []findings.Source{srcBrandur, srcStripe},
		Fix:     "set idempotency.scope: account and make the store's unique constraint (account_id, idempotency_key)",
		Bad:     "idempotency:\n  scope: global\n",
		Good:    "idempotency:\n  scope: account\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.Idempotency.Scope != contract.ScopeGlobal {
				return nil
			}
			msg := "scope is global: the same key sent by two accounts collides, and one account may be served the other's response"
			if c.Idempotency.KeySource == contract.KeyServerDerived {
				msg = fmt.Sprintf("scope is global and the key is the server's hash of the request (%s): two accounts that send the same body get one key, and the second is served the first account's stored response", serverHash(c))
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.scope", Message: msg,
				Fix: "set scope: account so the claim is unique per (account, key)"})}
		},
	},
	{
		ID:       "key/no-fingerprint",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "no request fingerprint, so a reused key with a different body is silently replayed",
		Rationale: "Sending the same key with a different body is a client bug. Without a fingerprint of the payload stored beside the key " +
			"the server cannot notice it and replays the first response for a request it never ran. The IETF draft adds an optional " +
			"fingerprint for exactly this; Resend rejects the mismatch with 409 invalid_idempotent_request.",
		Sources: []findings.Source{srcIETF, srcResend},
		Fix:     "set idempotency.fingerprint: sha256-body and answer a mismatch with conflicts.payload_mismatch",
		Bad:     "idempotency:\n  fingerprint: none\n",
		Good:    "idempotency:\n  fingerprint: sha256-body\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.Idempotency.Fingerprint != contract.FingerprintNone {
				return nil
			}
			pm := c.Idempotency.Conflicts.PayloadMismatch
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.fingerprint",
				Message: "fingerprint is none: a reused key with a different body cannot be detected and is answered with the first request's stored response",
				Fix:     fmt.Sprintf("set fingerprint: sha256-body and reject a mismatch with %d %s", pm.Status, pm.Code)})}
		},
	},
	{
		ID:       "key/fresh-per-attempt",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "a recommended key derivation mints a new key on every attempt",
		Rationale: "A key only collapses duplicates if every retry of one intent carries the same value. A key made from a timestamp, " +
			"or a UUID generated again on each attempt, makes every retry look like a new request, so the mechanism does nothing. " +
			"Recommend, in order, an event-derived key, a request-scoped one, or a random UUID generated once and reused.",
		Sources: []findings.Source{srcResend, srcBrandur},
		Fix:     "remove the per-attempt derivation; recommend event-derived, request-scoped or uuid-reused keys",
		Bad:     "idempotency:\n  derivation:\n    - kind: event-derived\n    - kind: uuid-per-attempt\n",
		Good:    "idempotency:\n  derivation:\n    - kind: event-derived\n    - kind: uuid-reused\n",
		Check: func(c *contract.Contract) []findings.Finding {
			var out []findings.Finding
			for i, d := range c.Idempotency.Derivation {
				if d.Kind != contract.DerivationUUIDPerAttempt && d.Kind != contract.DerivationTimestamp {
					continue
				}
				out = append(out, at(c, findings.Finding{Path: fmt.Sprintf("idempotency.derivation[%d].kind", i),
					Message: fmt.Sprintf("derivation %s mints a new key on every attempt, so no retry is ever recognised as one", d.Kind),
					Fix:     "remove it, or replace it with kind: uuid-reused: one UUID per intent, stored and sent again on every retry"}))
			}
			return out
		},
	},
}

// serverHash names what a server-derived key is computed from: the
// fingerprint the contract states, else the request as a whole.
func serverHash(c *contract.Contract) string {
	if f := c.Idempotency.Fingerprint; f != "" && f != contract.FingerprintNone {
		return "fingerprint " + string(f)
	}
	return "no fingerprint stated, so the whole request"
}

// derivationRank is the design method's order for recommending keys: a key
// named after an event is the same on every retry by construction; a
// request-scoped one needs an identifier per request; a reused UUID
// survives a retry only if the caller stores it.
var derivationRank = map[contract.DerivationKind]int{contract.DerivationEventDerived: 0, contract.DerivationRequestScoped: 1, contract.DerivationUUIDReused: 2}

// keyAnswerRules (issue 16) read the derivation list as the ranking it is.
var keyAnswerRules = []Rule{
	{
		ID:       "key/derivation-order",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "the recommended key derivations are ranked out of order (e.g. uuid-reused above event-derived)",
		Rationale: "The derivation list is a ranking: the docs present it best first, and integrators take the first way that fits. " +
			"An event-derived key (transfer-{your_transfer_id}) is the same on every retry by construction; a request-scoped one " +
			"needs an identifier minted per request; a random UUID is only reused if the caller stores it before the first " +
			"attempt, and a restart between attempts loses it. Resend recommends them in this order.",
		Sources: []findings.Source{srcResend, srcBrandur},
		Fix:     "order derivation event-derived, request-scoped, uuid-reused (leave out the ones that do not fit your API)",
		Bad:     "idempotency:\n  derivation:\n    - kind: uuid-reused\n    - kind: event-derived\n",
		Good:    "idempotency:\n  derivation:\n    - kind: event-derived\n    - kind: uuid-reused\n",
		Check: func(c *contract.Contract) []findings.Finding {
			ds := c.Idempotency.Derivation
			for i := 1; i < len(ds); i++ {
				ri, ok := derivationRank[ds[i].Kind]
				if !ok {
					continue
				}
				for j := 0; j < i; j++ {
					rj, ok := derivationRank[ds[j].Kind]
					if !ok || rj <= ri {
						continue
					}
					return []findings.Finding{at(c, findings.Finding{Path: fmt.Sprintf("idempotency.derivation[%d].kind", i),
						Message: fmt.Sprintf("derivation ranks %s above %s: integrators take the first recommendation, and %s", ds[j].Kind, ds[i].Kind, derivationWhy(ds[j].Kind, ds[i].Kind)),
						Fix:     fmt.Sprintf("rank them best first: %s", rankedKinds(ds))})}
				}
			}
			return nil
		},
	},
}

// rankedKinds writes the derivation list as it should be ranked, as the
// contract's own YAML: best first, kinds outside the ranking last.
func rankedKinds(ds []contract.Derivation) string {
	sorted := slices.Clone(ds)
	slices.SortStableFunc(sorted, func(a, b contract.Derivation) int {
		ra, oka := derivationRank[a.Kind]
		rb, okb := derivationRank[b.Kind]
		if !oka {
			ra = len(derivationRank)
		}
		if !okb {
			rb = len(derivationRank)
		}
		return ra - rb
	})
	var parts []string
	for i, d := range sorted {
		parts = append(parts, fmt.Sprintf("derivation[%d].kind: %s", i, d.Kind))
	}
	return strings.Join(parts, ", ")
}

// derivationWhy says what is lost by preferring worse over better.
func derivationWhy(worse, better contract.DerivationKind) string {
	if worse == contract.DerivationUUIDReused {
		return fmt.Sprintf("a random UUID is the same on a retry only if the caller stored it first, while a %s key is rebuilt from what the caller already holds", better)
	}
	return "an event-derived key is the same on every retry by construction, with no identifier to mint and keep per request"
}
