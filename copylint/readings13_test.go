package copylint

import "testing"

// The readings of the heldout12 round (precision first, then recall).
// Each table holds invented sentences, none from a labelled set: a clean
// one the reading keeps clean, beside a claim of the same shape that is
// still reported.

// TestWholeAPIPlanned: a plan, a goal or a roadmap item that the whole
// API be idempotent is no claim that it is, in any of the family's
// forms; a plan named in another clause leaves the claim standing.
func TestWholeAPIPlanned(t *testing.T) {
	const whole = "endpoints[2].effect (POST /v1/reports/{id}/archive)"
	checkReadings(t, []readingCase{
		{"Roadmap: make the entire API fully idempotent.", "", ""},
		{"A 100% idempotent platform is on our roadmap for 2027.", "", ""},
		{"We are working toward every endpoint being idempotent.", "", ""},
		{"Someday the whole platform will be idempotent end to end.", "", ""},
		{"Next quarter, all endpoints will be idempotent.", "", ""},
		{"An idempotent API across the board is our long-term goal.", "", ""},
		{"Our platform is fully idempotent, and on the roadmap is a batch endpoint.", RuleContradicts, whole},
		{"Every endpoint is idempotent; our goal now is lower latency.", RuleContradicts, whole},
		{"The whole API is idempotent, and next year we add webhooks.", RuleContradicts, whole},
	})
}

// TestAttributedBack: a figure the words after it name as the claim's
// subject's own ("- that's Square's window", "(which is Sidekiq's
// default)") is that system's fact; the same words naming another
// system, or none, keep the claim.
func TestAttributedBack(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Square keeps idempotency keys for 10 days - that's Square's window, not ours.", "", ""},
		{"Sidekiq retries a job forever (which is Sidekiq's default).", "", ""},
		{"Square keeps idempotency keys for 10 days - that's Stripe's window too.", RuleContradicts, "idempotency.replay_window"},
		{"Idempotency keys are kept for 10 days - that's the window.", RuleContradicts, "idempotency.replay_window"},
	})
}

// TestHardProblem: the term said to be a hard or open problem names a
// topic; the problem said solved is the claim.
func TestHardProblem(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Exactly-once processing remains a notoriously difficult problem in distributed systems.", "", ""},
		{"Exactly-once delivery has long been an open question for queues.", "", ""},
		{"Exactly-once processing is a hard problem, and Lumapay solved it.", RuleExactlyOnce, ""},
		{"Exactly-once processing is a feature of every plan.", RuleExactlyOnce, ""},
	})
}

// TestQuotedWordingEveryRule: a quote of wording not to write passes for
// every rule (those without the clause analysis too), in straight or
// curly quotes, double or single; the same words unquoted, or quoted as
// the page's own, are reported.
func TestQuotedWordingEveryRule(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Never write \u201cthe Idempotency-Key header follows the IETF standard\u201d in release notes.", "", ""},
		{"Avoid \u2018Idempotency-Key, as specified in RFC 8941\u2019 on the pricing page.", "", ""},
		{"Don't write 'retry on any error' in the SDK README.", "", ""},
		{"Don't write, in the SDK README, that you may retry on any error.", "", ""},
		{"Our Idempotency-Key header follows the IETF standard.", RuleStandardClaim, ""},
		{"Our SDK will retry on any error, it's \u2018safe\u2019.", RuleRetryAnyError, ""},
	})
}

// TestSettingNotErrorCode: an identifier said to be set, or named as a
// field or an option, is a setting and not an error code the contract
// lacks; one returned is still an error code.
func TestSettingNotErrorCode(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Each method's `idempotency_mode` is set in the service descriptor.", "", ""},
		{"The `idempotency_ttl_hours` field on the account controls nothing in retries.", "", ""},
		{"A conflicting retry returns `idempotency_mismatch` with status 409.", RuleContradicts, "idempotency.conflicts"},
	})
}

