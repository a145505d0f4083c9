package copylint

import (
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestFamiliesJudgedByContract: a claim family's finding depends on the
// contract's values, not on the words alone. With the payouts contract
// (a keyed create, a non-idempotent action, 24h window, 3 attempts) each
// claim is reported with the contract value it contradicts; with a
// contract whose endpoints are all reads and whose window is 30 days,
// the same sentences about endpoints and retention pass.
func TestFamiliesJudgedByContract(t *testing.T) {
	payouts := prefilterContract(t)
	reads := prefilterContract(t)
	reads.Endpoints = []contract.Endpoint{{Operation: "GET /v1/transfers/{id}", Method: "GET", Path: "/v1/transfers/{id}", Effect: contract.EffectRead, Key: contract.KeyNone}}
	reads.Idempotency.ReplayWindow = contract.Duration{D: 30 * 24 * 3600e9}
	for _, tc := range []struct {
		text      string
		path      string // with the payouts contract; "" for none
		readsPass bool   // no finding with the reads-only contract
	}{
		{"Our SDKs retry automatically, forever, until the request succeeds.", "retry.max_attempts", false},
		{"The client never gives up on a payout.", "retry.max_attempts", false},
		{"You can safely retry any request.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Retries are always safe.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Every endpoint is idempotent.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"Our API is 100% idempotent.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"If a payout times out, just resend it.", "endpoints[0].key (POST /v1/transfers)", true},
		{"You can retry a transfer without a key.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Keys are kept for 30 days.", "idempotency.replay_window", true},
		{"We remember each key for a month.", "idempotency.replay_window", true},
		{"You get a week of replay.", "idempotency.replay_window", false},
		// Hedged and correct copy.
		{"The SDK retries up to 2 times within 60 seconds.", "", true},
		{"Safe to retry with the same key within 24 hours.", "", true},
		{"Not every request is safe to retry.", "", true},
		{"Do not write \"every endpoint is idempotent\".", "", true},
		{"Keys are kept for 24 hours.", "", false},
		{"Stored keys are purged after 72 hours.", "", false},
		{"At most one charge per key.", "", true},
		// A loop length said with another verb of sending again; a stated
		// stop that agrees with the contract is no fixed wait; a denial
		// inside "retries ... forever"; a statement about a named subset.
		{"Declined transfers are resent for up to 10 minutes.", "retry.max_elapsed", false},
		{"Our SDK stops retrying after 60 seconds.", "", false},
		// The contract's longest_retry_chain (6h) is a loop it states.
		{"Our reconciliation job resubmits failed transfers for up to 6 hours.", "", false},
		{"Retries will not continue indefinitely.", "", true},
		{"Only the endpoints flagged safe in the table may be retried without a key.", "", true},
		// What a sentence asserts in words no older form read: a subject
		// that sends again with an end only success brings or a missing
		// cap, in any order; a count of further attempts; a loop length
		// said with "again" or before "of retries"; the key left out or
		// called optional.
		{"Failed payouts are re-sent by the worker until the bank accepts them.", "retry.max_attempts", false},
		{"Retrying has no hard cap.", "retry.max_attempts", false},
		{"After the first attempt, the client makes four more.", "retry.max_attempts", false},
		{"Payouts are attempted again for up to two hours.", "retry.max_elapsed", false},
		{"You get five minutes of retrying before the error surfaces.", "retry.max_elapsed", false},
		{"You can omit the key when you resend a transfer.", "endpoints[0].key (POST /v1/transfers)", true},
		{"The idempotency key is optional.", "endpoints[0].key (POST /v1/transfers)", true},
		{"The client makes two more attempts after the first.", "", false},
		{"The idempotency key is optional for GET /v1/transfers/{id}.", "", true},
		{"The retry runs again, and a crash leaves a key that says the phase ran.", "", true},
		// The promise read by its parts (issue 29, heldout3's misses
		// generalised; none of these sentences is in a labelled set): a
		// retry-safety predicate with a universal over what is retried;
		// an obligation to send a key lifted, a keyless retry by its own
		// word, a server said to match repeats by content; a quantified
		// noun phrase of the API, idempotency built into every route;
		// a duration in any wording; a loop length said with "keeps
		// trying" or "re-attempted"; a count said as "a dozen".
		{"Each of our endpoints tolerates retries.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Retrying any Lumapay call is always fine.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Resending whatever you posted carries no risk.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Each transfer retry with the same key carries no risk.", "", true},
		{"Retries carry no risk for reads.", "", true},
		{"You will never need to send a key when you retry a payout.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Key-less resends are supported.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Repeats are deduplicated automatically by their payload.", "endpoints[0].key (POST /v1/transfers)", true},
		{"You don't have to attach a key yourself when you retry: the SDK adds one.", "", true},
		{"Retries are deduplicated automatically by their Idempotency-Key.", "", true},
		{"All public Lumapay routes are idempotent.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"Idempotency is baked into every route.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"All read endpoints are idempotent.", "", true},
		{"Stored results stay available for a whole month.", "idempotency.replay_window", true},
		{"Keys are honoured for one full day.", "", false},
		{"The client keeps trying a payout for about ten minutes.", "retry.max_elapsed", false},
		{"Failed transfers are re-attempted for as long as two hours.", "retry.max_elapsed", false},
		{"Each request gets a dozen retries.", "retry.max_attempts", false},
		// A question and its answer are one promise: the answer's subject
		// is the question's.
		{"FAQ: How long are keys stored? Forty-eight hours.", "idempotency.replay_window", false},
		{"Q: Which requests may I safely retry? A: Every one.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Do we need an idempotency key to resend a payout? Nope.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Q: Can I retry without a key? A: No, a retry without its key is a new transfer.", "", true},
		{"How long do you keep keys? 24 hours, then the key starts a new transfer.", "", false},
		{"Which calls can I retry? Only reads, and transfers with their original key.", "", true},
		// More parts of each promise: a loop kept up "until" anything or
		// around the clock, a retry budget said unlimited, a count of
		// times something is attempted; a resend said as "hit again", a
		// universal as "whatever the route"; any name said fully
		// idempotent (a named endpoint is not the whole API); "No key?
		// No worries"; replays that "apply" for a time.
		{"The Ruby gem keeps re-sending a refund until the card network says yes.", "retry.max_attempts", false},
		{"Retries carry on round the clock.", "retry.max_attempts", false},
		{"Lumapay's attempt budget is unlimited.", "retry.max_attempts", false},
		{"Our PHP client will attempt a call up to 6 times.", "retry.max_attempts", false},
		{"Our PHP client will attempt a call up to 3 times.", "", false},
		{"Keep polling the status endpoint until it reports paid.", "", true},
		{"Each Lumapay route can be hit again safely.", "endpoints[0].key (POST /v1/transfers)", true},
		{"It is safe to press retry, whatever the route.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Retries are safe whatever the endpoint, as long as each carries its key.", "", true},
		{"Acme is 100% idempotent.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"The refunds endpoint is fully idempotent.", "", true},
		{"Stripe's API is fully idempotent for POST requests with keys.", "", true},
		{"No idempotency key? No worries.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Replays apply for up to two weeks.", "idempotency.replay_window", false},
		{"Our SDK re-sends each failed call ten times.", "retry.max_attempts", false},
		{"Our SDK re-sends each failed call twice.", "", false},
		{"Every route of ours behaves idempotently everywhere.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"Each and every Lumapay route is idempotent.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"When a call times out, resend whatever you like.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Keys stick around for ninety days.", "idempotency.replay_window", false},
		// retryspec's own copy: a keyless request refused is the rule.
		{"The server refuses a keyless retry of a transfer with 428.", "", true},
		// The promise's grammar rather than its words (issue 29, after
		// heldout4 and dev5; none of these sentences is in a labelled
		// set): an infinitive after a verb of doing is no purpose; harm
		// negated is safety; an adverb before "optional", a gerund after
		// "without", a key "no longer needed" or "not needed"; a keyless
		// retry named as the cause of duplicates is a warning; passive,
		// perfect and causative idempotency; an adjective of the whole;
		// durations without a preposition, as an adjective, in halves;
		// counts with an adjective before "attempts" and a scope after;
		// a quote named a toggle by what follows it.
		{"Our client was taught to never stop retrying a refund.", "retry.max_attempts", false},
		{"Feel free to resend anything that failed.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Whichever route you hit, a retry could never hurt.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Keys are completely optional for retries.", "endpoints[0].key (POST /v1/transfers)", true},
		{"You can retry a payout without sending any key.", "endpoints[0].key (POST /v1/transfers)", true},
		{"The Idempotency-Key header is no longer needed for retries.", "endpoints[0].key (POST /v1/transfers)", true},
		{"A key is not needed to resend a transfer.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Resent payouts are matched even when no key was sent.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Resending without a key is how a second payout happens.", "", true},
		{"Duplicates occur when a client retries without its key.", "", true},
		{"Every route has been made idempotent.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"We made each Lumapay endpoint idempotent.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"A completely idempotent transfers API.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"We baked idempotency into all of our endpoints.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"The platform is idempotent through and through.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"Every single action in the dashboard is idempotent.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"Keys stay good for half a day.", "idempotency.replay_window", false},
		{"Keys are remembered 48 hours.", "idempotency.replay_window", false},
		{"We keep holding on to results during a fortnight.", "idempotency.replay_window", false},
		{"Fourteen-day idempotency on the Pro plan.", "idempotency.replay_window", false},
		{"How long is a key valid? Half a day.", "idempotency.replay_window", false},
		{"The SDK makes four automatic attempts per request.", "retry.max_attempts", false},
		{"The SDK makes three automatic attempts per request.", "", false},
		{"Changelog: the \"retry until success\" toggle was removed.", "", true},
		// The concept forms: the promise's concepts in one sentence in any
		// order and words (safety, a retry, a universal; idempotent, a
		// whole, the API; the key unneeded, the key, a retry).
		{"You can retry every Lumapay request without a second thought.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Only reads can be retried without a second thought, whatever the endpoint.", "", true},
		{"Idempotent by design and by default: the entire Lumapay API.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"Making the entire API idempotent is our goal for next year.", "", true},
		{"Retries don't need an idempotency key.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Retries of GET calls don't need a key.", "", true},
		{"Keys are remembered for a couple of weeks.", "idempotency.replay_window", false},
		{"This release teaches the worker to keep re-sending a refund until the bank confirms it.", "retry.max_attempts", false},
	} {
		fs := LintSource(payouts, "page.md", []byte(tc.text+"\n"))
		var paths []string
		for _, f := range fs {
			paths = append(paths, f.Path)
		}
		switch {
		case tc.path == "" && len(fs) > 0:
			t.Errorf("%q: want no finding, got %v", tc.text, fs)
		case tc.path != "" && (len(fs) != 1 || fs[0].Path != tc.path || fs[0].Rule != RuleContradicts || fs[0].Fix == ""):
			t.Errorf("%q: want one copy/contradicts-contract finding at %s with a fix, got paths %v: %v", tc.text, tc.path, paths, fs)
		}
		if tc.readsPass {
			if fs := LintSource(reads, "page.md", []byte(tc.text+"\n")); len(fs) > 0 {
				t.Errorf("%q: the reads-only contract agrees, want no finding, got %v", tc.text, fs)
			}
		}
	}
}

// TestEveryClaimReported: two claims of one rule in one sentence, and
// several in one paragraph, are each a finding at their own column.
func TestEveryClaimReported(t *testing.T) {
	c := prefilterContract(t)
	text := "Every endpoint is idempotent and all operations are idempotent by design; you will never be charged twice and no duplicate shipments, ever.\n"
	fs := LintSource(c, "page.md", []byte(text))
	var got []string
	for _, f := range fs {
		got = append(got, f.Rule+"@"+itoa(f.Column))
	}
	want := []string{RuleContradicts + "@1", RuleContradicts + "@34", RuleAbsoluteGuarantee + "@84", RuleAbsoluteGuarantee + "@111"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("findings %v, want %v", got, want)
	}
}

// TestEveryFamilyClaimReported (issue 29 item 2): one paragraph holding a
// claim of each family, over two lines and three sentences, gives one
// finding per claim at the claim's own line and column, each naming the
// contract value it contradicts.
func TestEveryFamilyClaimReported(t *testing.T) {
	c := prefilterContract(t)
	text := "Every single route tolerates retries, idempotency keys stay valid for a full week, and keyless retries are fully supported.\n" +
		"Double payouts are gone for good; all Lumapay operations are idempotent. The client keeps trying for an hour.\n"
	fs := LintSource(c, "page.md", []byte(text))
	var got []string
	for _, f := range fs {
		got = append(got, f.Rule+"@"+itoa(f.Line)+":"+itoa(f.Column)+" "+f.Path)
	}
	want := []string{
		RuleContradicts + "@1:20 endpoints[0].key (POST /v1/transfers)",
		RuleContradicts + "@1:71 idempotency.replay_window",
		RuleContradicts + "@1:88 endpoints[0].key (POST /v1/transfers)",
		RuleAbsoluteGuarantee + "@2:1 ",
		RuleContradicts + "@2:35 endpoints[2].effect (POST /v1/reports/{id}/archive)",
		RuleContradicts + "@2:85 retry.max_elapsed",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestMarkupInWordHidesNoFamilyClaim (issue 29 item 4): empty markup
// inside a family's anchor word ("idem<span></span>potent",
// "fore<!-- -->ver", MDX "dupli{/* */}cate", in MDX and Markdown) hides
// no claim, in Markdown, HTML and MDX, when it is the file's only claim
// (so the byte prefilter alone would pass the file). An MDX comment
// between words of a Markdown file is left as it is.
func TestMarkupInWordHidesNoFamilyClaim(t *testing.T) {
	c := prefilterContract(t)
	for _, tc := range []struct{ name, text, rule string }{
		{"a.md", "# API\n\nEvery endpoint is idem<span></span>potent.\n", RuleContradicts},
		{"b.md", "# SDK\n\nOur SDK retries a payout fore<!-- -->ver.\n", RuleContradicts},
		{"c.html", "<h1>API</h1>\n<p>Every endpoint is idem<!-- -->potent.</p>\n", RuleContradicts},
		{"d.html", "<h1>Pay</h1>\n<p>No dupli<span></span>cate payouts, ever.</p>\n", RuleAbsoluteGuarantee},
		{"e.mdx", "# SDK\n\nOur SDK retries a payout fore{/* */}ver.\n", RuleContradicts},
		{"f.mdx", "# Pay\n\nNo dupli{/* */}cate payouts, ever.\n", RuleAbsoluteGuarantee},
		// A site that reads .md files as MDX (Docusaurus 2) shows no MDX
		// comment either.
		{"g.md", "# SDK\n\nOur SDK retries a payout fore{/* */}ver.\n", RuleContradicts},
		{"h.md", "# Pay\n\nWe guarantee e{/* note */}xactly-once payouts.\n", RuleExactlyOnce},
	} {
		fs := LintSource(c, tc.name, []byte(tc.text))
		if len(fs) != 1 || fs[0].Rule != tc.rule || fs[0].Line != 3-btoi(strings.HasSuffix(tc.name, ".html")) {
			t.Errorf("%s: want one %s finding on the claim's line, got %v", tc.name, tc.rule, fs)
		}
	}
	if fs := LintSource(c, "i.md", []byte("We deliver {/* exactly */} once a day, and keep a {/* note */} log.\n")); len(fs) != 0 {
		t.Errorf("an MDX comment between words of a Markdown file: got %v, want nothing", fs)
	}
}
