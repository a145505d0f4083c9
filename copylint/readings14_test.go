package copylint

import "testing"

// The readings of the heldout13/heldout14 round (precision first, then
// recall). Each table holds invented sentences, none from a labelled set:
// a clean one the reading keeps clean, beside a claim of the same shape
// that is still reported.

// TestForNoLongerThan: "for no longer than a minute" after a retry is
// how long the loop lasts, judged against max_elapsed, and not the
// longest wait between attempts; without "for" it is still the cap.
func TestForNoLongerThan(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Our client resends a failed payout for no longer than a minute, then reports the error.", "", ""},
		{"The worker retries a dropped webhook, twice at most and for no more than one minute.", "", ""},
		{"Our client resends a failed payout for no longer than ten minutes, then reports the error.", RuleContradicts, "retry.max_elapsed"},
		{"The SDK never waits longer than 45 seconds between retries.", RuleContradicts, "retry.backoff.cap"},
	})
}

// TestSafeForASubset: retries said safe for a subset ("some calls",
// "certain endpoints", "not all") are no promise about every request,
// even when the advice after it names each endpoint; a universal keeps
// the claim.
func TestSafeForASubset(t *testing.T) {
	const safe = "endpoints[0].key (POST /v1/transfers)"
	checkReadings(t, []readingCase{
		{"Retrying is safe for certain requests, not every one, so look up each endpoint's page.", "", ""},
		{"A retry is safe on a few endpoints, so read each endpoint's reference before adding one.", "", ""},
		{"Retrying is harmless on every endpoint, so read each endpoint's page only for the details.", RuleContradicts, safe},
		{"Retries are always safe, whatever endpoint you call.", RuleContradicts, safe},
	})
}

// TestIdempotentWhereItMatters: the API said idempotent where something
// holds ("where it matters", "wherever money moves", "for the calls
// that create transfers") or keyed by a key names a part of it; where the
// caller calls from, or every call, is still the whole.
func TestIdempotentWhereItMatters(t *testing.T) {
	const whole = "endpoints[2].effect (POST /v1/reports/{id}/archive)"
	checkReadings(t, []readingCase{
		{"Our platform is idempotent wherever money moves: payouts and transfers.", "", ""},
		{"The API is fully idempotent for the calls that create money movements.", "", ""},
		{"Our API is idempotent for money movement, keyed by the request's header.", "", ""},
		{"Our platform is idempotent, wherever you call it from.", RuleContradicts, whole},
		{"The API is fully idempotent for every call that moves money.", RuleContradicts, whole},
	})
}

// TestRetryChainBesideWindow: the contract's longest retry chain said as
// how long one intent is retried, in a sentence that states the
// contract's window, is the chain the window covers; another figure, or
// the chain figure said of the keys alone, is still a window claim.
func TestRetryChainBesideWindow(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Since a single payout can be resent over 6 hours at most, a 24-hour replay window is ample.", "", ""},
		{"Since a single payout can be resent over 10 hours at most, a 24-hour replay window is ample.", RuleContradicts, "idempotency.replay_window"},
		{"Idempotency keys let you retry a payout for up to 6 hours.", RuleContradicts, "idempotency.replay_window"},
	})
}

// TestRepeatVerbsSafe: replaying, re-running, re-issuing or re-posting
// any request is a retry, and an endpoint that tolerates repeats or
// replays tolerates retries; reads, a single named delivery, or a key
// keep it clean.
func TestRepeatVerbsSafe(t *testing.T) {
	const safe = "endpoints[0].key (POST /v1/transfers)"
	checkReadings(t, []readingCase{
		{"You can safely replay any request you sent us, whichever it was.", RuleContradicts, safe},
		{"Feel safe: re-run every operation at will.", RuleContradicts, safe},
		{"Every route on the platform tolerates repeats, so drop your allow-list.", RuleContradicts, safe},
		{"Every read endpoint tolerates repeats.", "", ""},
		{"Our endpoints tolerate repeats when you send the same key.", "", ""},
		{"You can safely replay a webhook delivery from the dashboard.", "", ""},
	})
}