// TestSpecDefinitionGlossed: a sentence that is only the spec's
// definition of a method, glossed by its meaning, states HTTP's class;
// the same definition with retry advice after it is the claim.
func TestSpecDefinitionGlossed(t *testing.T) {
	checkReadings(t, []readingCase{
		{"DELETE is idempotent per RFC 9110, because deleting twice leaves the same outcome.", "", ""},
		{"PUT and DELETE are idempotent by definition, since sending either again ends in the identical state.", "", ""},
		{"DELETE is idempotent per RFC 9110, because deleting twice leaves the same outcome, so retry it freely.", RuleMethodIdempotency, ""},
		{"PUT is idempotent by definition, so you can safely retry it.", RuleMethodIdempotency, ""},
	})
}

// TestFragmentAnswered: a verbless fragment question and its answer are
// read as a key and its value ("Keys? Optional." as "keys: optional"),
// judged against the contract; an answer the contract agrees with, or a
// key of another kind, passes.
func TestFragmentAnswered(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Idempotency key? Unnecessary.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Header? Not required.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Key? Required on every POST.", "", ""},
		{"Webhook keys? Optional.", "", ""},
		{"Max attempts? Unlimited.", RuleContradicts, "retry.max_attempts"},
		{"Retry cap? None.", RuleContradicts, "retry.max_attempts"},
		{"Retries? None.", "", ""},
		{"Attempts? Three, within a minute.", "", ""},
	})
}

// TestOneUnitSpan: "for the next hour" (the following, the whole) is a
// span of one unit the retry loop lasts, judged against max_elapsed;
// "the next day" without "for" or "over" names a time, and one minute
// is the contract's own bound.
func TestOneUnitSpan(t *testing.T) {
	checkReadings(t, []readingCase{
		{"The worker keeps resending a failed payout for the next hour.", RuleContradicts, "retry.max_elapsed"},
		{"Our SDK retries a dropped call over the following week.", RuleContradicts, "retry.max_elapsed"},
		{"A payout that still fails is retried the next day by the nightly job.", "", ""},
		{"The SDK retries a dropped call for the next minute, then stops.", "", ""},
	})
}

// TestUnharmedByRepeat: every request said unharmed by a repeat, through
// a universal negative ("none of them", "nothing in the API") or a
// lexicon of harmlessness ("free of side effects", "poses no risk"), or
// the retry button pressed on anything, is the safe-to-retry promise; a
// read, a key or a subject that is not a request keeps it clean.
func TestUnharmedByRepeat(t *testing.T) {
	const safe = "endpoints[0].key (POST /v1/transfers)"
	checkReadings(t, []readingCase{
		{"Rerun the nightly export as often as you like: none of our endpoints care how many times they are called again.", RuleContradicts, safe},
		{"Nothing in the Lumapay API is ever hurt when a request is repeated.", RuleContradicts, safe},
		{"Resending any request is free of side effects.", RuleContradicts, safe},
		{"In the dashboard you can press retry on any request.", RuleContradicts, safe},
		{"None of our read endpoints mind being called again.", "", ""},
		{"Nothing in the Lumapay API is ever hurt when a request is repeated with the same key.", "", ""},
		{"None of the dashboards break when the page reloads twice.", "", ""},
	})
}

// TestNoChanceOfDuplicate: no chance of a duplicate in words of risk or
// odds, a repeat that can never make two of a thing, and "dupes", are
// the absolute promise; a key's bound, a hedge, and a harm a keyless
// retry causes ("can create two transfers") are not.
func TestNoChanceOfDuplicate(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Our checkout carries zero risk of a double charge.", RuleAbsoluteGuarantee, ""},
		{"0% chance of a duplicate payout.", RuleAbsoluteGuarantee, ""},
		{"A flaky network can never make the SDK send two payouts.", RuleAbsoluteGuarantee, ""},
		{"With Lumapay, dupes never happen.", RuleAbsoluteGuarantee, ""},
		{"Sending the same key gives zero risk of a double charge.", "", ""},
		{"Keys bring the chance of a double charge close to zero, with no risk of a second payout for one key.", "", ""},
		{"A resend without a key can create two transfers.", "", ""},
	})
}

