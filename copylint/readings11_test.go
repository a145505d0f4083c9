package copylint

import (
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestMethodMessageNamesTheClaim: the method-idempotency finding names
// the method the sentence claims (POST, PATCH, both, or every method)
// and the standard that contradicts it, with a contract and without
// one; with a contract, a claim about PATCH names the contract's PATCH
// endpoints and its fix is in the contract's words. A clean counterpart
// stays clean.
func TestMethodMessageNamesTheClaim(t *testing.T) {
	payouts := prefilterContract(t)
	// The same contract with a keyed PATCH endpoint: a PATCH claim is
	// judged by it alone.
	withPatch := *payouts
	withPatch.Endpoints = append(append([]contract.Endpoint(nil), payouts.Endpoints...), contract.Endpoint{
		Operation: "PATCH /v1/transfers/{id}", Method: "PATCH", Path: "/v1/transfers/{id}",
		Effect: contract.EffectReplace, Key: contract.KeyRequired,
	})
	header := payouts.Idempotency.Header
	cases := []struct {
		c             *contract.Contract
		text          string
		want, notWant []string // in the message ("" text: no finding)
		fix           string
	}{
		{payouts, "All our POSTs are idempotent.", []string{"says POST is idempotent", "RFC 9110 does not make POST idempotent", "POST /v1/transfers is idempotent only with " + header}, []string{"PATCH", "every HTTP method"}, "retry POST /v1/transfers only with the same " + header},
		{payouts, "Our PATCH handlers are idempotent by design.", []string{"says PATCH is idempotent", "RFC 5789 makes PATCH neither safe nor idempotent"}, []string{"says a POST", "every HTTP method"}, "retry POST /v1/transfers only with the same " + header},
		{&withPatch, "Our PATCH handlers are idempotent by design.", []string{"says PATCH is idempotent", "PATCH /v1/transfers/{id} is idempotent only with " + header}, []string{"POST /v1/reports"}, "retry PATCH /v1/transfers/{id} only with the same " + header},
		{payouts, "POST and PATCH requests are idempotent here.", []string{"says POST and PATCH are idempotent", "nor RFC 5789 PATCH"}, nil, ""},
		{payouts, "In this API every HTTP method is idempotent by design.", []string{"says every HTTP method is idempotent"}, []string{"says POST is", "says PATCH"}, ""},
		{nil, "Our PATCH handlers are idempotent by design.", []string{"says PATCH is idempotent; RFC 5789"}, []string{"POST"}, "name the endpoints that are idempotent"},
		{nil, "Every verb is idempotent across our API.", []string{"says every HTTP method is idempotent; RFC 9110"}, nil, ""},
		{payouts, "PATCH is idempotent only when you send the full resource.", nil, nil, ""},
	}
	for _, tc := range cases {
		var got []string
		fix := ""
		for _, f := range LintSource(tc.c, "page.md", []byte(tc.text+"\n")) {
			if f.Rule == RuleMethodIdempotency {
				got = append(got, f.Message)
				fix = f.Fix
			}
		}
		if tc.want == nil {
			if len(got) > 0 {
				t.Errorf("%q: want no method finding, got %q", tc.text, got)
			}
			continue
		}
		if len(got) != 1 {
			t.Errorf("%q: want one method finding, got %q", tc.text, got)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(got[0], w) {
				t.Errorf("%q: message %q lacks %q", tc.text, got[0], w)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(got[0], w) {
				t.Errorf("%q: message %q names %q", tc.text, got[0], w)
			}
		}
		if !strings.Contains(fix, tc.fix) {
			t.Errorf("%q: fix %q lacks %q", tc.text, fix, tc.fix)
		}
	}
}

// TestCannotTwiceReadings: a repeat denied as a possibility ("can't be
// charged twice", "it is not possible that ... two times") is the
// absolute itself; the key's bound, a condition or a verb of knowing
// keeps it honest. None is from a labelled set.
func TestCannotTwiceReadings(t *testing.T) {
	checkReadings(t, []readingCase{
		{"With Lumapay, a merchant can't be billed twice for one invoice.", RuleAbsoluteGuarantee, ""},
		{"A supplier cannot receive the same refund more than once.", RuleAbsoluteGuarantee, ""},
		{"It is not possible that a refund is booked two times.", RuleAbsoluteGuarantee, ""},
		{"With the same key, a refund can't be booked twice within 24 hours.", "", ""},
		{"If you reuse the key, a refund cannot be booked twice.", "", ""},
		{"Without a key, we cannot tell whether a refund was booked twice.", "", ""},
		{"You can't be sure a refund was not booked twice.", "", ""},
	})
}

// TestEllipsisPause: dots between a word and a lower-case one are a
// pause inside the sentence, so a claim spanning them is read whole;
// dots before a capital end the sentence.
func TestEllipsisPause(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Duplicate refunds simply... can't happen here.", RuleAbsoluteGuarantee, ""},
		{"Duplicate refunds... Those can happen when a client drops its key.", "", ""},
	})
}

