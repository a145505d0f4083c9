package rules

import "github.com/retryspec/retryspec/findings"

// ScopeVerify rules are the gates of `retryspec verify`: they judge a
// running server, not the contract, so they have no Check here; the verify
// package runs them and files findings under these IDs.
const ScopeVerify Scope = "verify"

// srcSkill is the method the gates come from (the measurement section).
var srcSkill = findings.Source{Title: "samber/developer-platform-skills, API Idempotency and Retry: Measurement", URL: "https://github.com/samber/developer-platform-skills"}

var verifyRules = []Rule{
	{
		ID:       "verify/missing-key",
		Severity: findings.Error,
		Scope:    ScopeVerify,
		Summary:  "a key: required endpoint accepts a request without the key, or refuses it with another status or code than the contract's missing_key",
		Rationale: "Proves: the server refuses a keyless write to an endpoint the contract marks key: required, with the documented " +
			"missing_key status and error code, so an integrator who forgets the header learns it on the first request instead of " +
			"after the first duplicate. Failing means a retry of that request is not protected at all: the server ran it with no key " +
			"to deduplicate on. Usual cause in code: the middleware treats the header as optional (skips the idempotency path when " +
			"it is absent), or mints a key itself when the client sent none (AWS and Stripe both leave minting to the client).",
		Sources: []findings.Source{srcAWSIdem, srcStripe},
		Fix:     "reject a request to a key: required endpoint that lacks the header before any work, with idempotency.conflicts.missing_key's status and code",
		Bad:     "POST /v1/transfers (no Idempotency-Key)\n-> 201 {\"id\": \"tr_1\"}\n",
		Good:    "POST /v1/transfers (no Idempotency-Key)\n-> 400 {\"error\": {\"code\": \"missing_idempotency_key\"}}\n",
	},
	{
		ID:       "verify/key-too-long",
		Severity: findings.Error,
		Scope:    ScopeVerify,
		Summary:  "a key one character longer than max_key_length is not refused with the contract's invalid_key answer, or causes an effect",
		Rationale: "Proves: the server enforces the contract's max_key_length with the invalid_key status and code and does no work for the request. Failing " +
			"means the stored key is not the key the client sent: a server that truncates makes two distinct long keys collide " +
			"(one caller's retry replays another request's answer), and a column that silently cuts or errors late leaves half-done " +
			"work. Usual cause in code: the key column is shorter than the documented length, or the handler truncates " +
			"(key[:255]) instead of refusing.",
		Sources: []findings.Source{srcStripe, srcIETF},
		Fix:     "refuse a key longer than idempotency.max_key_length with idempotency.conflicts.invalid_key's status and code before claiming it, and size the key column to exactly that length",
		Bad:     "POST /v1/transfers  Idempotency-Key: <256 characters>\n-> 201, one transfer created\n",
		Good:    "POST /v1/transfers  Idempotency-Key: <256 characters>\n-> 400 invalid_idempotency_key, nothing created\n",
	},
	{
		ID:       "verify/key-form",
		Severity: findings.Error,
		Scope:    ScopeVerify,
		Summary:  "with header_value: sf-string, a key sent without its quotes is not refused with the contract's invalid_key answer, or causes an effect",
		Rationale: "Proves: the server reads the key in the form the contract documents (an RFC 8941 string, quoted, as the IETF " +
			"draft sends it) and refuses any other form before doing work. Failing means the stored key depends on how a client " +
			"happened to write the header: a client that quotes and one that does not get two different keys for one intent, or " +
			"the raw value (quotes included) becomes the key. Skipped with header_value: plain, where the value as sent is the key. " +
			"Usual cause in code: the middleware takes the header's raw value, or strips quotes when present and accepts a bare value too.",
		Sources: []findings.Source{srcIETF},
		Fix:     "parse the header as an RFC 8941 string, refuse a value that is not one with idempotency.conflicts.invalid_key before claiming anything, and use the parsed string as the key",
		Bad:     "POST /v1/transfers  Idempotency-Key: k1   (no quotes)\n-> 201, a transfer created under the key k1\n",
		Good:    "POST /v1/transfers  Idempotency-Key: k1   (no quotes)\n-> 400 invalid_idempotency_key, nothing created\n",
	},
	{
		ID:       "verify/concurrency",
		Severity: findings.Error,
		Scope:    ScopeVerify,
		Summary:  "N identical requests with one key, released at the same instant, caused more than one effect or an answer that is neither the outcome, the in-flight conflict nor its replay",
		Rationale: "Proves the definitional guarantee: when a client's retries (or a double click and a retry) arrive together, the " +
			"storage layer picks a single winner, one side effect executes, and every other caller gets the documented in-flight " +
			"conflict or the stored replay. Failing means duplicates in production whenever retries overlap, which is exactly when " +
			"a timeout fired. Usual cause in code: check-then-insert (SELECT the key, then INSERT it) instead of one atomic claim, " +
			"a claim outside the transaction of the work, or a key store with no in-flight state that lets the second caller " +
			"through because the first has not finished.",
		Sources: []findings.Source{srcBrandur, srcAWSIdem, srcSkill},
		Fix:     "claim the key with one atomic statement the store arbitrates (INSERT ... ON CONFLICT DO NOTHING on a unique (account, key) constraint) and answer losers with idempotency.conflicts.in_flight until the winner completes",
		Bad:     "16 x POST /v1/transfers  Idempotency-Key: k1 (same instant)\n-> 16 x 201, 3 transfers created\n",
		Good:    "16 x POST /v1/transfers  Idempotency-Key: k1 (same instant)\n-> 1 x 201, 15 x 409 concurrent_idempotent_requests, 1 transfer created\n",
	},
	{
		ID:       "verify/replay",
		Severity: findings.Error,
		Scope:    ScopeVerify,
		Summary:  "repeating a completed request did not return the original status and byte-identical body with the replay header, or caused a new effect",
		Rationale: "Proves: a retry after the response was lost gets the stored response verbatim, marked with the contract's " +
			"replay_header, and no work runs again. Failing means the client cannot trust the replay: a re-rendered body (new " +
			"timestamps, other field order) breaks clients that compare or sign responses, a missing replay header hides that it " +
			"was a replay, and a new effect is the duplicate the key exists to prevent. Usual cause in code: storing a summary " +
			"(the resource id) and re-rendering on replay, or re-running the handler when the key is complete.",
		Sources: []findings.Source{srcStripe, srcBrandur},
		Fix:     "store status, headers that matter and the body bytes when the request completes, and on a completed key write those bytes back unchanged with the replay header set",
		Bad:     "POST /v1/transfers  Idempotency-Key: k1 -> 201 {\"id\":\"tr_1\",\"amount\":1000}\nPOST /v1/transfers  Idempotency-Key: k1 -> 201 {\"amount\": 1000, \"id\": \"tr_1\"}\n",
		Good:    "POST /v1/transfers  Idempotency-Key: k1 -> 201 {\"id\":\"tr_1\",\"amount\":1000}\nPOST /v1/transfers  Idempotency-Key: k1 -> 201 {\"id\":\"tr_1\",\"amount\":1000}  Idempotent-Replayed: true\n",
	},
	{
		ID:       "verify/mismatch",
		Severity: findings.Error,
		Scope:    ScopeVerify,
		Summary:  "the same key with another body was not refused with the contract's payload_mismatch status and code, or caused an effect",
		Rationale: "Proves: reusing a key for a different request is refused, so a client bug (one key for two payments) surfaces " +
			"as an error instead of a silent replay of the wrong answer or a second effect. Failing means the server either " +
			"replays the first request's response for a different request (the client believes its second payment went through) " +
			"or runs it. Usual cause in code: no request fingerprint stored beside the key, or a fingerprint computed but never " +
			"compared on the lookup path.",
		Sources: []findings.Source{srcIETF, srcResend},
		Fix:     "store a fingerprint (sha256 of the body) with the claim and answer idempotency.conflicts.payload_mismatch when a key comes back with another fingerprint",
		Bad:     "POST {\"amount\":1000} Idempotency-Key: k1 -> 201\nPOST {\"amount\":1001} Idempotency-Key: k1 -> 201 (the first response)\n",
		Good:    "POST {\"amount\":1000} Idempotency-Key: k1 -> 201\nPOST {\"amount\":1001} Idempotency-Key: k1 -> 409 invalid_idempotent_request\n",
	},
	{
		ID:       "verify/scope",
		Severity: findings.Error,
		Scope:    ScopeVerify,
		Summary:  "the same key from another principal did not behave as the contract's scope says (scope: account: a separate effect, never the first caller's response)",
		Rationale: "Proves the key's scope: with scope: account, keys are stored per (account, key), so two customers who pick the " +
			"same key string (both derive it from an order number, say) each get their own effect, and neither ever sees the " +
			"other's stored response; with scope: global, the second caller gets a conflict or a replay. Failing with account " +
			"scope leaks one account's response to another and drops the second account's write. Usual cause in code: the unique " +
			"constraint or lookup is on the key alone, without the account column.",
		Sources: []findings.Source{srcStripe, srcBrandur},
		Fix:     "key the claim table and every lookup on (account_id, idempotency_key), or document scope: global if that is really intended",
		Bad:     "account A: POST Idempotency-Key: k1 -> 201 tr_1\naccount B: POST Idempotency-Key: k1 -> 201 tr_1 (A's response)\n",
		Good:    "account A: POST Idempotency-Key: k1 -> 201 tr_1\naccount B: POST Idempotency-Key: k1 -> 201 tr_2\n",
	},
	{
		ID:       "verify/failed-attempt",
		Severity: findings.Error,
		Scope:    ScopeVerify,
		Summary:  "after the key's first attempt failed in the handler, the retry was not what stored_failures says: the stored failure replayed, or the request run again",
		Rationale: "Proves: a key whose first attempt failed is neither poisoned nor silently rerun against the contract. verify " +
			"fails the endpoint's first external call at its stub (a 500 that applies nothing, as a provider outage does), lets " +
			"the handler answer, then retries the key, waiting out the in-flight conflict. A failure the contract stores (a 4xx, " +
			"or a 5xx under stored_failures: replay) must come back verbatim with no new work; one it does not store (a 5xx " +
			"under reattempt, and 408, 425, 429 and 503 always) must leave the key free, so the retry runs and completes with one " +
			"effect. verify and the middleware read that rule from one function. Failing the second way means a transient outage " +
			"poisons the key for the whole window: every retry the client makes gets the old failure, and the only way out is a " +
			"new key, which is exactly the duplicate risk keys exist to remove. Usual cause in code: every response is stored, " +
			"whatever its status, or the claim is left locked after the handler failed.",
		Sources: []findings.Source{srcStripe, srcBrandur},
		Fix:     "store the failed attempt's response only when idempotency.stored_failures says so (never a 408, 425, 429 or 503); otherwise release the key so the retry runs the request",
		Bad:     "POST Idempotency-Key: k1 -> 503 (the bank was down)\nPOST Idempotency-Key: k1 -> 503 Idempotent-Replayed: true (for 24h)\n",
		Good:    "POST Idempotency-Key: k1 -> 503 (the bank was down)\nPOST Idempotency-Key: k1 -> 201 tr_1, one transfer\n",
	},
	{
		ID:       "verify/restart-replay",
		Severity: findings.Error,
		Scope:    ScopeVerify,
		Summary:  "after a completed request and a restart of the server, the repeat with the same key was not the stored response, or made a new effect",
		Rationale: "Proves: completed keys outlive the process, so a client that retries across a deploy or a crash gets the " +
			"stored response and no second effect. verify completes a request, kills the server's process group, starts it " +
			"again and repeats the request with the same key. Failing means every restart reopens every key it had completed: " +
			"a retry in flight during a deploy charges again. Usual cause in code: the idempotency store is the process's " +
			"memory (a map, an in-process cache), or a cache in front of the store is trusted as the only record.",
		Sources: []findings.Source{srcStripe, srcSkill},
		Fix:     "keep completed keys and their responses in a durable store for the whole replay window, never only in the process's memory",
		Bad:     "POST Idempotency-Key: k1 -> 201 tr_1\n(server restarts)\nPOST Idempotency-Key: k1 -> 201 tr_2\n",
		Good:    "POST Idempotency-Key: k1 -> 201 tr_1\n(server restarts)\nPOST Idempotency-Key: k1 -> 201 tr_1 (replayed)\n",
	},
	{
		ID:       "verify/crash-recovery",
		Severity: findings.Error,
		Scope:    ScopeVerify,
		Summary:  "after the server was killed at an external call and restarted, the retried request did not complete with one effect and each external call applied once",
		Rationale: "Proves: a multi-step request resumes from its recovery point after a crash between atomic phases, and repeats no " +
			"external call (each is made again only with the same downstream key, which the provider deduplicates). verify kills the " +
			"server's process group when the stub receives each external call, once before and once after the stub answers, " +
			"restarts it and retries with the same key. Failing means a crash (deploy, OOM kill, node loss) mid-request charges " +
			"the bank twice or leaves the request stuck. Usual cause in code: a fresh downstream key per attempt, no recovery " +
			"point recorded before calling out, the resource created again on resume, or an abandoned claim never taken over.",
		Sources: []findings.Source{srcBrandur, srcSkill},
		Fix:     "record a recovery point and the downstream key for each external call before making it, resume from the last recovery point on retry, and take over a claim whose owner died (locked_at older than lock_timeout)",
		Bad:     "POST Idempotency-Key: k1 -> server killed at charge_bank\nPOST Idempotency-Key: k1 -> 201; stub saw charge_bank with 2 different keys\n",
		Good:    "POST Idempotency-Key: k1 -> server killed at charge_bank\nPOST Idempotency-Key: k1 -> 201; stub saw charge_bank once (same key repeated)\n",
	},
	{
		ID:       "verify/after-window",
		Severity: findings.Error,
		Scope:    ScopeVerify,
		Summary:  "a key reused after its replay window did not get what after_window says: a new request with a new effect, or the expired-key answer",
		Rationale: "Proves: the server honours the end of the replay window the way the contract documents. verify completes a " +
			"request, waits past the window the server runs (the contract's, or a short test window the plan states as " +
			"replay_window, for a server started with one), and reuses the key. With after_window: new-request the reuse runs " +
			"as a new request (a second effect); with after_window: error it gets idempotency.conflicts.expired and does no work. " +
			"Skipped when the window is longer than verify can wait. Failing means the docs promise one thing about old keys and " +
			"the server does another: a client that relies on a replay for ever charges again, or one that re-submits on purpose " +
			"after the window gets a stale answer instead of a new payment. Usual cause in code: the window check is missing " +
			"(keys replay until the reaper deletes them), or it answers an expired key without the documented code.",
		Sources: []findings.Source{srcStripe, srcIETF},
		Fix:     "compare the key's first use with replay_window on every lookup, and once it is older do what idempotency.after_window says: run the request as a new one, or answer idempotency.conflicts.expired",
		Bad:     "after_window: new-request, replay_window: 10s\nPOST Idempotency-Key: k1 -> 201 tr_1\n(12s later) POST Idempotency-Key: k1 -> 201 tr_1 (replayed)\n",
		Good:    "after_window: new-request, replay_window: 10s\nPOST Idempotency-Key: k1 -> 201 tr_1\n(12s later) POST Idempotency-Key: k1 -> 201 tr_2 (a new transfer)\n",
	},
	{
		ID:       "verify/too-old",
		Severity: findings.Error,
		Scope:    ScopeVerify,
		Summary:  "a request first sent longer ago than first_sent.window was not refused with idempotency.conflicts.too_old, or made an effect",
		Rationale: "Proves: the server measures the window from the time the client states it first sent the request, as " +
			"idempotency.first_sent says (OASIS Repeatable Requests, Azure's Repeatability-First-Sent). verify sends a request with a " +
			"fresh key whose first-sent header is a minute older than the window, counts the key's effects before and after, and expects " +
			"the contract's too_old answer with no effect. Skipped when the contract sets no first_sent. Failing means a retry that " +
			"outlived its window still runs: the client gave up on the first attempt's outcome long ago, and the server may now " +
			"run the operation a second time. Usual cause in code: the first-sent header is never read, or it is read after the claim " +
			"and the handler has already run.",
		Sources: []findings.Source{srcOASISRepeatable, srcAzureRepeatable},
		Fix:     "read the first-sent header before any work, and answer idempotency.conflicts.too_old when it is older than first_sent.window by the server's clock",
		Bad:     "first_sent: {header: Repeatability-First-Sent, window: 5m}\nPOST Repeatability-First-Sent: (6m ago) -> 202 (queued)\n",
		Good:    "first_sent: {header: Repeatability-First-Sent, window: 5m}\nPOST Repeatability-First-Sent: (6m ago) -> 412, no effect\n",
	},
	{
		ID:       "verify/result-header",
		Severity: findings.Error,
		Scope:    ScopeVerify,
		Summary:  "a keyed answer did not carry idempotency.result_header with the value the contract names for it",
		Rationale: "Proves: every answer to a keyed request says in the contract's result header whether the server took the request " +
			"(accepted: it ran, or this is the replay of its run) or refused it (rejected: a conflict, a key it will not take), as " +
			"OASIS Repeatable Requests' Repeatability-Result does. verify sends a first request and its repeat, and, where the contract " +
			"lets it provoke them, a mismatched request under the used key and a key too long, and reads the header on each answer. " +
			"Skipped when the contract names no result header. Failing means clients that branch on the header (Azure's SDKs do) " +
			"misread the outcome: a replayed payment taken for a refused one is sent again under a new key. Usual cause in code: the " +
			"header is set on the first run but not on replays written from the store, or on conflicts but not on the handler's answers.",
		Sources: []findings.Source{srcOASISRepeatable, srcAzureRepeatable},
		Fix:     "set the result header on every answer to a keyed request: its accepted value on a run or a replay, its rejected value on a refusal",
		Bad:     "result_header: {name: Repeatability-Result}\nPOST k1 -> 202 Repeatability-Result: accepted\nPOST k1 -> 202 (replayed, no Repeatability-Result)\n",
		Good:    "result_header: {name: Repeatability-Result}\nPOST k1 -> 202 Repeatability-Result: accepted\nPOST k1 -> 202 Repeatability-Result: accepted (replayed)\nPOST k1 (another body) -> 400 Repeatability-Result: rejected\n",
	},
	{
		ID:       "verify/effects-unobserved",
		Severity: findings.Warning,
		Scope:    ScopeVerify,
		Summary:  "no operation of the verify plan counts effects, so every gate judged by responses alone",
		Rationale: "Proves nothing by itself: it warns that the run proved less. A server can answer every gate correctly and still " +
			"run the work twice (a second charge behind a well-formed 409), so the gates that matter (concurrency, replay, " +
			"crash-recovery) are only conclusive when verify reads the effect count before and after. Usual cause: the plan was " +
			"written without an effects request, or the API has no way to list what a key did.",
		Sources: []findings.Source{srcSkill},
		Fix:     "add effects: {request: \"GET /v1/transfers?idempotency_key={key}\", count: /count} to each operation, exposing such a read (internal or test-only) if the API lacks one",
		Bad:     "operations:\n  \"POST /v1/transfers\":\n    body: {\"amount\": 1000}\n",
		Good:    "operations:\n  \"POST /v1/transfers\":\n    body: {\"amount\": 1000}\n    effects:\n      request: \"GET /v1/transfers?idempotency_key={key}\"\n      count: /count\n",
	},
}
