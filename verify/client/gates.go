package client

import (
	"slices"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/suite"
)

// Scope is the explain scope of the client gates: they judge a client
// program, checked by `retryspec verify client`.
const Scope rules.Scope = "client"

// Gate is one row of the client gate table.
type Gate struct {
	// Doc is the gate's explain text; Doc.ID is the gate ID.
	Doc rules.Rule
	// Path is the contract value the gate checks: its findings point there.
	Path string
	// Kinds are the scenarios whose runs the gate judges; nil means every
	// scenario.
	Kinds []suite.Kind
	// Needs says why the gate is skipped when the contract yields none of
	// its scenarios.
	Needs string
	// DryRun says what the gate expects of the runs, for --dry-run.
	DryRun string
	judge  func(judge) verdict
	// pathFor, when set, is Path for the contract at hand: the key's gate
	// points at key_field when the key travels in the body.
	pathFor func(contract.Idempotency) string
	// applies, when set, says whether the contract asks what the gate
	// judges at all; when it does not, the gate is skipped with Needs.
	applies func(snippets.Policy) bool
}

// ID is the gate's rule ID.
func (g Gate) ID() string { return g.Doc.ID }

var (
	srcBrooker = findings.Source{Title: "Marc Brooker, Exponential Backoff and Jitter (AWS Architecture Blog)", URL: "https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/"}
	srcStripe  = findings.Source{Title: "Stripe API reference, Idempotent requests", URL: "https://docs.stripe.com/api/idempotent_requests"}
	srcTimeout = findings.Source{Title: "Marc Brooker, Timeouts, retries and backoff with jitter (AWS Builders' Library)", URL: "https://aws.amazon.com/builders-library/timeouts-retries-and-backoff-with-jitter/"}
	srcRFC9110 = findings.Source{Title: "RFC 9110, HTTP Semantics, section 10.2.3 Retry-After", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3"}
	srcOASIS   = findings.Source{Title: "OASIS Repeatable Requests Version 1.0", URL: "https://docs.oasis-open.org/odata/repeatable-requests/v1.0/repeatable-requests-v1.0.html"}
	srcAzure   = findings.Source{Title: "Azure Communication Services REST API, Repeatable requests", URL: "https://learn.microsoft.com/en-us/rest/api/communication/repeatable-requests"}
)

func doc(id, summary, rationale, fix, bad, good string, sources ...findings.Source) rules.Rule {
	return rules.Rule{ID: id, Severity: findings.Error, Scope: Scope, Summary: summary, Rationale: rationale, Fix: fix, Bad: bad, Good: good, Sources: sources}
}

// Gates is the table of client gates, in report order.
var Gates = []Gate{
	{
		Doc: doc("client/same-key",
			"a retry carries another idempotency key than its first attempt, or two calls share one key",
			"Proves the client half of idempotency: every attempt of one logical call sends the same key (and the same body), "+
				"so the server can tell a retry from a new request, and every new call mints a fresh key. A key minted per attempt "+
				"turns each retry into a new payment; a key reused across calls makes the second call get the first call's stored "+
				"answer. Usual cause in code: the key is generated inside the retried function, or a constant key is configured once "+
				"per client. Stripe's SDKs mint the key once per call and reuse it on every retry.",
			"mint the key once per logical call, outside the retry loop, and send it where the contract says (its header, or the key_field member of the JSON body) with the same body on every attempt",
			"attempt 1  Idempotency-Key: 6f1c…  -> 503\nattempt 2  Idempotency-Key: 0b9e…  -> 201 (a second transfer)\n",
			"attempt 1  Idempotency-Key: 6f1c…  -> 503\nattempt 2  Idempotency-Key: 6f1c…  -> 201\n",
			srcStripe),
		Path:    "idempotency.header",
		pathFor: keyPath,
		DryRun:  "every attempt of a run carries one key where the contract puts it (its header, or key_field in the JSON body) and one body; no two runs share a key",
		judge:   sameKey,
	},
	{
		Doc: doc("client/first-sent",
			"a request lacks the first-sent header or carries it in another form than an HTTP date, or a retry restamps it",
			"Proves idempotency.first_sent (OASIS Repeatable Requests, as Azure's Repeatability-First-Sent): the client stamps "+
				"the time it first sent a logical call in the first-sent header, as an HTTP date (IMF-fixdate), and sends that "+
				"value unchanged on every retry with the key. The server measures its window from that time: it refuses a request "+
				"first sent too long ago, because it no longer remembers the key and would run it again. A retry restamped with "+
				"the current time looks new, so once the window has passed the server runs it a second time; a missing or "+
				"malformed header gets the invalid-key answer, so every call fails. Usual cause in code: the header is computed "+
				"inside the retried function, next to the other per-attempt headers.",
			"stamp the first-sent header once per logical call, before the first attempt, as an IMF-fixdate (such as "+contract.FirstSentExample+"), and send that value unchanged with the key on every retry",
			"attempt 1  Repeatability-First-Sent: Tue, 26 Mar 2019 16:06:51 GMT  -> 503\nattempt 2  Repeatability-First-Sent: Tue, 26 Mar 2019 16:06:53 GMT  -> 202\n",
			"attempt 1  Repeatability-First-Sent: Tue, 26 Mar 2019 16:06:51 GMT  -> 503\nattempt 2  Repeatability-First-Sent: Tue, 26 Mar 2019 16:06:51 GMT  -> 202\n",
			srcOASIS, srcAzure),
		Path:    "idempotency.first_sent.header",
		Needs:   "the contract measures no window from a client time (no idempotency.first_sent with a header)",
		DryRun:  "every attempt carries the first-sent header as an IMF-fixdate stamped at the call's first attempt, the same value on every retry of its key",
		applies: func(p snippets.Policy) bool { return p.FirstSentHeader != "" },
		judge:   firstSent,
	},
	{
		Doc: doc("client/retries-transient",
			"the client gives up on a status the contract lists as retried, or reports failure after a final success",
			"Proves the client retries what the contract says is transient (retry.statuses) and reports the outcome: after two "+
				"failed attempts the third succeeds, and the program must exit 0. Failing means callers see errors the API expected "+
				"clients to absorb, or a success reported as a failure (and retried again by the caller, under a new key).",
			"retry every status in retry.statuses with the same key, and report the final answer of the loop, not the first",
			"503 -> give up (exit 1)\n", "503, 503 (Retry-After: 1), 201 -> exit 0\n", srcTimeout),
		Path:   "retry.statuses",
		Kinds:  []suite.Kind{suite.KindRecover},
		Needs:  "no retried status in retry.statuses",
		DryRun: "the client retries the transient status and exits 0 after the success",
		judge:  outcomes("recovered after the transient failures", 0),
	},
	{
		Doc: doc("client/backoff",
			"a retry comes sooner than the contract's backoff allows, far later than its cap, or without any wait",
			"Proves the waits follow retry.backoff: each wait the client chooses lies in the envelope of the contract's jitter "+
				"formula (base, multiplier, cap), as the fault server measures it from the moment its answer went out to the next "+
				"attempt's arrival. Too soon means a client that hammers a struggling API; far past the cap usually means a unit "+
				"mistake (seconds for milliseconds). The server never sees a wait shorter than the client's, so the lower bound is "+
				"exact; the upper bound allows a few seconds of scheduling.",
			"compute each wait as the contract's jitter formula: min(cap, base * multiplier^(attempt-1)), randomized as retry.backoff.jitter says",
			"503 -> retry after 0 ms, 0 ms, 0 ms\n", "503 -> retry after 31 ms, 84 ms, 150 ms (full jitter, base 50ms)\n", srcBrooker),
		Path:   "retry.backoff",
		DryRun: "each wait after an answer without Retry-After lies in the jitter envelope",
		judge:  backoffSchedule,
	},
	{
		Doc: doc("client/jitter",
			"every backoff wait is the envelope's top: the client waits a fixed schedule instead of a random one",
			"Proves the waits are random, as retry.backoff.jitter promises: clients that failed together (one outage) must not "+
				"retry together, or each retry wave is a new outage. With full or equal jitter a wait without jitter is the top of "+
				"its envelope, and the server never sees a wait shorter than the client's, so a single wait clearly under the top "+
				"proves the jitter; with decorrelated jitter the first waits of the runs must differ. --runs repeats the backoff "+
				"scenario to gather waits.",
			"randomize each wait as retry.backoff.jitter says (full: random(0, envelope)) instead of sleeping the envelope itself",
			"waits 50 ms, 100 ms, 200 ms in every run\n", "waits 12 ms, 71 ms, 160 ms; then 44 ms, 9 ms, 187 ms\n", srcBrooker),
		Path:   "retry.backoff.jitter",
		DryRun: "at least one backoff wait is clearly under its envelope's top (decorrelated: the runs' first waits differ)",
		judge:  jitterSpread,
	},
	{
		Doc: doc("client/retry-after",
			"a retry comes before the Retry-After the answer asked for, or the client gives up on a 429 it should wait out",
			"Proves honor_retry_after: when a 429 (or a retried 503) carries Retry-After, the next attempt waits that long, not the "+
				"client's own shorter backoff. A server that says when to come back is shedding load; an earlier retry is refused "+
				"again and adds to the load. Usual cause in code: the retry library's backoff ignores response headers.",
			"read Retry-After (seconds or an HTTP date) from 429 and 503 answers and wait at least that long before the next attempt",
			"429 Retry-After: 1 -> retry after 40 ms\n", "429 Retry-After: 1 -> retry after 1.01 s -> 201\n", srcRFC9110),
		Path:   "retry.honor_retry_after",
		Kinds:  []suite.Kind{suite.KindRecover, suite.KindRetryAfter, suite.KindMaxElapsed},
		Needs:  "honor_retry_after is off or 429 is not retried",
		DryRun: "every wait after a Retry-After answer lasts at least that long; the 429 is waited out and the program exits 0",
		judge:  retryAfter,
	},
	{
		Doc: doc("client/no-retry-client-error",
			"the client retries a 4xx client error (other than 429), or reports it as a success",
			"Proves the client does not retry a request the server refused as wrong (400, 401): it fails the same way every "+
				"time, so retries only add load and delay the error the caller must fix. Usual cause in code: a blanket "+
				"retry-on-any-error policy instead of the contract's allowlist.",
			"retry only the statuses in retry.statuses (never a 4xx other than 429) and surface a client error at once",
			"400 -> 400 -> 400 (three attempts)\n", "400 -> give up (exit 1)\n", srcTimeout),
		Path:   "retry.statuses",
		Kinds:  []suite.Kind{suite.KindClientError},
		DryRun: "one attempt, then a non-zero exit",
		judge:  outcomes("no client error retried", 0),
	},
	{
		Doc: doc("client/cautious-status",
			"a cautious status (often 500) is retried more than once",
			"Proves retry.cautious_statuses: a 500 may be a bug that fails the same way on every attempt, so the contract allows "+
				"one retry at most. Failing means a deterministic server error is repeated max_attempts times under load.",
			"count retries of cautious statuses separately and stop after one",
			"500 -> 500 -> 500\n", "500 -> 500 -> give up\n", srcTimeout),
		Path:   "retry.cautious_statuses",
		Kinds:  []suite.Kind{suite.KindCautious},
		Needs:  "no cautious status, or max_attempts under 3",
		DryRun: "at most two attempts, then a non-zero exit",
		// Not retrying at all is within the contract too: one attempt is enough.
		judge: outcomes("retried at most once", 1),
	},
	{
		Doc: doc("client/in-flight",
			"the client gives up on the in-flight answer, takes accepted's 202 for the result, or retries an answer that only looks like it",
			"Proves the client waits out the contract's in-flight answer (another attempt with the same key is still running) "+
				"and retries with the same key, and that it tells that answer by the status and the code at the place "+
				"api.error_body names, not by the status alone. Under in_flight.response: accepted the answer is a 202 "+
				"with the in-flight code, which is not the result: the repeat with the same key is the poll, so the client "+
				"polls on its backoff schedule until the stored result comes back, and takes a 202 without the code (the "+
				"handler's own) as the result. A client that reports the 202 as the outcome tells its caller the operation "+
				"is done while it is still running, and may yet fail.",
			"retry the in_flight answer (status and code, read where api.error_body says; under accepted, the 202 with that code) with the same key after a backoff wait",
			"409 concurrent_idempotent_requests -> give up\n202 concurrent_idempotent_requests -> exit 0 (\"still processing\" reported as the result)\n",
			"409 concurrent_idempotent_requests -> 201\n202 concurrent_idempotent_requests -> 202 concurrent_idempotent_requests -> 201\n", srcStripe),
		Path:   "idempotency.conflicts.in_flight",
		Kinds:  []suite.Kind{suite.KindInFlight, suite.KindInFlightElsewhere},
		Needs:  "no in-flight answer to wait out (in_flight.response is not conflict or accepted, or the conflict cannot be told apart), or max_attempts under 2",
		DryRun: "the in-flight answer (under accepted, the 202 with the in-flight code) is retried with the same key until the result and the program exits 0; the same status without the in-flight answer is not retried",
		judge:  outcomes("in-flight answer waited out", 0),
	},
	{
		Doc: doc("client/no-retry-mismatch",
			"the client retries the payload-mismatch conflict",
			"Proves the client stops on the payload_mismatch conflict: the key was used with another body, which no retry fixes; "+
				"repeating it only hides a bug that reuses keys across calls.",
			"never retry idempotency.conflicts.payload_mismatch; report it as a bug in how keys are minted",
			"409 invalid_idempotent_request -> 409 -> 409\n", "409 invalid_idempotent_request -> give up\n", srcStripe),
		Path:   "idempotency.conflicts.payload_mismatch",
		Kinds:  []suite.Kind{suite.KindMismatch},
		Needs:  "no payload_mismatch conflict",
		DryRun: "one attempt, then a non-zero exit",
		judge:  outcomes("mismatch not retried", 0),
	},
	{
		Doc: doc("client/connection-reset",
			"the client gives up on a reset connection the contract retries",
			"Proves retry.connection_errors' reset: a connection cut mid-request may or may not have reached the server, which "+
				"is exactly what the key is for, so the client retries it with the same key.",
			"treat a connection reset as retryable (with the same key) when retry.connection_errors lists reset",
			"connection reset -> give up\n", "connection reset -> 201 (same key)\n", srcTimeout),
		Path:   "retry.connection_errors",
		Kinds:  []suite.Kind{suite.KindReset},
		Needs:  "retry.connection_errors does not list reset, or max_attempts under 2",
		DryRun: "the reset is retried and the program exits 0",
		judge:  outcomes("reset retried", 0),
	},
	{
		Doc: doc("client/attempt-timeout",
			"the client waits on a hung attempt past attempt_timeout, or does not retry it",
			"Proves retry.attempt_timeout: an attempt that gets no answer is abandoned after the per-attempt timeout and retried "+
				"with the same key, so one stalled connection does not eat the whole deadline.",
			"bound every attempt by retry.attempt_timeout (never past the overall deadline) and retry a timed-out attempt with the same key",
			"attempt 1 hangs -> the client waits 60 s\n", "attempt 1 hangs -> hung up after 5 s -> 201\n", srcTimeout),
		Path:   "retry.attempt_timeout",
		Kinds:  []suite.Kind{suite.KindAttemptTimeout},
		Needs:  "retry.connection_errors does not list timeout, or max_attempts under 2",
		DryRun: "the client hangs up near attempt_timeout, retries and exits 0",
		judge:  attemptTimeout,
	},
	{
		Doc: doc("client/max-attempts",
			"the client makes more attempts than max_attempts, stops early, or exits 0 after giving up",
			"Proves retry.max_attempts bounds the loop (the first attempt included) and that giving up is reported with a "+
				"non-zero exit or an error. An unbounded client turns an outage into a retry storm.",
			"stop after retry.max_attempts attempts in all and raise the last error",
			"503 x 7 (max_attempts 3)\n", "503 x 3 -> give up (exit 1)\n", srcTimeout),
		Path:   "retry.max_attempts",
		Kinds:  []suite.Kind{suite.KindGiveUp},
		Needs:  "no retried status in retry.statuses",
		DryRun: "exactly max_attempts attempts (fewer only near max_elapsed), then a non-zero exit",
		judge:  maxAttempts,
	},
	{
		Doc: doc("client/max-elapsed",
			"the client starts an attempt or sleeps past max_elapsed",
			"Proves retry.max_elapsed: one overall deadline for the whole call. Two Retry-After waits that cannot both fit are "+
				"scripted; a correct client gives up before the wait that would pass the deadline, instead of sleeping through "+
				"it and failing late.",
			"keep one deadline for the whole loop and give up before a wait that would pass it",
			"429 Retry-After: 7, 429 Retry-After: 7 -> the client sleeps to 14 s (max_elapsed 12s)\n",
			"429 Retry-After: 7, 429 -> give up at 7 s (a second wait would pass 12 s)\n", srcTimeout),
		Path:   "retry.max_elapsed",
		Kinds:  []suite.Kind{suite.KindMaxElapsed},
		Needs:  "429 is not retried with Retry-After, or max_attempts under 3",
		DryRun: "no attempt after max_elapsed, the program ends by it and exits non-zero",
		judge:  maxElapsed,
	},
}

// keyPath is the contract path of the key's place: key_field for a key in
// the JSON body, else the header.
func keyPath(id contract.Idempotency) string {
	if id.InBody() {
		return "idempotency.key_field"
	}
	return "idempotency.header"
}

// IDs lists the gate IDs in table order.
func IDs() []string {
	out := make([]string, len(Gates))
	for i, g := range Gates {
		out[i] = g.ID()
	}
	return out
}

// Rules returns the gates' explain entries, for `explain --list`.
func Rules() []rules.Rule {
	out := make([]rules.Rule, len(Gates))
	for i, g := range Gates {
		out[i] = g.Doc
	}
	return out
}

// RuleByID finds a gate's explain entry.
func RuleByID(id string) (rules.Rule, bool) {
	i := slices.IndexFunc(Gates, func(g Gate) bool { return g.ID() == id })
	if i < 0 {
		return rules.Rule{}, false
	}
	return Gates[i].Doc, true
}