// TestNoNonIdempotentCall: the whole API said idempotent by denying its
// opposite ("no such thing as a non-idempotent endpoint"), by a noun of
// nature ("of an idempotent nature"), or with a part named as included
// ("webhooks included"); a subset of reads keeps it clean, and advice not
// to retry non-idempotent calls is no claim.
func TestNoNonIdempotentCall(t *testing.T) {
	const whole = "endpoints[2].effect (POST /v1/reports/{id}/archive)"
	checkReadings(t, []readingCase{
		{"There is no such thing as a non-idempotent endpoint on our platform.", RuleContradicts, whole},
		{"Lumapay has no non-idempotent operations.", RuleContradicts, whole},
		{"Non-idempotent calls do not exist in Lumapay.", RuleContradicts, whole},
		{"All the endpoints of our platform are of an idempotent nature.", RuleContradicts, whole},
		{"With this release, all Lumapay routes, webhooks included, are idempotent.", RuleContradicts, whole},
		{"There is no such thing as a non-idempotent GET.", "", ""},
		{"All the read endpoints are of idempotent nature.", "", ""},
		{"All GET routes, lists included, are idempotent.", "", ""},
		{"Our SDK never retries non-idempotent calls without a key.", "", ""},
	})
}

// TestAnyFailureRetried: the universal over failures in more words
// ("failed calls of every kind", "whatever was the failure", "no matter
// what went wrong"), a status said to trigger a retry, and a claim after
// "unlike X," (the comparison ends at its comma) are the retry of any
// error; the same words with no retry, a status the contract retries, or
// the compared system's retry keep it clean.
func TestAnyFailureRetried(t *testing.T) {
	const st = "retry.statuses"
	checkReadings(t, []readingCase{
		{"Failed calls of every kind get retried by the client.", RuleRetryAnyError, st},
		{"Whatever was the failure, the worker makes another attempt.", RuleRetryAnyError, st},
		{"Our client resends the payout no matter what went wrong.", RuleRetryAnyError, st},
		{"Every 4xx response triggers an automatic retry in the SDK.", RuleRetryAnyError, st},
		{"Unlike the old client, the SDK retries 409 responses for you.", RuleRetryAnyError, st},
		{"Failed calls of every kind get logged by the client.", "", ""},
		{"Whatever was the failure, the worker logs it.", "", ""},
		{"Our client logs the payout no matter what went wrong.", "", ""},
		{"The client resends no payout, no matter what went wrong.", "", ""},
		{"A 503 response triggers an automatic retry in the SDK.", "", ""},
		{"Unlike the old client that retried 409 responses, our SDK stops.", "", ""},
	})
}

// TestAnswerAfterDash: an answer set off by a dash after a question
// ("Is it safe to resend? - Yes, always.") is the question's answer, as
// one without the dash is; a bounded answer keeps it clean.
func TestAnswerAfterDash(t *testing.T) {
	const safe = "endpoints[0].key (POST /v1/transfers)"
	checkReadings(t, []readingCase{
		{"Is it safe to resend a payout? \u2014 Yes, always.", RuleContradicts, safe},
		{"Is it OK to repeat a call? - A: every time.", RuleContradicts, safe},
		{"Is it safe to resend a payout? \u2014 Only with the same key.", "", ""},
	})
}

// TestEmphaticFragment: a one-word sentence that only stresses the one
// before it ("Ever.", "Period.") belongs to it and makes its claim
// absolute; a word that starts a sentence of its own ("Ever since
// 2019") does not.
func TestEmphaticFragment(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Zero double refunds. Ever.", RuleAbsoluteGuarantee, ""},
		{"No duplicate shipments. Period.", RuleAbsoluteGuarantee, ""},
		{"We refund each failed payout once. Ever since 2019.", "", ""},
		{"Zero double refunds. Ever with the same key? No.", "", ""},
	})
}

// TestNoDuplicateHowever: no duplicate whatever the number or the lateness
// of the resends ("however many times", "no matter how late"), or in no
// case, is the absolute promise; the same with the key's bound is not.
func TestNoDuplicateHowever(t *testing.T) {
	checkReadings(t, []readingCase{
		{"No double payments, however many times the app resends a request.", RuleAbsoluteGuarantee, ""},
		{"Duplicated refunds are blocked, no matter how late the retry arrives.", RuleAbsoluteGuarantee, ""},
		{"In no case the merchant will see two times the same refund.", RuleAbsoluteGuarantee, ""},
		{"No double payments, however many times the app resends a request with the same key.", "", ""},
		{"In no case the merchant will see the same refund in the report.", "", ""},
	})
}