// TestAffirmedQuestions: a yes-or-no question answered by a bare "yes"
// says what it asks; a hedged or bounded "yes", a "no" and an open
// question stay clean.
func TestAffirmedQuestions(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Can every endpoint be retried safely? Yes.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Are all of our POST endpoints idempotent? Yep, every one.", RuleMethodIdempotency, ""},
		{"Can every endpoint be retried safely? Yes, but only with the same key.", "", ""},
		{"Can every endpoint be retried safely? No, only the reads.", "", ""},
		{"Can every endpoint be retried safely?", "", ""},
		{"Are our POST endpoints idempotent? Yes, when you send the key.", "", ""},
	})
}

// TestLoopMetaphors: a client, a request or "it" that keeps knocking,
// pounding or chasing is a retry loop, judged by its duration or its
// missing end; someone else who keeps knocking retries nothing, and the
// contract's own bound passes.
func TestLoopMetaphors(t *testing.T) {
	checkReadings(t, []readingCase{
		{"During the outage our SDK kept pounding on the bank for twenty minutes.", RuleContradicts, "retry.max_elapsed"},
		{"The client keeps knocking until the bank finally answers.", RuleContradicts, "retry.max_attempts"},
		{"During the outage our SDK kept pounding on the bank for 60 seconds, then gave up.", "", ""},
		{"The courier kept knocking for twenty minutes until someone answered.", "", ""},
		// a loop that lasts, said of retries or a client
		{"Unlike rival libraries, ours persist for up to ten minutes.", RuleContradicts, "retry.max_elapsed"},
		{"Retries carry on for half an hour.", RuleContradicts, "retry.max_elapsed"},
		{"Our SDKs persist for up to a minute.", "", ""},
		{"Your preferences persist for ten minutes.", "", ""},
		// a unit without its figure: the least it means
		{"The worker kept retrying for days during the incident.", RuleContradicts, "retry.max_elapsed"},
		{"The bank stayed open for hours during the incident.", "", ""},
	})
}

// TestDefaultsWithOptInCeiling: a default is what the reader gets, so a
// loop unlimited by default, or a setting that defaults to a count or to
// every error, is judged as the value; a ceiling the reader may opt in
// to does not bound it. The contract's own figures pass.
func TestDefaultsWithOptInCeiling(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Retries are now unlimited by default; set a cap if you need one.", RuleContradicts, "retry.max_attempts"},
		{"Retries are now unlimited if you set the cap to zero.", "", ""},
		{"retry_limit: defaults to twelve attempts, spread over a minute.", RuleContradicts, "retry.max_attempts"},
		{"retry_limit: defaults to three attempts, spread over a minute.", "", ""},
		{"retry_on: defaults to all exceptions thrown by the HTTP layer.", RuleRetryAnyError, "retry.statuses"},
		{"retry_on: defaults to 429 and 503, as the HTTP layer reports them.", "", ""},
		// the setting's name as code opening the line is the attribute
		{"`retry_on`: defaults to every exception thrown by the HTTP layer.", RuleRetryAnyError, "retry.statuses"},
		{"`retry_on`: 429 and 503", "", ""},
		{"Set `retry_on` to the statuses you need: all errors are not retried.", "", ""},
	})
}

// TestComparisonReadings: the second clause of a comparison is read
// with what it leaves out filled in from the first, by ellipsis ("X
// makes you send a key; ours doesn't") or by a pronoun ("X prunes keys
// after a day; we keep them for a week"). A clause that agrees with the
// contract, says "too", or negates the rival's harm stays clean.
func TestComparisonReadings(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Acme requires you to attach a key to every resend; Lumapay doesn't.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Acme requires you to attach a key to every resend; Lumapay does too.", "", ""},
		{"Acme prunes keys after an hour; Lumapay holds on to them for a week.", RuleContradicts, "idempotency.replay_window"},
		{"Acme prunes keys after an hour; Lumapay holds on to them for 24 hours.", "", ""},
		{"Most gateways reduce double charges, while we eliminate them entirely.", RuleAbsoluteGuarantee, ""},
		{"Most gateways ignore double charges, while we report them within a day.", "", ""},
	})
}

