package rules

import "github.com/retryspec/retryspec/findings"

// IDs of the copy rules, for the copy linter: the catalog is their one
// source.
const (
	CopyExactlyOnce         = "copy/exactly-once"
	CopyExactlyOnceBounded  = "copy/exactly-once-bounded"
	CopyAbsoluteGuarantee   = "copy/absolute-guarantee"
	CopyStandardClaim       = "copy/standard-claim"
	CopyMethodIdempotency   = "copy/method-idempotency"
	CopyRetryAnyError       = "copy/retry-any-error"
	CopyContradicts         = "copy/contradicts-contract"
	CopySuppressionNoReason = "copy/suppression-without-reason"
	CopyUnusedSuppression   = "copy/unused-suppression"
)

// copyRules are documented here, in the one catalog, and checked by the
// copy linter (package copylint) over Markdown, MDX, HTML and text files.
// Their Bad and Good examples are prose.
var copyRules = []Rule{
	{
		ID:       CopyExactlyOnce,
		Severity: findings.Error,
		Scope:    ScopeCopy,
		Summary:  "copy promises exactly-once delivery or processing",
		Rationale: "Exactly-once delivery cannot be had over a network that drops messages (Tyler Treat's argument, resting on the " +
			"FLP impossibility result). What keys deliver is effectively-once: at-least-once delivery plus duplicate collapse, " +
			"within the key's scope and replay window. Kafka's exactly-once holds inside one closed transactional system, which a " +
			"public API is not.",
		Sources: []findings.Source{srcTreat},
		Fix:     "say what holds: retries are safe within the key scope and the replay window (state the window)",
		Bad:     "Every payout is processed exactly once.",
		Good:    "Retrying with the same Idempotency-Key within 24 hours never repeats a payout.",
	},
	{
		ID:       CopyExactlyOnceBounded,
		Severity: findings.Warning,
		Scope:    ScopeCopy,
		Summary:  "copy says \"exactly-once\" and states the bound it holds within; write \"effectively once\" with that bound",
		Rationale: "Inside a closed boundary (one transaction, a deduplication window, one idempotency key) duplicates are collapsed, so " +
			"the sentence is not false the way a bare exactly-once claim is. The word still promises more than the mechanism: " +
			"delivery stays at-least-once, and the effect is applied once only within the bound. Readers quote the term and drop " +
			"the bound, so the method says never to write it: \"effectively once within window W for key K\" keeps the bound in the term.",
		Sources: []findings.Source{srcTreat},
		Fix:     "write \"effectively once\" and keep the bound the sentence states (the finding's fix gives the rewritten sentence)",
		Bad:     "Each message is processed exactly once within the deduplication window.",
		Good:    "Each message is processed effectively once within the deduplication window.",
	},
	{
		ID:       CopyAbsoluteGuarantee,
		Severity: findings.Warning,
		Scope:    ScopeCopy,
		Summary:  "copy makes an unbounded promise: \"guaranteed delivery\", \"never charged twice\", \"duplicate-free\"",
		Rationale: "The guarantee a key gives has edges: the caller's scope, the replay window, the client reusing its key. A promise " +
			"without those edges is false for the integrator who retries on day two or mints a fresh key per attempt, and it is the " +
			"sentence they will quote back in a support ticket.",
		Sources: []findings.Source{srcTreat},
		Fix:     "state the conditions: same key, same account, within the replay window",
		Bad:     "Customers are never charged twice.",
		Good:    "A retried request with the same key within 24 hours is never charged twice.",
	},
	{
		ID:       CopyStandardClaim,
		Severity: findings.Warning,
		Scope:    ScopeCopy,
		Summary:  "copy calls the Idempotency-Key header a standard or an RFC",
		Rationale: "No ratified standard defines the Idempotency-Key header. The IETF draft (draft-ietf-httpapi-idempotency-key-header) " +
			"expired without ratification; the name is common because Stripe popularised it, and its semantics are whatever each " +
			"provider documents. Calling it a standard invites integrators to assume behaviour the API does not have.",
		Sources: []findings.Source{srcIETF},
		Fix:     "call it this API's Idempotency-Key header and link the contract's documented semantics",
		Bad:     "We support the standard Idempotency-Key header defined by the IETF RFC.",
		Good:    "We accept an Idempotency-Key header; its behaviour is documented on this page.",
	},
	{
		ID:       CopyMethodIdempotency,
		Severity: findings.Warning,
		Scope:    ScopeCopy,
		Summary:  "copy says PUT or DELETE are safe to retry because the HTTP spec says so",
		Rationale: "RFC 9110 calls PUT and DELETE idempotent, but the property belongs to the implementation, and the RFC defines " +
			"method semantics only: it says nothing about an idempotency key header, so \"per the HTTP spec\" covers no handler that " +
			"appends or decrements. A PUT that appends or a DELETE that decrements changes state on every call. Docs must say which " +
			"endpoints are safe, not lean on the verb.",
		Sources: []findings.Source{srcRFC9110},
		Fix:     "name the endpoints that are safe to retry, from the contract's endpoints table",
		Bad:     "PUT and DELETE requests are idempotent, so you can always retry them.",
		Good:    "PUT /v1/items/{id} replaces the item and can be retried; DELETE /v1/items/{id}/stock needs an Idempotency-Key.",
	},
	{
		ID:       CopyRetryAnyError,
		Severity: findings.Error,
		Scope:    ScopeCopy,
		Summary:  "copy tells integrators to retry on any error, or with a fixed delay and no jitter",
		Rationale: "Docs are the retry loop for every integrator who writes their own. \"Retry on any error\" retries 4xx bugs; \"wait " +
			"five seconds and retry\" synchronises a fleet into the spike that caused the failure (Marc Brooker's jitter analysis).",
		Sources: []findings.Source{srcBrooker},
		Fix:     "describe the allowlist and the jittered backoff from the contract",
		Bad:     "If a request fails, wait 5 seconds and try again.",
		Good:    "Retry 429, 502, 503 and 504 with full-jitter exponential backoff, at most 3 attempts.",
	},
	{
		ID:       CopyContradicts,
		Severity: findings.Error,
		Scope:    ScopeCopy,
		Summary:  "copy states a figure or name that the contract contradicts",
		Rationale: "The contract is the reviewed source of truth; copy that quotes another window, header, attempt count or error " +
			"code tells integrators something the API does not do, and they build against the copy.",
		Fix:  "use the contract's figure, or change the contract and regenerate the docs",
		Bad:  "Keys are kept for 7 days.   (the contract says replay_window: 24h)",
		Good: "Keys are kept for 24 hours.",
	},
	{
		ID:       CopySuppressionNoReason,
		Severity: findings.Error,
		Scope:    ScopeCopy,
		Summary:  "an inline copy suppression gives no reason",
		Rationale: "A suppression is a reviewed exception: the reason is what the reviewer approves and what the next reader " +
			"needs, as with staticcheck's linter directives. Without one it waives nothing.",
		Sources: []findings.Source{srcStaticcheckDirectives},
		Fix:     "write the reason after two dashes: <!-- retryspec-disable-next-line copy/exactly-once -- quoting a vendor's claim -->",
		Bad:     "<!-- retryspec-disable-next-line copy/exactly-once -->",
		Good:    "<!-- retryspec-disable-next-line copy/exactly-once -- quoted from a competitor's page -->",
	},
	{
		ID:       CopyUnusedSuppression,
		Severity: findings.Warning,
		Scope:    ScopeCopy,
		Summary:  "an inline copy suppression or a docs.copy.allow entry waives nothing",
		Rationale: "A stale suppression hides the next real claim written on that line, and an allow entry that matches nothing " +
			"outlives the page it was written for; staticcheck reports unused directives for the same reason.",
		Sources: []findings.Source{srcStaticcheckDirectives},
		Fix:     "remove it, or move it directly above the line it is meant for",
		Bad:     "<!-- retryspec-disable-next-line copy/exactly-once -- old claim -->\nRetries are safe within 24 hours.",
		Good:    "Retries are safe within 24 hours.",
	},
}
