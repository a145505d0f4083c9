package copylint

import "testing"

// readingCase is one sentence and the finding it must (or, with rule "",
// must not) produce with the payouts contract.
type readingCase struct {
	text, rule string
	path       string // the finding's contract path, when it has one
}

// checkReadings lints each case as a one-line Markdown page.
func checkReadings(t *testing.T, cases []readingCase) {
	t.Helper()
	payouts := prefilterContract(t)
	for _, tc := range cases {
		fs := LintSource(payouts, "page.md", []byte(tc.text+"\n"))
		found := false
		for _, f := range fs {
			found = found || f.Rule == tc.rule && (tc.path == "" || f.Path == tc.path)
		}
		switch {
		case tc.rule == "" && len(fs) > 0:
			t.Errorf("%q: want no finding, got %v", tc.text, fs)
		case tc.rule != "" && !found:
			t.Errorf("%q: want a %s finding %s, got %v", tc.text, tc.rule, tc.path, fs)
		}
	}
}

// TestStructuredCopyReadings: a table row, a key-value line or a CLI
// flag's help is read as its attribute and value and judged as the
// sentence would be (records.go). Each positive has a clean negative: the
// contract's own figure, a bounded value, a read, a row of something else.
// None of these rows is in a labelled set.
func TestStructuredCopyReadings(t *testing.T) {
	checkReadings(t, []readingCase{
		// retry counts and unbounded loops
		{"| Setting | Value | | Max attempts | infinite |", RuleContradicts, "retry.max_attempts"},
		{"| Setting | Value | | Max attempts | 3 |", "", ""},
		{"Retry count: 7", RuleContradicts, "retry.max_attempts"},
		{"Retry count: 2", "", ""},
		{"`--retries N`  how many times a failed call is retried (default: twelve).", RuleContradicts, "retry.max_attempts"},
		{"`--retries N`  how many times a failed call is retried (default: 2).", "", ""},
		{"`retryLimit` defaults to unlimited.", RuleContradicts, "retry.max_attempts"},
		{"`retryDelay` defaults to 500 ms.", "", ""},
		// the statuses retried
		{"`--retry-statuses`  which responses are retried (default: any 4xx or 5xx).", RuleRetryAnyError, "retry.statuses"},
		{"`--retry-statuses`  which responses are retried (default: 429 and 503).", "", ""},
		// retry safety over every endpoint, or a named one
		{"| Operation | Retry-safe | | all endpoints | ✔ |", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"| Operation | Retry-safe | | GET /v1/transfers/{id} | ✔ |", "", ""},
		// idempotency of the whole API, of a method, of an endpoint
		{"| Surface | Idempotent | | every route | yes |", RuleContradicts, ""},
		{"| Surface | Idempotent | | reads | yes |", "", ""},
		{"| Method | Idempotent | | POST | yes |", RuleMethodIdempotency, ""},
		{"| Method | Idempotent | | PUT | yes |", "", ""},
		// the key said not required
		{"| Parameter | Mandatory | | idempotency key | false |", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"| Parameter | Mandatory | | idempotency key | yes |", "", ""},
		// duplicates said absent, without the key's bound
		{"| Guarantee | Value | | Double charges | zero, guaranteed |", RuleAbsoluteGuarantee, ""},
		{"| Guarantee | Value | | Double charges | zero per key |", "", ""},
		// key retention against the window
		{"| Limit | Value | | Idempotency key TTL | 14 days |", RuleContradicts, "idempotency.replay_window"},
		{"| Limit | Value | | Idempotency key TTL | 24 hours |", "", ""},
		{"Replay window: one week", RuleContradicts, "idempotency.replay_window"},
		// config lines: JSON, YAML, an environment variable; a count with
		// its bound or unit; a flag with its short alias or in code
		{`{"retryLimit": "infinite", "timeoutMs": 5000}`, RuleContradicts, "retry.max_attempts"},
		{`{"retryLimit": 2, "timeoutMs": 5000}`, "", ""},
		{"retry_statuses: [any]", RuleRetryAnyError, "retry.statuses"},
		{"retry_statuses: [429, 503]", "", ""},
		{"LUMAPAY_MAX_ATTEMPTS=40", RuleContradicts, "retry.max_attempts"},
		{"LUMAPAY_MAX_ATTEMPTS=3", "", ""},
		{"Retries: at most 9", RuleContradicts, "retry.max_attempts"},
		{"Retries: at most 3 attempts", "", ""},
		{"`-n, --retries <count>`  resend a failed call count times (default: 15)", RuleContradicts, "retry.max_attempts"},
		{"`-n, --retries <count>`  resend a failed call count times (default: 2)", "", ""},
		// quoted wording and questions are no promise
		{"Never write \"| Max attempts | infinite |\" in a pricing table.", "", ""},
		{"Max attempts: unlimited?", "", ""},
	})
}