// TestWhAnswerReadings: a which-question answered by a universal ("All
// of them") says the statement it completes; an answer that names a
// subset or the contract's own statuses stays clean.
func TestWhAnswerReadings(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Which failures does our client retry? All of them, 404 included.", RuleRetryAnyError, ""},
		{"Which failures does our client retry? 429 and 503 only.", "", ""},
		{"Which operations are idempotent? Every single one of them.", RuleContradicts, ""},
		{"Which operations are idempotent? The reads, and keyed writes within 24 hours.", "", ""},
	})
}

// TestStatusPronounReadings: a status named and then retried as "it" is
// that status retried (a status written as code is a figure the reader
// reads); a status the contract retries, a denial and an obligation on
// the reader stay clean.
func TestStatusPronounReadings(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Got a 422? No problem: our client retries it automatically.", RuleRetryAnyError, "retry.statuses"},
		{"A `404` can be a race, so the SDK retries it for you.", RuleRetryAnyError, "retry.statuses"},
		{"A `503` can be a blip, so the SDK retries it for you.", "", ""},
		{"A 422 is final, so the SDK never retries it.", "", ""},
		{"When a 422 comes back, you decide whether to retry it.", "", ""},
	})
}

// TestExactlyOnceAsObject: "exactly-once" as what a product gives,
// offers or brings is the promise itself, as is the slogan "Exactly
// once, every time"; a count in a template and a denial stay clean.
func TestExactlyOnceAsObject(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Our queue brings your team exactly-once, out of the box.", RuleExactlyOnce, ""},
		{"Exactly once, always.", RuleExactlyOnce, ""},
		{"The template field must appear exactly once, every time.", "", ""},
		{"No queue gives you exactly-once across a network.", "", ""},
	})
}

// TestForbiddenWording: a clause that opens by forbidding the wording
// ("don't say ...", "stop telling customers ...") quotes the claim
// after it, figure and all, without quotation marks; the same claim as
// the page's own, or told to the reader to repeat, stays caught.
func TestForbiddenWording(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Please don't write that replays last a week; the window is 24 hours.", "", ""},
		{"Stop telling merchants that idempotency keys are kept for a month.", "", ""},
		{"Never tell a merchant that every endpoint is safe to retry.", "", ""},
		{"Idempotency keys are kept for a month.", RuleContradicts, "idempotency.replay_window"},
		{"Tell merchants that every endpoint is safe to retry.", RuleContradicts, ""},
	})
}

// TestKeylessRefusedReadings: a keyless resend said never to reach or
// get through is the contract's own refusal; one said to go through is
// the claim.
func TestKeylessRefusedReadings(t *testing.T) {
	checkReadings(t, []readingCase{
		{"A keyless resend never gets through to the payout engine.", "", ""},
		{"A keyless resend always gets through to the payout engine.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		// "doesn't" denies the keyless retry in its clause
		{"The SDK doesn't just resend a failed payout, the error comes back to you.", "", ""},
		{"The SDK can just resend a failed payout, no extra header needed.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
	})
}

// TestReaperFigureReadings: the reaper's figure said of records removed,
// kept for an investigation or outliving the window, beside replay for
// the first part only, is the contract's own; the same figure said of
// replay is caught.
func TestReaperFigureReadings(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Idempotency records are removed after 72 hours, and only the first 24 hours replay a response.", "", ""},
		{"Idempotency records outlive the replay window, 72 hours in all, so support can investigate.", "", ""},
		{"Idempotency keys replay the stored response for 72 hours.", RuleContradicts, "idempotency.replay_window"},
	})
}

// TestThirdPartySubject: a named system that opens the clause as the
// subject of a verb of offering, named again by the bound, states a fact
// about that system; the page's own bounded claim keeps its warning.
func TestThirdPartySubject(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Pulsar provides exactly-once semantics for transactional consumers that read between Pulsar topics.", "", ""},
		{"We provide exactly-once semantics for transactional consumers.", RuleExactlyOnceBounded, ""},
	})
}

// TestRecoverFromAnyError: a client said to recover on its own from
// every class of error retries them all; a denial stays clean.
func TestRecoverFromAnyError(t *testing.T) {
	checkReadings(t, []readingCase{
		{"From v5 the client recovers transparently from every category of error.", RuleRetryAnyError, "retry.statuses"},
		{"The client cannot recover transparently from every category of error.", "", ""},
	})
}