// TestCredentialKeyKept: a credential kept for a time (an API key, a
// secret or publishable key) is no idempotency key, even inside the
// match; the idempotency key kept for the same time is still judged.
func TestCredentialKeyKept(t *testing.T) {
	const window = "idempotency.replay_window"
	checkReadings(t, []readingCase{
		{"The dashboard will remember your API key for a week.", "", ""},
		{"Your secret keys are stored for 90 days in the vault.", "", ""},
		{"The CLI caches the publishable key for a month.", "", ""},
		{"Lumapay remembers your idempotency key for a week.", RuleContradicts, window},
		{"Idempotency keys are stored for 90 days.", RuleContradicts, window},
	})
}

// TestKeyNotAskedFor: a resend that "needs no header", or a key the API
// "does not ask for" beside a resend, lifts the key the contract
// requires; a read, or no resend, keeps it clean.
func TestKeyNotAskedFor(t *testing.T) {
	const keyed = "endpoints[0].key (POST /v1/transfers)"
	checkReadings(t, []readingCase{
		{"A resend of a payout needs no header at all.", RuleContradicts, keyed},
		{"Our API never asks for an idempotency key when you post the transfer again.", RuleContradicts, keyed},
		{"A retry of a balance lookup needs no header.", "", ""},
		{"Our API never asks for an idempotency key on GET requests, so repeat reads freely.", "", ""},
		{"Our API never asks for a billing address.", "", ""},
	})
}

// TestOwnCellLabel: a comparison table's cell labelled with the
// contract's API name is this API's value ("Lumapay: every one"), one
// labelled with another name is that system's and no claim; an
// "Idempotency" column is read as an "Idempotent" one, and "zero, by
// design" is none.
func TestOwnCellLabel(t *testing.T) {
	checkReadings(t, []readingCase{
		{"| Retry-safe calls | Lumapay: every one | Competitor X: a few |", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"| Idempotency | Lumapay: all operations | Others: some |", RuleContradicts, "endpoints[2].effect (POST /v1/reports/{id}/archive)"},
		{"| Idempotency | every endpoint |", RuleContradicts, "endpoints[2].effect (POST /v1/reports/{id}/archive)"},
		{"| Double charges | Lumapay: zero, by design | Others: possible |", RuleAbsoluteGuarantee, ""},
		{"| Retry-safe calls | Competitor X: every one | Lumapay: reads only |", "", ""},
		{"| Idempotency | Others: all operations | Lumapay: GET only |", "", ""},
		{"| Double charges | Others: zero, by design | Lumapay: none per key |", "", ""},
		{"| Idempotency key | every endpoint |", "", ""},
	})
}

// TestTableFirstCounted: a count whose parenthetical says the first
// request is on top ("6 (plus the first call)") counts retries, and one
// that says it is included counts attempts, each against max_attempts.
func TestTableFirstCounted(t *testing.T) {
	const max = "retry.max_attempts"
	checkReadings(t, []readingCase{
		{"| Retry attempts | 6 (plus the first call) |", RuleContradicts, max},
		{"| Attempts | 4 (the first included) |", RuleContradicts, max},
		{"| Retry attempts | 2 (plus the first call) |", "", ""},
		{"| Retries | 3 (including the original request) |", "", ""},
		{"| Max retries | 2 (not counting the initial request) |", "", ""},
	})
}

// TestUnboundedLoopWords: retries "as many as each webhook needs", a
// retry loop "practically unlimited", resending "without ending" or until
// it "receives an OK" have no bound; a bound beside them, or no retry,
// keeps them clean.
func TestUnboundedLoopWords(t *testing.T) {
	const max = "retry.max_attempts"
	checkReadings(t, []readingCase{
		{"New in the Ruby gem: automatic retries, as many as each webhook needs.", RuleContradicts, max},
		{"Our retry loop is practically unlimited, which suits batch payouts.", RuleContradicts, max},
		{"The worker keeps resending the payout without ending.", RuleContradicts, max},
		{"The worker resends the payout until it receives an OK.", RuleContradicts, max},
		{"New in the Ruby gem: automatic retries, as many as each webhook needs within 60 seconds.", "", ""},
		{"The worker resends the payout until it receives an OK, at most 3 times.", "", ""},
		{"The dashboard shows each request until it receives a response.", "", ""},
		{"The worker resends the payout until it receives an OK or the deadline passes.", "", ""},
	})
}