// TestSpelledCounts: a count is read in any spelling, compounds included,
// by the attempts check and by the records (contradicts.go,
// spelledNumber). None of these sentences is in a labelled set.
func TestSpelledCounts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{"one hundred and eighty-five", 185}, {"a dozen", 12}, {"twenty-five", 25}, {"two thousand", 2000},
		{"a hundred", 100}, {"thirteen", 13}, {"ninety nine", 99}, {"one thousand, two hundred", 1200},
	} {
		if got, ok := proseNumber(tc.in); !ok || got != tc.want {
			t.Errorf("proseNumber(%q) = %v, %v; want %v", tc.in, got, ok, tc.want)
		}
	}
	for _, bad := range []string{"and", "hundreds", "many"} {
		if v, ok := spelledNumber(bad); ok {
			t.Errorf("spelledNumber(%q) = %v, want no number", bad, v)
		}
	}
	checkReadings(t, []readingCase{
		{"The worker keeps resending a failed payout one hundred and twelve times.", RuleContradicts, "retry.max_attempts"},
		{"A hundred instances each retrying three times send three hundred calls.", "", ""},
		{"The worker keeps resending a failed payout two times.", "", ""},
		{"Our client makes twenty-seven attempts before it reports the error.", RuleContradicts, "retry.max_attempts"},
		{"Our client makes three attempts before it reports the error.", "", ""},
		{"Max retries: thirty-one", RuleContradicts, "retry.max_attempts"},
		{"Max retries: two", "", ""},
	})
}

// TestSemicolonJoinedClaims: a keyless retry whose retry and missing key
// sit on both sides of a semicolon is one promise (phraseRule.Semicolon);
// the clause across must send again, not report a harm. None of these
// sentences is in a labelled set.
func TestSemicolonJoinedClaims(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Resend the payout exactly as before; an idempotency header is not needed.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Keys are optional; a resend is fine.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Resend the payout exactly as before; an idempotency header is required.", "", ""},
		{"Keys are optional on reads; a resend of a GET is fine.", "", ""},
		{"No keyed payout ran twice; two keyless calls did, and we refunded them.", "", ""},
		{"Calls without a key are refused; resends without a key repeat the payout.", "", ""},
	})
}

