package copylint

import (
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestOwnRuleFamilies: the families that keep their rule's id (a POST or
// every method said idempotent; a retry on any error or on statuses the
// contract does not retry) are judged against the contract, and against
// the default retry policy without one. None of these sentences is in a
// labelled set.
func TestOwnRuleFamilies(t *testing.T) {
	payouts := prefilterContract(t)
	reads := prefilterContract(t)
	reads.Endpoints = []contract.Endpoint{{Operation: "GET /v1/transfers/{id}", Method: "GET", Path: "/v1/transfers/{id}", Effect: contract.EffectRead, Key: contract.KeyNone}}
	anyStatus := prefilterContract(t)
	anyStatus.Retry.AnyStatus = true
	for _, tc := range []struct {
		text, rule string
		path       string // with the payouts contract; "" for no finding
		bare       bool   // a finding without a contract too
		other      *contract.Contract
	}{
		{"Every POST on our platform is idempotent.", RuleMethodIdempotency, "endpoints[2].effect (POST /v1/reports/{id}/archive)", true, reads},
		{"On Acme, POST calls behave idempotently too.", RuleMethodIdempotency, "endpoints[2].effect (POST /v1/reports/{id}/archive)", true, reads},
		{"Idempotent verbs across the board, writes included.", RuleMethodIdempotency, "endpoints[2].effect (POST /v1/reports/{id}/archive)", true, reads},
		{"All HTTP methods we expose, POST among them, are idempotent.", RuleMethodIdempotency, "endpoints[2].effect (POST /v1/reports/{id}/archive)", true, reads},
		{"POST is not idempotent unless you send a key.", "", "", false, nil},
		{"POST /v1/transfers is idempotent with the same key.", "", "", false, nil},
		{"Any failure at all gets retried by our client.", RuleRetryAnyError, "retry.statuses", true, anyStatus},
		{"We retry 404 and 409 responses automatically.", RuleRetryAnyError, "retry.statuses", true, anyStatus},
		{"Whatever goes wrong, the worker tries again.", RuleRetryAnyError, "retry.statuses", true, anyStatus},
		{"Errors? The CLI retries every one of them.", RuleRetryAnyError, "retry.statuses", true, anyStatus},
		{"The SDK retries 503 and 504 responses.", "", "", false, nil},
		{"A 404 means the resource is gone, so retrying will not help.", "", "", false, nil},
		{"Does the client retry every error? No, only 429 and gateway errors.", "", "", false, nil},
	} {
		fs := LintSource(payouts, "page.md", []byte(tc.text+"\n"))
		found := false
		for _, f := range fs {
			found = found || f.Rule == tc.rule && f.Path == tc.path && f.Fix != ""
		}
		switch {
		case tc.path == "" && len(fs) > 0:
			t.Errorf("%q: want no finding, got %v", tc.text, fs)
		case tc.path != "" && !found:
			t.Errorf("%q: want a %s finding at %s with a fix, got %v", tc.text, tc.rule, tc.path, fs)
		}
		bare := LintSource(nil, "page.md", []byte(tc.text+"\n"))
		has := false
		for _, f := range bare {
			has = has || f.Rule == tc.rule
		}
		if tc.bare != has || !tc.bare && len(bare) > 0 {
			t.Errorf("%q without a contract: want a %s finding %v, got %v", tc.text, tc.rule, tc.bare, bare)
		}
		if tc.other != nil {
			for _, f := range LintSource(tc.other, "page.md", []byte(tc.text+"\n")) {
				if f.Rule == tc.rule {
					t.Errorf("%q: a contract that agrees, want no %s finding, got %v", tc.text, tc.rule, f)
				}
			}
		}
	}
}

// TestNamedEndpointSafe: a named endpoint said safe to retry is judged
// against that endpoint; a key, a read or a quote keeps it honest.
func TestNamedEndpointSafe(t *testing.T) {
	payouts := prefilterContract(t)
	for _, tc := range []struct{ text, path string }{
		{"Retrying an archive call is always harmless.", "endpoints[2].effect (POST /v1/reports/{id}/archive)"},
		{"It's fine to send the transfer request again.", "endpoints[0].key (POST /v1/transfers)"},
		{"Stuck? Don't worry, resending a transfer is perfectly safe.", "endpoints[0].key (POST /v1/transfers)"},
		{"It's safe to send the transfer request again with the same key.", ""},
		{"Retrying GET /v1/transfers/{id} is safe.", ""},
		{"Retrying a refund is safe.", ""}, // no such endpoint in the contract
		{"Don't retry the archive call: a second one is not harmless.", ""},
	} {
		fs := LintSource(payouts, "page.md", []byte(tc.text+"\n"))
		switch {
		case tc.path == "" && len(fs) > 0:
			t.Errorf("%q: want no finding, got %v", tc.text, fs)
		case tc.path != "" && (len(fs) != 1 || fs[0].Rule != RuleContradicts || fs[0].Path != tc.path || fs[0].Fix == ""):
			t.Errorf("%q: want one finding at %s with a fix, got %v", tc.text, tc.path, fs)
		}
	}
}

// TestOtherSensesAndQuotes: "exactly once" in other senses, a figure
// inside a question or a quote named as wording, a bound on the wait
// between attempts, and "Unlike X, <claim>".
func TestOtherSensesAndQuotes(t *testing.T) {
	payouts := prefilterContract(t)
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Enter your card number exactly once, then wait for the payout.", false},
		{"Your webhook secret is displayed exactly once.", false},
		{"Apply the database migration exactly once per region before deploying the payments service.", false},
		{"Lumapay delivers each webhook exactly once.", true},
		{"Exactly-once payouts aren't something we can promise.", false},
		{"Please stop saying \"idempotency keys last 30 days\" in sales decks.", false},
		{"Do you keep idempotency keys for 30 days? No, for 24 hours.", false},
		{"We keep idempotency keys for 30 days.", true},
		{"Transfers are retried indefinitely, with backoff capped at 30 seconds.", true},
		{"Unlike other APIs, Lumapay lets you resend a transfer without any key.", true},
		{"Unlike a keyless retry, a retry with the same key is safe.", false},
		// "not a single" and "not one" are the absolute, "does not" denies;
		// a question whether a key must be sent, answered no.
		{"Since launch, not one refund has been sent twice.", true},
		{"Our pipeline does not guarantee that a refund is never sent twice.", false},
		{"Must we send an idempotency key when we resend a refund? Not at all.", true},
		{"Must we attach an idempotency key when we resend a refund? Yes, the same one.", false},
	} {
		fs := LintSource(payouts, "page.md", []byte(tc.text+"\n"))
		if (len(fs) > 0) != tc.want {
			t.Errorf("%q: want a finding %v, got %v", tc.text, tc.want, fs)
		}
	}
}

