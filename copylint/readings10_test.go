package copylint

import "testing"

// TestMetaWordingReadings: a sentence about wording (stop calling, avoid,
// instead of, "is the wrong sentence") names the claim as words not to
// write; it does not promise it. Each clean sentence has a claim beside
// it that must stay caught. None is from a labelled set.
func TestMetaWordingReadings(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Let's stop describing the platform as fully idempotent in onboarding emails.", "", ""},
		{"The platform is fully idempotent, so onboarding is simple.", RuleContradicts, ""},
		{`Avoid "retries are always safe" in the README; name the endpoints.`, "", ""},
		{"Retries are always safe, so the README names no endpoints.", RuleContradicts, ""},
		{`Write "at most one charge per key" instead of "never charged twice".`, "", ""},
		{"You will never be charged twice, whatever happens.", RuleAbsoluteGuarantee, ""},
		{"Support agents, don't call every endpoint idempotent when a customer asks.", "", ""},
		{"Every single endpoint is idempotent, our support agents tell customers.", RuleContradicts, ""},
		{"*Every endpoint is idempotent* is a misleading line, so the docs drop it.", "", ""},
	})
}

// TestHonestAfterReadings: what follows a claim can make it the subject
// of a warning (the harm it causes) or disown it ("exactly-once: not
// offered"), under every rule.
func TestHonestAfterReadings(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Retrying on any error is the root cause of most retry storms we see.", "", ""},
		{"Our SDK retries on any error, so your calls go through.", RuleRetryAnyError, ""},
		{"Exactly-once delivery: not offered; each webhook may arrive more than once.", "", ""},
		{"Exactly-once delivery is offered on every webhook.", RuleExactlyOnce, ""},
	})
}

// TestCorrectBoundReadings: a sentence that states the contract's own
// bound (the keyless call refused, the key mechanism with its window,
// records kept to the reaper's figure while replay is the window's) is
// correct copy; the same claim without the bound, or with another
// figure, stays caught.
func TestCorrectBoundReadings(t *testing.T) {
	checkReadings(t, []readingCase{
		{"A transfer resent without its key is rejected with a client error.", "", ""},
		{"You can retry a transfer without a key.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Double payouts are stopped through idempotency keys, kept for 24 hours per account.", "", ""},
		{"Double payouts are stopped for good.", RuleAbsoluteGuarantee, ""},
		{"Idempotency records are archived for 72 hours, though only replayed for a day.", "", ""},
		{"Idempotency keys are remembered for 72 hours.", RuleContradicts, "idempotency.replay_window"},
	})
}

// TestThirdPartyScopeReadings: a named system's guarantee stated within
// that system's own scope is a fact about the third party; the page's own
// bounded claim keeps its warning.
func TestThirdPartyScopeReadings(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Flink's exactly-once checkpoints hold within a Flink transaction, not across your payment provider.", "", ""},
		{"Our exactly-once checkpoints hold within a transaction.", RuleExactlyOnceBounded, ""},
	})
}

// TestRecallReadings10: concept lexicons extended by meaning, each with an
// invented sentence (none from a labelled set) and a clean neighbour.
func TestRecallReadings10(t *testing.T) {
	checkReadings(t, []readingCase{
		// the whole API idempotent with idempotency as a noun and any
		// whole (100%, across all, complete)
		{"Idempotency now spans all of our endpoints, archive and refunds alike.", RuleContradicts, ""},
		{"Idempotency now spans all of our read endpoints.", "", ""},
		// retry safety: "without worrying", tolerance of a repeat in any
		// voice, the universal by indifference ("no matter which")
		{"Resend any payout request without worrying about the outcome.", RuleContradicts, ""},
		{"Resend any payout request with its original key without worrying about the outcome.", "", ""},
		{"Every route survives being retried, so add a retry wrapper.", RuleContradicts, ""},
		{"Retrying is harmless no matter which operation you call.", RuleContradicts, ""},
		{"Retrying is harmless no matter which operation you call, as long as you reuse the same key.", "", ""},
		// any error by a universal over what fails
		{"Anything that breaks is retried by the SDK.", RuleRetryAnyError, ""},
		{"Anything that breaks is logged by the SDK.", "", ""},
		// the idempotent whole as coverage of 100% of a surface
		{"Idempotency is enforced across 100% of the public API.", RuleContradicts, ""},
		{"The refunds endpoint is fully idempotent.", "", ""},
		// no duplicates: a second effect named by its noun, and absolutes
		// by a negated universal ("none of these could ever") or "no way"
		{"Network blips, timeouts, crashed workers: none of these could ever trigger a second payout.", RuleAbsoluteGuarantee, ""},
		{"A crashed worker could trigger a second payout if the key changes.", "", ""},
		{"There's no way a refund gets booked twice on our platform.", RuleAbsoluteGuarantee, ""},
		// a key whose repeat returns the original response is the
		// idempotency key, on any page
		{"Send the same key again within ten days and you receive the first response again.", RuleContradicts, "idempotency.replay_window"},
		{"Send the same key again within 24 hours and you receive the first response again.", "", ""},
	})
}

