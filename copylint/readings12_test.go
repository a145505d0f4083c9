package copylint

import "testing"

// The readings of the heldout11 round (precision). Each table holds
// invented sentences, none from a labelled set: a clean one the reading
// keeps clean, beside a claim of the same shape that is still reported.

// TestDisownedByContrast: a claim followed, across a semicolon, by a
// clause that disowns it (its figure not to be carried over, or the
// page's own side set against it with a bound of its own) is another
// system's, stated as the contrast. The page's side agreeing, or no
// contrast, keeps the claim.
func TestDisownedByContrast(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Sidekiq jobs retry forever by default; our own client stops after three attempts.", "", ""},
		{"Square remembers keys for 10 days; do not assume the same window here.", "", ""},
		{"Square remembers idempotency keys for 10 days; that figure doesn't apply to Lumapay.", "", ""},
		{"Our client retries forever by default; the dashboard shows each attempt.", RuleContradicts, "retry.max_attempts"},
		{"Lumapay remembers idempotency keys for 10 days; the dashboard lists them.", RuleContradicts, "idempotency.replay_window"},
	})
}

// TestOwnScopeByPronoun: a named system's guarantee bounded by "its own"
// scope is that system's fact, as when the bound names it again; the
// page's own bounded claim keeps its warning.
func TestOwnScopeByPronoun(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Pulsar provides exactly-once semantics within its own transactions.", "", ""},
		{"We provide exactly-once semantics within our own transactions.", RuleExactlyOnceBounded, ""},
	})
}

// TestLabelledWording: a label before a colon that names the quote after
// it as wording withdrawn or forbidden ("Retired tagline: ...") quotes
// the claim; a label that does not keeps the quote a claim.
func TestLabelledWording(t *testing.T) {
	checkReadings(t, []readingCase{
		{`Retired tagline on the pricing page: "zero duplicate payouts, ever".`, "", ""},
		{`Words to avoid in support replies: "exactly-once processing".`, "", ""},
		{`Tagline on the pricing page: "zero duplicate payouts, ever".`, RuleAbsoluteGuarantee, ""},
		{`Our promise in support replies: "exactly-once processing".`, RuleExactlyOnce, ""},
	})
}

// TestStoppedSaying: a verb of stopping or avoiding in the past tense
// before a verb of saying names the claim as wording; stopping something
// else does not.
func TestStoppedSaying(t *testing.T) {
	checkReadings(t, []readingCase{
		{"How the team stopped promising exactly-once delivery to merchants.", "", ""},
		{"Our docs avoided calling it exactly-once delivery.", "", ""},
		{"We stopped worrying because delivery is exactly-once.", RuleExactlyOnce, ""},
	})
}

// TestStruckText: struck text (GFM ~~...~~, HTML <del> and <s>) is
// withdrawn, not asserted; the same words unstruck are a claim.
func TestStruckText(t *testing.T) {
	checkReadings(t, []readingCase{
		{"~~Every endpoint is safe to retry.~~ Retry with the same key.", "", ""},
		{"- ~~exactly-once delivery~~ at most one payout per key", "", ""},
		{"Every endpoint is safe to retry. ~~Retry with the same key.~~", RuleContradicts, ""},
		{"- _exactly-once delivery_ for every payout", RuleExactlyOnce, ""},
	})
	cases := []struct {
		name, text string
		want       bool
	}{
		{"page.html", "<p><del>exactly-once delivery</del> at most one payout per key</p>", false},
		{"page.html", "<p><s>Exactly-once delivery for every payout.</s> Effectively once per key.</p>", false},
		{"page.html", "<p><em>exactly-once delivery</em> for every payout</p>", true},
		{"page.md", "Before: <del>exactly-once delivery</del>, now at most one payout per key.", false},
	}
	for _, tc := range cases {
		fs := LintSource(prefilterContract(t), tc.name, []byte(tc.text+"\n"))
		if got := len(fs) > 0; got != tc.want {
			t.Errorf("%s %q: want a finding %v, got %v", tc.name, tc.text, tc.want, fs)
		}
	}
}

// TestMethodGlossary: a glossary entry defining an idempotent method by
// the spec's class states the definition; the same list given as the
// reason to retry freely is the claim.
func TestMethodGlossary(t *testing.T) {
	checkReadings(t, []readingCase{
		{"**Idempotent request**: under RFC 9110, a request whose intended effect on the server is the same for one or many identical requests: PUT, DELETE and the safe methods.", "", ""},
		{"Idempotent verb - a verb for which repeating the request has the same effect per the HTTP spec, like PUT or DELETE.", "", ""},
		{"Idempotent methods: PUT and DELETE, so retry them freely per RFC 9110.", RuleMethodIdempotency, ""},
	})
}

// The readings of the heldout11 round (recall), on invented sentences:
// each claim beside a clean sentence of the same shape.

// TestKeylessIdioms: the obligation lifted with an intensifier ("don't
// really need a key"), the key field left empty on a resend (across a
// semicolon too), and the key's absence stated bare before a resend
// called safe are keyless retries; a read, or a field that may not stay
// empty, is not.
func TestKeylessIdioms(t *testing.T) {
	const path = "endpoints[0].key (POST /v1/transfers)"
	checkReadings(t, []readingCase{
		{"Merchants don't really need an idempotency key to resend a transfer.", RuleContradicts, path},
		{"Merchants don't really need an idempotency key to read a transfer again.", "", ""},
		{"Resend the payout from the dashboard; the idempotency key field may stay empty.", RuleContradicts, path},
		{"Replay the payout from the dashboard; the key can be left blank.", RuleContradicts, path},
		{"Resend the payout from the dashboard; the key field may not stay empty.", "", ""},
		{"No idempotency key here: fine to resend the transfer.", RuleContradicts, path},
		{"No key needed: it's safe to retry the balance lookup.", "", ""},
	})
}