// TestConceptLexicons: the concept classes of the families read new
// idioms (an unbounded loop "without pause" or "nonstop", a retry as "a
// fresh attempt", indifference to the key, the key "left off", "doubled"
// effects, "100 per cent", "the whole backend", any tense of "is
// idempotent", replays "served"), each beside a clean sentence that says
// the honest thing. None of these sentences is in a labelled set.
func TestConceptLexicons(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Our worker re-sends a failed payout nonstop, so it lands in the end.", RuleContradicts, "retry.max_attempts"},
		{"Our worker re-sends a failed payout incessantly until the bank answers.", RuleContradicts, "retry.max_attempts"},
		{"Our worker does not re-send a failed payout nonstop.", "", ""},
		{"On every failure, whatever the status, the gem gives the call a fresh attempt.", RuleRetryAnyError, "retry.statuses"},
		{"On every failure the gem logs the status and gives up.", "", ""},
		{"Fire the payout again with or without a header, it is applied once.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Resend a payout regardless of the idempotency key.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Resend a payout with or without a key and you risk a second payout.", "", ""},
		{"When you resend the payout, leave off the idempotency header.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"When you resend a lookup, the header you can drop.", "", ""},
		{"A crash leaves the key behind, and the resend carries the same one.", "", ""},
		{"Doubled refunds will never happen on our rails.", RuleAbsoluteGuarantee, ""},
		{"Doubled refunds can happen when a client resends without a key.", "", ""},
		{"Our payouts API is one hundred per cent idempotent.", RuleContradicts, ""},
		{"Our read API is one hundred per cent idempotent when you send a key.", "", ""},
		{"Heads-up: the whole backend is idempotent as of today.", RuleContradicts, ""},
		{"Making the whole backend idempotent is our goal for next year.", "", ""},
		{"Each of our routes has always been idempotent.", RuleContradicts, ""},
		{"Each of our read routes has always been idempotent.", "", ""},
		{"Stored replays are served for 45 days.", RuleContradicts, "idempotency.replay_window"},
		{"Stored replays are served for 24 hours.", "", ""},
	})
}