// TestRetryNeverHurts: a retry said harmless by its own absolute needs no
// universal over requests ("a retry can never hurt", "press retry: it's
// always safe", "safe in all cases to send the call again"); a read, the
// same key or a condition keeps it clean.
func TestRetryNeverHurts(t *testing.T) {
	const safe = "endpoints[0].key (POST /v1/transfers)"
	checkReadings(t, []readingCase{
		{"Docs: on our platform, a retry can never hurt your integration.", RuleContradicts, safe},
		{"Network blip? Just press retry: it's always safe here.", RuleContradicts, safe},
		{"It is safe in all cases to send the call again when no reply came.", RuleContradicts, safe},
		{"A retry of a GET can never hurt you.", "", ""},
		{"Press retry with the same key: it's always safe here.", "", ""},
		{"It is safe in all cases to send the call again if you reuse its key.", "", ""},
		{"Retrying can never hurt if you keep the same key.", "", ""},
	})
}

// TestReGerundLongObject: a re- gerund with a longer object ("re-issuing
// an archive for a quarterly report") said harmless is judged by the
// endpoint it names; a read stays clean.
func TestReGerundLongObject(t *testing.T) {
	checkReadings(t, []readingCase{
		{"For support staff: re-issuing an archive for a quarterly report is harmless.", RuleContradicts, "endpoints[2].effect (POST /v1/reports/{id}/archive)"},
		{"For support staff: re-issuing a transfer to a new payee is harmless.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"For support staff: re-issuing a lookup of a transfer is harmless.", "", ""},
	})
}

// TestRepeatWorksKeyAbsent: a repeat said to work when the key or header
// is absent ("works even when the key is missing", "the header of
// idempotency") is a keyless retry; a read, or the harm or rejection it
// meets, keeps it clean.
func TestRepeatWorksKeyAbsent(t *testing.T) {
	const keyed = "endpoints[0].key (POST /v1/transfers)"
	checkReadings(t, []readingCase{
		{"A retry of a transfer works even when the key is missing.", RuleContradicts, keyed},
		{"The repetition of a refund creation succeeds also if the header of idempotency is absent.", RuleContradicts, keyed},
		{"A resend of a payout works even if the header is omitted, but it creates a second payout.", "", ""},
		{"A retry of a balance lookup works even when the key is missing.", "", ""},
		{"A retry works even when the key is missing: it is rejected with 400.", "", ""},
	})
}

// TestTaglineExactlyOnce: "exactly once, every time" after a label
// ("Acme v3: ...", "New in v3 - ...") is the tagline's promise, as at the
// start of a sentence; a count of something shown or run keeps it clean.
func TestTaglineExactlyOnce(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Acme v3: exactly once, without fail.", RuleExactlyOnce, ""},
		{"New in v3 - exactly once, every single time.", RuleExactlyOnce, ""},
		{"New in v3: the form is shown exactly once, every time.", "", ""},
		{"The hook runs exactly once, every time you deploy.", "", ""},
	})
}

// TestFigureInCode: a figure written as a code span (`72h`, `5`) is read
// as part of the sentence, as one without backticks; the contract's own
// figures in code stay clean, and code that is not a figure is still
// dropped.
func TestFigureInCode(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Idempotency keys are honoured for `72h` after the first request.", RuleContradicts, "idempotency.replay_window"},
		{"The SDK retries 500 responses up to `5` times.", RuleRetryAnyError, "retry.statuses"},
		{"Idempotency keys are honoured for `24h` after the first request.", "", ""},
		{"The SDK retries 500 responses at most `1` time.", "", ""},
		{"Keys are honoured for `24h`, and the SDK makes up to `3` attempts.", "", ""},
	})
}

// TestDuplicateAlwaysCaught: the duplicate said always caught ("we always
// block the second one", "automatically rejects every duplicate payout")
// is the absolute promise; the key's bound, a window, or a second thing
// that is no repeat ("the second login attempt") keeps it clean.
func TestDuplicateAlwaysCaught(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Tapped Send twice? Relax: we always block the second one.", RuleAbsoluteGuarantee, ""},
		{"Lumapay automatically rejects every duplicate payout.", RuleAbsoluteGuarantee, ""},
		{"We always block the second request that carries the same key.", "", ""},
		{"Lumapay automatically rejects every duplicate payout within 24 hours.", "", ""},
		{"We always block the second login attempt from a new device.", "", ""},
	})
}