// TestRetentionWordings: a retention said with an adverb before its
// verb ("now live forever"), as a label and its value ("Key: stored
// indefinitely"), in a learner's verb form ("is remember"), of the
// request's fingerprint, or with a thousands separator, is judged
// against the contract; the contract's own figure passes.
func TestRetentionWordings(t *testing.T) {
	const window = "idempotency.replay_window"
	checkReadings(t, []readingCase{
		{"Idempotency keys still last forever on the new plan.", RuleContradicts, window},
		{"Idempotency key: retained permanently.", RuleContradicts, window},
		{"The idempotency key is remember by the server for two weeks.", RuleContradicts, window},
		{"We keep each request fingerprint for ninety days, so a replay finds it.", RuleContradicts, window},
		{"Replayed responses are kept for 604,800 seconds.", RuleContradicts, window},
		{"Replayed responses are kept for 86,400 seconds.", "", ""},
		{"We keep each request fingerprint for 24 hours, so a replay finds it.", "", ""},
	})
}

// TestWholeAPIWordings: the whole API said idempotent with the whole
// after it ("Lumapay is idempotent end to end"), with a learner's
// adverb or a resumptive pronoun ("our API, it is complete
// idempotent"), with a longer phrase after its quantifier ("every
// operation in our payments API"), or by its meaning however often
// it runs, is judged against the endpoints; a negated subject, one
// named endpoint, a read and a key keep it clean, and so do idempotency
// keys said to be on every API.
func TestWholeAPIWordings(t *testing.T) {
	const whole = "endpoints[2].effect (POST /v1/reports/{id}/archive)"
	checkReadings(t, []readingCase{
		{"Paymo is partly idempotent; Lumapay is idempotent through and through.", RuleContradicts, whole},
		{"The platform, it is complete idempotent.", RuleContradicts, whole},
		{"Every operation in our payments API is idempotent.", RuleContradicts, whole},
		{"Each call to the API returns the same response however many times it runs.", RuleContradicts, whole},
		{"Not one endpoint changes anything when retried.", RuleContradicts, whole},
		{"No platform is idempotent end to end, so name the endpoints that are.", "", ""},
		{"The transfers endpoint is idempotent end to end.", "", ""},
		{"Each GET call returns the same response however many times it runs.", "", ""},
		{"Not one endpoint changes anything when retried with the same key.", "", ""},
		{"Idempotency keys on every public API are a good habit.", "", ""},
	})
}

// TestKeylessWordings: the key said needless in other words ("never
// bother with keys", "removes the need for keys", "don't even need that
// key"), a retry by a verb and "again" before "without a key" ("called
// again without a key", "re-posting ... with no header"), and "key-free"
// retries, are the keyless promise; the SDK adding the key, a read and a
// refusal keep it clean.
func TestKeylessWordings(t *testing.T) {
	const key = "endpoints[0].key (POST /v1/transfers)"
	checkReadings(t, []readingCase{
		{"Don't bother with idempotency keys; just resend the payout.", RuleContradicts, key},
		{"Our dedupe engine eliminates the need for idempotency keys when a client retries.", RuleContradicts, key},
		{"You don't even need that key header to send a payout again.", RuleContradicts, key},
		{"The payout endpoint can be hit again without a key after a timeout.", RuleContradicts, key},
		{"Re-posting the refund with no header is fine.", RuleContradicts, key},
		{"Key-free resends of payouts are supported.", RuleContradicts, key},
		{"Don't bother with idempotency keys when you retry: the SDK adds them for you.", "", ""},
		{"Re-posting the lookup with no header is fine for GET requests.", "", ""},
		{"A payout called again without a key is rejected with 400.", "", ""},
	})
}

// TestStatusCountAfter: a count stated after a dash or a comma counts
// the retries of the cautious status before it ("a 500 is retried ...
// - up to three attempts"), and "retries on every 5xx" names the class;
// a single retry of the cautious status, and the contract's own
// statuses, pass.
func TestStatusCountAfter(t *testing.T) {
	checkReadings(t, []readingCase{
		{"A 500 is retried much as a 502 is - up to four attempts.", RuleRetryAnyError, "retry.statuses"},
		{"A 500 is retried much as a 502 is, at most once.", "", ""},
		{"Automatic retries on every 5xx.", RuleRetryAnyError, "retry.statuses"},
		{"Automatic retries on 502, 503 and 504.", "", ""},
	})
}