// TestNoDuplicateIdioms: an absolute answer with an intensifier, a
// reassurance before the absolute ("don't worry, ..."), and a doubled
// effect denied as a possibility ("can't be double-billed") are the
// promise; the key's bound keeps each honest.
func TestNoDuplicateIdioms(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Duplicate refunds? Simply impossible here.", RuleAbsoluteGuarantee, ""},
		{"Don't worry, no refund is ever sent twice.", RuleAbsoluteGuarantee, ""},
		{"Don't worry, it's impossible to send the same refund twice with the same idempotency key.", "", ""},
		{"Customers can't be double-billed by our API, under any circumstances.", RuleAbsoluteGuarantee, ""},
		{"Customers can't be double-billed when they reuse the same key.", "", ""},
	})
}

// TestRetentionIdioms: idempotency records kept without end (for an
// audit too), and a time to repeat with the same key and get the first
// answer back, are the replay window; the contract's own figure and
// audit logs are not.
func TestRetentionIdioms(t *testing.T) {
	const path = "idempotency.replay_window"
	checkReadings(t, []readingCase{
		{"Idempotency entries are stored permanently for audit purposes.", RuleContradicts, path},
		{"Audit logs are stored permanently.", "", ""},
		{"You get a whole fortnight to resend with the original key and receive the cached response.", RuleContradicts, path},
		{"You get 24 hours to resend with the original key and receive the cached response.", "", ""},
		{"Clients may retry with the same key up to 5 days later and see the cached result.", RuleContradicts, path},
		{"Clients may retry with the same key up to 24 hours later and see the cached result.", "", ""},
	})
}

// TestStatusRetryIdioms: a status our client retries with an article
// ("will retry a 422"), and the count after the status's noun ("retries
// HTTP 500 responses up to three times"), judged against the contract's
// statuses and its cautious ones; the contract's own policy passes.
func TestStatusRetryIdioms(t *testing.T) {
	checkReadings(t, []readingCase{
		{"The client will retry a 409 conflict before it gives up.", RuleRetryAnyError, "retry.statuses"},
		{"The client will retry a 503 before it gives up.", "", ""},
		{"Our SDK retries HTTP 500 errors up to four times each.", RuleRetryAnyError, "retry.statuses"},
		{"Our SDK retries HTTP 500 errors once.", "", ""},
	})
}

// TestInclusiveParenthetical: a parenthetical of inclusion between a
// universal subject and "idempotent" ("all endpoints, including
// exports, are idempotent") keeps the universal; an exception does not.
func TestInclusiveParenthetical(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Every operation, including bulk exports, is now idempotent.", RuleContradicts, ""},
		{"Every operation, except bulk exports, is now idempotent.", "", ""},
	})
}

// TestNamedWholeAPI: "the whole <name> API" is the whole API, in a
// customer's quote too; a named endpoint is not.
func TestNamedWholeAPI(t *testing.T) {
	checkReadings(t, []readingCase{
		{`"What won us over is that the entire Acme API is idempotent."`, RuleContradicts, ""},
		{"The entire transfers endpoint is idempotent with a key.", "", ""},
	})
}

// TestStandardIdioms: conformance by any verb of respecting, to a
// "norm", and the idempotency itself said to be the standard; a draft
// keeps it honest.
func TestStandardIdioms(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Our service obeys the IETF norm for the idempotency key header.", RuleStandardClaim, ""},
		{"Our service obeys the IETF draft for the idempotency key header.", "", ""},
		{"Acme's idempotency handling is simply the official HTTP standard.", RuleStandardClaim, ""},
		{"Acme's idempotency handling is not the official HTTP standard.", "", ""},
	})
}

// TestSafetyInOtherWords: a repeat said done "in security" or
// "securely" over a universal is retry safety; over a read it is not.
func TestSafetyInOtherWords(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Every request of the platform can be resent in all security.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Retry any call securely, whenever you need.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Every balance read can be resent in all security.", "", ""},
	})
}

// TestDocstringIsNoQuote: a docstring's delimiter (three quote marks) opens a
// comment, not a quotation, so the comment's claim is read; a real
// quotation of the wording after a verb of saying stays clean.
func TestDocstringIsNoQuote(t *testing.T) {
	checkReadings(t, []readingCase{
		{`"""refund() uses POST, which our API treats as idempotent; call it again freely."""`, RuleMethodIdempotency, ""},
		{`'''Every endpoint is safe to retry.'''`, RuleContradicts, ""},
		{`We never say "every endpoint is safe to retry".`, "", ""},
	})
}

// TestThousandsSeparators: a figure that groups its thousands with commas
// is read whole. "1,440 minutes" is the contract's 24-hour window, not
// 440 minutes; "10,080 minutes" is a week.
func TestThousandsSeparators(t *testing.T) {
	checkReadings(t, []readingCase{
		{"The replay window is 1,440 minutes: reuse a key inside it to get the stored response.", "", ""},
		{"Keys are replayed for 10,080 minutes.", RuleContradicts, "idempotency.replay_window"},
		{"Keys are replayed for 1,440 minutes, then a reused key starts a new request.", "", ""},
	})
	for s, want := range map[string]float64{"1,440": 1440, "10,080": 10080, "2,000.5": 2000.5, "440": 440} {
		if got, ok := proseNumber(s); !ok || got != want {
			t.Errorf("proseNumber(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
}