// TestKeylessReadings10: the key removed before a resend by any verb, the
// obligation lifted by the other party, "keyless" as an adverb, and key
// chores said gone. None is from a labelled set.
func TestKeylessReadings10(t *testing.T) {
	key := "endpoints[0].key (POST /v1/transfers)"
	checkReadings(t, []readingCase{
		{"Delete the idempotency header and fire the payout call again.", RuleContradicts, key},
		{"Delete the idempotency header and fire the payout call again, and it creates a new transfer.", "", ""},
		{"Our gateway never forces you to attach a key when you resend a payout.", RuleContradicts, key},
		{"Our SDK never asks you to attach a key: the client generates one and reuses it when it resends a payout.", "", ""},
		{"Resending payouts keylessly is supported from the CLI.", RuleContradicts, key},
		{"Resending payouts keylessly is rejected with a 400.", "", ""},
		{"No more key bookkeeping: retry transfers exactly as you first sent them.", RuleContradicts, key},
		{"Strip the API key from logs before you retry a failed export.", "", ""},
	})
}

// TestMethodReadings10: PATCH is no idempotent method in RFC 9110, and
// "any verb" is a universal over methods; a subset ("any method that
// is idempotent"), a negation or a condition stays clean.
func TestMethodReadings10(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Our PATCH handlers, like our PUT ones, are idempotent by design.", RuleMethodIdempotency, ""},
		{"PUT and DELETE are idempotent; PATCH is not.", "", ""},
		{"PATCH is idempotent only when you send the full resource.", "", ""},
		{"In this API any HTTP verb behaves idempotently.", RuleMethodIdempotency, ""},
	})
}

// TestVagueDurations: "several" and "a few" before a unit are the least
// they can mean (three, two), in every duration grammar: a retry loop
// said to last "a few days" or keys kept "several days" contradict the
// contract; a vague figure about something else is no claim.
func TestVagueDurations(t *testing.T) {
	checkReadings(t, []readingCase{
		{"The SDK keeps retrying a failed payout for a few days.", RuleContradicts, "retry.max_elapsed"},
		{"Idempotency keys are remembered for several days.", RuleContradicts, "idempotency.replay_window"},
		{"The outage lasted several hours; the SDK gave up after 60 seconds.", "", ""},
	})
}

// TestStandardReadings10: conformance in the progressive ("is
// following"), "the RFC standard" as one noun, and a standard named as
// existing by its adjective or by what it demands of the key; a draft
// stays clean.
func TestStandardReadings10(t *testing.T) {
	checkReadings(t, []readingCase{
		{"The client library is following the RFC on idempotency keys to the letter.", RuleStandardClaim, ""},
		{"Our key header conforms to the IETF standard for idempotency keys.", RuleStandardClaim, ""},
		{"This guide explains the official IETF idempotency-key specification line by line.", RuleStandardClaim, ""},
		{"This guide explains the IETF idempotency-key draft line by line.", "", ""},
		{"The IETF specification mandates a UUID as the idempotency key.", RuleStandardClaim, ""},
	})
}

// TestRetryStatusReadings10: retries as the subject of a verb of scope
// over named statuses (judged against retry.statuses), and "every failed
// status code" as a universal over errors; the contract's own statuses
// and an error code's documentation stay clean.
func TestRetryStatusReadings10(t *testing.T) {
	checkReadings(t, []readingCase{
		{"From v3 on, automatic retries include 404 and 409 responses.", RuleRetryAnyError, "retry.statuses"},
		{"From v3 on, automatic retries include 429 and 503 responses.", "", ""},
		{"Our worker resends each failed response, whatever its status.", RuleRetryAnyError, ""},
		{"The table lists every failed status code and its error message.", "", ""},
	})
}

// TestAnsweredQuestions10: a question about a repeated effect or about
// retry safety, answered with an absolute ("No, never.", "Every time."),
// promises what the answer says; an answer that names the bound does not.
func TestAnsweredQuestions10(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Might a refund be booked more than once? No - not possible.", RuleAbsoluteGuarantee, ""},
		{"Can a refund be booked twice? No, not within 24 hours with the same key.", "", ""},
		{"Is it okay to resend a payout call? Every time.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Is it safe to resend a payout? Only with the same key.", "", ""},
	})
}

// TestIdempotencyNounAsMechanism: "idempotency" modifying another noun
// names a mechanism ("an idempotency check"), not a property of the
// whole API, even beside "all endpoints".
func TestIdempotencyNounAsMechanism(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Turn the inbox on for all endpoints that lack an idempotency filter.", "", ""},
		{"Idempotency is guaranteed on all endpoints.", RuleContradicts, ""},
	})
}