// TestClaimReadings: an endpoint named (in a code span too) with a bare
// predicate of retry safety; the universal said by denying its opposite;
// POST said to behave as an idempotent method, or given as the reason a
// repeat has no effect; the spec's "safe methods" as a class, not a
// safety word; a loop the reader configures; the effect in the active
// voice "strictly once"; one effect whatever the repeats; "means you"
// as a promise, not a definition; a question under any rule. Each beside
// a clean sentence. None of these sentences is in a labelled set.
func TestClaimReadings(t *testing.T) {
	checkReadings(t, []readingCase{
		{"`POST /v1/transfers` is retry-safe.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"The archive call is safe to resend.", RuleContradicts, "endpoints[2].effect (POST /v1/reports/{id}/archive)"},
		{"`GET /v1/transfers/{id}` is safe to retry.", "", ""},
		{"The archive call is safe to resend with the same key.", "", ""},
		{"With Lumapay, no resend is ever risky.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"With the same key, no resend is ever risky.", "", ""},
		{"Our POST calls act just like PUT.", RuleMethodIdempotency, ""},
		{"Our POST calls do not act like PUT.", "", ""},
		{"Since the refund is a POST, sending it twice makes no difference.", RuleMethodIdempotency, ""},
		{"Since the refund is a POST, sending it twice makes two refunds.", "", ""},
		{"RFC 9110 names GET, PUT, DELETE and the safe methods as idempotent.", "", ""},
		{"Jobs in your queue retry forever if you configure them that way.", "", ""},
		{"Jobs in our SDK retry forever if the bank is down.", RuleContradicts, "retry.max_attempts"},
		{"Lumapay settles each payout strictly once, however often it is sent.", RuleExactlyOnce, ""},
		{"Lumapay settles each payout at most once per key.", "", ""},
		{"Send it a thousand times: the funds go out only once, no matter what.", RuleAbsoluteGuarantee, ""},
		{"Send it a thousand times with the same key: the funds go out only once.", "", ""},
		{"Our exactly-once delivery means your team never sees a duplicate.", RuleExactlyOnce, ""},
		{"Exactly-once delivery means that each message has one effect, which no network allows.", "", ""},
		{"Is retrying on any error a good idea?", "", ""},
		{"Each of our routes can be called again with no side effects.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Each of our read routes can be called again with no side effects.", "", ""},
		{"There is no call you should not resend.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"There is no call you should not resend with its key.", "", ""},
		{"Feel free: you can resubmit all requests at will.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"The worker re-posts the payout again and again till it gets an OK.", RuleContradicts, "retry.max_attempts"},
		{"The worker re-posts the payout again, up to 3 attempts, till it gets an OK.", "", ""},
		{"Idempotency keys are a ratified IETF standard.", RuleStandardClaim, ""},
		{"Idempotency keys are not a ratified IETF standard.", "", ""},
	})
}

// TestLearnerEnglish: non-native word order and idiom read by the same
// concepts ("without to stop", "gives never up", "endless" as an adverb,
// "re-tries" as retries, "without danger", a fragment question answered
// "not needed", a keeping verb without its preposition, a method verb in
// the singular, an endpoint called "as much you want"), each beside a
// clean sentence. None of these sentences is in a labelled set.
func TestLearnerEnglish(t *testing.T) {
	checkReadings(t, []readingCase{
		{"The worker is resending the payout without to stop.", RuleContradicts, "retry.max_attempts"},
		{"The worker is not resending the payout without to stop.", "", ""},
		{"Our gem gives never up on a transfer.", RuleContradicts, "retry.max_attempts"},
		{"Our gem gives up after three attempts on a transfer.", "", ""},
		{"The worker re-tries the payout endless.", RuleContradicts, "retry.max_attempts"},
		{"The worker re-tries the payout 2 times.", "", ""},
		{"You can resend all the calls, always without danger.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"You can resend all the GET calls, always without danger.", "", ""},
		{"Idempotency key? Not needed when you resend.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Idempotency key? Needed on every resend.", "", ""},
		{"We keep the idempotency keys 2 weeks.", RuleContradicts, "idempotency.replay_window"},
		{"We keep the idempotency keys 24 hours.", "", ""},
		{"Any HTTP verb is idempotent at Lumapay, also POST.", RuleMethodIdempotency, ""},
		{"Not every HTTP verb is idempotent at Lumapay.", "", ""},
		{"The archive endpoint you may hit as often as you like.", RuleContradicts, "endpoints[2].effect (POST /v1/reports/{id}/archive)"},
		{"The archive endpoint you may hit as often as you like with its key.", "", ""},
	})
}

// TestTableRows: a real table's rows, in Markdown and in HTML, are read
// under their header as the same table flattened onto one line is
// (rowHits); each table holds a clean row beside the claim, which must
// pass. The findings point at the claim's row.
func TestTableRows(t *testing.T) {
	payouts := prefilterContract(t)
	for _, tc := range []struct {
		name, text string
		line       int // the claim's row
		path       string
	}{
		{"safe.md", "| Endpoint | Retry-safe |\n|---|---|\n| GET /v1/transfers/{id} | yes |\n| every route | yes |\n", 4, "endpoints[0].key (POST /v1/transfers)"},
		{"count.md", "| Setting | Value |\n|---|---|\n| Max attempts | 3 |\n| Max retries | endless |\n", 4, "retry.max_attempts"},
		{"ttl.html", "<table>\n<tr><th>Limit</th><th>Value</th></tr>\n<tr><td>Idempotency key TTL</td><td>24 hours</td></tr>\n<tr><td>Idempotency key TTL</td><td>60 days</td></tr>\n</table>\n", 4, "idempotency.replay_window"},
		{"key.md", "Limits:\n\n<table><tr><th>Parameter</th><th>Mandatory</th></tr>\n<tr><td>Amount</td><td>no</td></tr>\n<tr><td>Idempotency key</td><td>no</td></tr></table>\n", 5, "endpoints[0].key (POST /v1/transfers)"},
	} {
		fs := LintSource(payouts, tc.name, []byte(tc.text))
		if len(fs) != 1 || fs[0].Line != tc.line || fs[0].Path != tc.path {
			t.Errorf("%s: want one finding at line %d (%s), got %v", tc.name, tc.line, tc.path, fs)
		}
	}
}

// TestRecordNotClaims: records whose attribute names a retry or
// idempotency only in passing are no claim: a parenthetical condition, a
// value that merely mentions a universal. None of these rows is in a
// labelled set.
func TestRecordNotClaims(t *testing.T) {
	checkReadings(t, []readingCase{
		{"| Mode | Cost | | Locking (with retries) | 0 |", "", ""},
		{"Idempotency scope: the path every write is posted to", "", ""},
		{"Idempotent: every write", RuleContradicts, ""},
	})
}

// TestRecordSynonyms: a record's attribute in other words (a header
// named "idempotency header", safety as "repeat-safe") and the key's
// bound after a denied unsafety. None of these is in a labelled set.
func TestRecordSynonyms(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Idempotency header: optional", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"Idempotency header: required", "", ""},
		{"| Route | Resend-safe | | every route | always |", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"| Route | Resend-safe | | GET /v1/transfers/{id} | always |", "", ""},
		{"No call is risky to resend at Lumapay.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"No call is risky to resend when you reuse the key.", "", ""},
	})
}

// TestMoreLexicons: one effect said as "one single time" or "no more
// and no less than once"; a retry as a noun a failure causes ("causes
// another retry", "leads to a re-try"; "a retry" alone stays a noun); a
// duplicate "not possible" (the key's bound keeps it honest); keys "not
// mandatory" for retries without a determiner; idempotent "by nature";
// and three honest sentences the lint used to flag. Each beside a clean
// sentence. None of these sentences is in a labelled set.
func TestMoreLexicons(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Every payout is sent one single time, guaranteed.", RuleExactlyOnce, ""},
		{"Every payout is sent at least once; deduplicate by its ID.", "", ""},
		{"We process each refund no more and no less than once.", RuleExactlyOnce, ""},
		{"Every failed call causes an automatic re-try in the gem.", RuleRetryAnyError, "retry.statuses"},
		{"Every failed call is logged with a retry code in the gem.", "", ""},
		{"Paying a supplier twice is simply not possible on Lumapay.", RuleAbsoluteGuarantee, ""},
		{"Paying a supplier twice is possible when you resend without a key.", "", ""},
		{"Headers are not compulsory when you retry a transfer.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"API keys are not required when you retry a sandbox call.", "", ""},
		{"Each payouts operation is idempotent by nature.", RuleContradicts, ""},
		{"Each read operation is idempotent by nature.", "", ""},
		{"A double payout is not possible within 24 hours when you reuse the key.", "", ""},
		{"Keys are not optional: resends without one are new requests.", "", ""},
		{"There is no endpoint you can resend without a key.", "", ""},
		{"The whole API is idempotent when every write carries a key.", "", ""},
	})
}

// TestHeadlinesAndAnswers: a question answered "as often as it takes"; a
// headline without its verb ("every route idempotent"); charged
// "double"; requests said deduplicated for a time; a request "replayed
// without risk"; a record after a dash ("Key TTL - 1 year"). Each beside
// a clean sentence. None of these sentences is in a labelled set.
func TestHeadlinesAndAnswers(t *testing.T) {
	checkReadings(t, []readingCase{
		{"How long does the gem keep retrying? As long as it takes.", RuleContradicts, "retry.max_attempts"},
		{"How long does the gem keep retrying? Up to 60 seconds.", "", ""},
		{"Changelog: every route idempotent, no exceptions.", RuleContradicts, ""},
		{"Changelog: every read route idempotent, no exceptions.", "", ""},
		{"Customers are never billed double with Lumapay.", RuleAbsoluteGuarantee, ""},
		{"Customers are never billed double when a retry carries the same key.", "", ""},
		{"Repeated requests are deduplicated for 30 days.", RuleContradicts, "idempotency.replay_window"},
		{"Repeated requests with the same key are deduplicated for 24 hours.", "", ""},
		{"Every request may be reissued without risk.", RuleContradicts, "endpoints[0].key (POST /v1/transfers)"},
		{"With the same key, every request may be reissued without risk.", "", ""},
		{"Idempotency key TTL - 1 year", RuleContradicts, "idempotency.replay_window"},
		{"Idempotency key TTL - 24 hours", "", ""},
	})
}