// TestStandardRequiresRetry: a standard or a spec said to require or
// guarantee what a retry or a key does (either order) is a standard
// claim; a draft, a denial, a method's class, or a policy that is not a
// standard, is not.
func TestStandardRequiresRetry(t *testing.T) {
	checkReadings(t, []readingCase{
		{"The HTTP standard ensures a retried payment is processed at most once.", RuleStandardClaim, ""},
		{"RFC 7231 mandates that servers dedupe retried writes.", RuleStandardClaim, ""},
		{"Wrap the key in double quotes, as the official spec requires.", RuleStandardClaim, ""},
		{"The IETF draft requires the key to be wrapped in double quotes.", "", ""},
		{"The HTTP spec never guarantees that a retried write is processed at most once.", "", ""},
		{"Our standard retry policy requires a key on every retry.", "", ""},
	})
}

// TestEmphaticExactlyOnce: "exactly once" closed by an emphatic ("full
// stop", "no exceptions") is the promise whatever its subject; the
// same words about a step the reader takes are not.
func TestEmphaticExactlyOnce(t *testing.T) {
	checkReadings(t, []readingCase{
		{"With us it's exactly once, no exceptions.", RuleExactlyOnce, ""},
		{"The template field must appear exactly once, every time.", "", ""},
	})
}

// TestComparedBound: a bound named in a comparison ("just as Kafka
// transactions do") is the other system's, so the claim is unbounded;
// the bound stated as the claim's own keeps it bounded.
func TestComparedBound(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Our queue hands each payout to your worker exactly once, just like database transactions do.", RuleExactlyOnce, ""},
		{"Our queue hands each payout to your worker exactly once within a database transaction.", RuleExactlyOnceBounded, ""},
	})
}

// TestAttemptVerbs: "re-attempt ... indefinitely" is the unbounded loop,
// and "attempt this request N times" counts attempts of any object
// named by a determiner; the contract's own count passes.
func TestAttemptVerbs(t *testing.T) {
	checkReadings(t, []readingCase{
		{"The worker will re-attempt a failed payout indefinitely.", RuleContradicts, "retry.max_attempts"},
		{"The SDK will attempt your transfer request as many as eight times.", RuleContradicts, "retry.max_attempts"},
		{"The SDK will attempt your transfer request up to three times.", "", ""},
	})
}

// TestAllButOneMethod: every method but one said idempotent ("only
// DELETE is non-idempotent", "every verb is idempotent except TRACE")
// makes POST idempotent too; naming POST or PATCH as the exception is
// HTTP's own rule.
func TestAllButOneMethod(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Of the usual methods, only PUT is non-idempotent.", RuleMethodIdempotency, ""},
		{"TRACE is the only standard verb that is not idempotent.", RuleMethodIdempotency, ""},
		{"Every HTTP verb is idempotent except OPTIONS.", RuleMethodIdempotency, ""},
		{"Of the usual methods, only POST and PATCH are non-idempotent.", "", ""},
	})
}

// TestRePrefixedGerund: a hyphenated re- gerund said harmless
// ("re-archiving a report is harmless") repeats the endpoint its verb
// names; one naming no endpoint of the contract, or a read, passes.
func TestRePrefixedGerund(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Re-archiving is always fine.", RuleContradicts, "endpoints[2].effect (POST /v1/reports/{id}/archive)"},
		{"Re-sending your transfers is safe.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Re-reading the docs is harmless.", "", ""},
	})
}

// TestEveryMutationSafe: mutations and RPCs are requests, and a replay
// or a re-run is a retry, in the universal safe-to-retry form; reads and
// other nouns pass.
func TestEveryMutationSafe(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Each mutation of our GraphQL API is safe to re-run.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"All RPCs we expose are safe to replay.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Every GET request is safe to replay.", "", ""},
		{"Every webhook event is safe to replay.", "", ""},
	})
}

// TestLoopAsLongAs: a retry loop bound to how long something else runs
// ("for as long as the app stays open") is unbounded; the contract's
// bound stated with it passes.
func TestLoopAsLongAs(t *testing.T) {
	checkReadings(t, []readingCase{
		{"The desktop client re-sends a failed payout every 5 s for as long as the process is running.", RuleContradicts, "retry.max_attempts"},
		{"The SDK retries for as long as the app stays open, up to 3 attempts within 60 seconds.", "", ""},
	})
}