// TestSixthSetReadings: the readings added when heldout6 became a
// development set. Each row is a class, not a sentence of the set:
// conformance to a standards body said of idempotency in any order, a
// universal over failed requests, non-2xx responses or "regardless of the
// status", a bare-noun subject that retries named statuses, a cautious
// status said retried more than once, a key said optional on a named
// endpoint (judged by that endpoint), a keyless resend said never
// processed or said to make no second effect, "retries: unlimited", a non-
// native "as much times as it need", a bound the next words name as a wait
// between attempts, "(a) couple of hours" as a figure, exactly-once in the
// other order or named as a promise, the term said unrelated to what a
// page describes, and a duplicate's absence said guaranteed or impossible
// to cause, or prevented per key (a bound), "idempotents" and an
// idempotent "backend", "all our endpoints ... safe to call again" or
// "repeated blindly", a repeat as a gerund said harmless, and an endpoint
// named by method and path said idempotent, judged by that endpoint alone.
// None of these sentences is in a labelled set.
func TestSixthSetReadings(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Idempotency handling that is fully IETF compliant.", RuleStandardClaim, ""},
		{"The idempotency layer adheres to the official HTTP specification.", RuleStandardClaim, ""},
		{"Every write is built in line with the RFC for safe retries.", RuleStandardClaim, ""},
		{"Standards-conformant idempotency on all plans.", RuleStandardClaim, ""},
		{"Our idempotency keys follow the IETF draft, which is not a standard.", "", ""},
		{"Our PUT handlers follow RFC 9110, so they are idempotent.", "", ""},
		{"Is our idempotency layer RFC compliant?", "", ""},
		{"The SDK follows standard practice and retries only idempotent requests.", "", ""},
		{"Every failed operation is retried by the worker.", RuleRetryAnyError, "retry.statuses"},
		{"The worker resends the call, regardless of the status.", RuleRetryAnyError, "retry.statuses"},
		{"Every non-2xx status gets retried by the client.", RuleRetryAnyError, "retry.statuses"},
		{"Whichever error comes back, the gem retries the request.", RuleRetryAnyError, "retry.statuses"},
		{"The job was retried, whatever went wrong in the worker.", RuleRetryAnyError, "retry.statuses"},
		{"Failures? The gem retries them all.", RuleRetryAnyError, "retry.statuses"},
		{"SDK also retries 401 and 403 responses.", RuleRetryAnyError, "retry.statuses"},
		{"SDK never retries 401 or 403 responses.", "", ""},
		{"A 500 response is retried up to five times by the client.", RuleRetryAnyError, "retry.statuses"},
		{"A 500 response is retried at most once.", "", ""},
		{"Each bucket holds 500 tokens, 35 times the cost of retrying a request.", "", ""},
		{"Failed messages go to the error queue without the ability to be retried, regardless of the error.", "", ""},
		{"Every failed request is logged with its status code.", "", ""},
		{"The Idempotency-Key header is now optional on POST /v1/transfers.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Idempotency-Key is now optional on POST /v1/reports/{id}/archive.", "", ""},
		{"Keys are mandatory, so a keyless retry is never processed.", "", ""},
		{"Call the transfers endpoint again without a key, it won't create a duplicate transfer.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Resend the transfer without an idempotency key and it will create a second transfer.", "", ""},
		{"Client retries: unlimited.", RuleContradicts, "retry.max_attempts"},
		{"The worker retries the job as much times as it needs.", RuleContradicts, "retry.max_attempts"},
		{"Payouts are retried indefinitely, backing off to at most 20 seconds between attempts.", RuleContradicts, "retry.max_attempts"},
		{"Payouts are retried indefinitely, backing off to at most 20 seconds.", RuleContradicts, "retry.max_attempts"},
		{"Payouts are retried indefinitely, up to 3 attempts in all.", "", ""},
		{"The SDK keeps trying for a couple of hours.", RuleContradicts, "retry.max_elapsed"},
		{"The worker keeps retrying for the next couple of minutes.", RuleContradicts, "retry.max_elapsed"},
		{"Every refund is processed one time exactly.", RuleExactlyOnce, ""},
		{"Exactly once, every time: that is our pledge to you.", RuleExactlyOnce, ""},
		{"We never promise exactly-once delivery.", "", ""},
		{"Kafka's exactly-once semantics are unrelated to how Lumapay handles refunds.", "", ""},
		{"NATS exactly-once delivery has nothing to do with our refund endpoint.", "", ""},
		{"Zero double payouts since launch, and that is guaranteed.", RuleAbsoluteGuarantee, ""},
		{"Double-payment prevention, guaranteed on every plan.", RuleAbsoluteGuarantee, ""},
		{"Refunds are protected from duplication for the life of your account.", RuleAbsoluteGuarantee, ""},
		{"It is impossible to create a duplicate refund.", RuleAbsoluteGuarantee, ""},
		{"During a failover, duplicates are guaranteed, so handlers must be idempotent.", "", ""},
		{"Duplicates are prevented per key; a new key is a new refund.", "", ""},
		{"All operations of the API are idempotents.", RuleContradicts, ""},
		{"A fully idempotent backend for every payout.", RuleContradicts, ""},
		{"Timeout? All our endpoints are safe to send again.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Every request to the payouts API can be repeated blindly.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"All our endpoints are safe to call again with the same key.", "", ""},
		{"Sending a transfer request again is perfectly safe.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Calling the archive endpoint twice is harmless.", RuleContradicts, "endpoints[2].effect (POST /v1/reports/{id}/archive)"},
		{"POST /v1/reports/{id}/archive is fully idempotent.", RuleContradicts, "endpoints[2].effect (POST /v1/reports/{id}/archive)"},
		{"Any request to the API can be repeated any number of times with the same outcome.", RuleContradicts, ""},
		{"Any request can be repeated with the same key and get the same response.", "", ""},
		{"The refund action is a DELETE-like call, hence idempotent.", RuleMethodIdempotency, ""},
		{"The archive endpoint looks PUT-like but is not idempotent.", "", ""},
		{"GET /v1/transfers/{id} is idempotent.", "", ""},
		{"DELETE /v1/transfers/{id} is idempotent.", "", ""}, // no such endpoint
		{"POST /v1/transfers is idempotent when you send a key.", "", ""},
	})
}
