package diff

import (
	"sort"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// rowCase changes one path of testdata/full.yaml from old to new (YAML
// values; absent deletes) and expects a change of row, decided by the
// table entry rule, in class want. mutate edits the model directly for the
// few changes the format cannot express yet.
type rowCase struct {
	path, old, new string
	row, rule      string
	want           Class
	mutate         func(c *contract.Contract)
	// mutateOld edits the old model the same way, for an old state the
	// format refuses to load from an edit alone.
	mutateOld func(c *contract.Contract)
}

const newEndpoint = "{operation: POST /v1/refunds, effect: create, key: required}"

var rowCases = []rowCase{
	// Only version 1 loads today; a future version 2 is a notable change.
	{path: "retryspec", rule: "changed", want: Notable, mutate: func(c *contract.Contract) { c.Version = 2 }},
	{path: "api.name", new: "Lumapay Payments", rule: "changed", want: Compatible},
	{path: "api.base_url", new: "https://api.lumapay.example/v2", rule: "changed", want: Breaking},
	{path: "api.error_body", old: absent, new: "{code_at: /code}", row: "api.error_body.code_at", rule: "added", want: Notable},
	{path: "api.error_body", new: absent, row: "api.error_body.code_at", rule: "removed", want: Notable},
	{path: "api.error_body.code_at", new: "/errors/0/code", rule: "changed", want: Breaking},
	{path: "api.error_body.message_at", old: absent, new: "/error/message", rule: "added", want: Compatible},
	{path: "api.error_body.message_at", new: absent, rule: "removed", want: Compatible},
	{path: "api.error_body.message_at", new: "/error/detail", rule: "changed", want: Compatible},
	{path: "api.error_body.schema_ref", old: absent, new: "\"#/components/schemas/Error\"", rule: "added", want: Compatible},
	{path: "api.error_body.schema_ref", new: absent, rule: "removed", want: Compatible},
	{path: "api.error_body.schema_ref", new: "\"#/components/schemas/ApiError\"", rule: "changed", want: Compatible},
	{path: "idempotency.header", new: "X-Idempotency-Key", rule: "changed", want: Breaking},
	{path: "idempotency.key_in", rule: "changed", want: Breaking, mutate: keyInHeader},
	{path: "idempotency.key_field", rule: "added", want: Breaking, mutateOld: keyInHeader, mutate: func(*contract.Contract) {}},
	{path: "idempotency.key_field", rule: "removed", want: Breaking, mutate: keyInHeader},
	{path: "idempotency.key_field", new: "/payment_key", rule: "changed", want: Breaking},
	{path: "idempotency.graphql.path", rule: "added", want: Breaking, mutate: func(c *contract.Contract) { c.Idempotency.GraphQL.Path = "/graphql" }},
	{path: "idempotency.graphql.path", rule: "removed", want: Breaking, mutateOld: func(c *contract.Contract) { c.Idempotency.GraphQL.Path = "/graphql" }, mutate: func(*contract.Contract) {}},
	{path: "idempotency.graphql.path", rule: "changed", want: Breaking, mutateOld: func(c *contract.Contract) { c.Idempotency.GraphQL.Path = "/graphql" }, mutate: func(c *contract.Contract) { c.Idempotency.GraphQL.Path = "/v2/graphql" }},
	{path: "idempotency.graphql.directive", rule: "added", want: Breaking, mutate: func(c *contract.Contract) { c.Idempotency.GraphQL.Directive = "idempotent" }},
	{path: "idempotency.graphql.directive", rule: "removed", want: Breaking, mutateOld: func(c *contract.Contract) { c.Idempotency.GraphQL.Directive = "idempotent" }, mutate: func(*contract.Contract) {}},
	{path: "idempotency.graphql.directive", rule: "changed", want: Breaking, mutateOld: func(c *contract.Contract) { c.Idempotency.GraphQL.Directive = "idempotent" }, mutate: func(c *contract.Contract) { c.Idempotency.GraphQL.Directive = "once" }},
	{path: "idempotency.graphql.argument", rule: "added", want: Breaking, mutate: func(c *contract.Contract) { c.Idempotency.GraphQL.Argument = "key" }},
	{path: "idempotency.graphql.argument", rule: "removed", want: Breaking, mutateOld: func(c *contract.Contract) { c.Idempotency.GraphQL.Argument = "key" }, mutate: func(*contract.Contract) {}},
	{path: "idempotency.graphql.argument", rule: "changed", want: Breaking, mutateOld: func(c *contract.Contract) { c.Idempotency.GraphQL.Argument = "key" }, mutate: func(c *contract.Contract) { c.Idempotency.GraphQL.Argument = "idempotencyKey" }},
	{path: "idempotency.graphql.errors_in", rule: "changed", want: Breaking, mutateOld: func(c *contract.Contract) { c.Idempotency.GraphQL.ErrorsIn = contract.ErrorsInUserErrors }, mutate: func(c *contract.Contract) { c.Idempotency.GraphQL.ErrorsIn = contract.ErrorsInErrors }},
	{path: "endpoints[].mutation", rule: "added", want: Breaking, mutate: func(c *contract.Contract) { c.Endpoints[0].Mutation = "transferCreate" }},
	{path: "endpoints[].mutation", rule: "removed", want: Breaking, mutateOld: func(c *contract.Contract) { c.Endpoints[0].Mutation = "transferCreate" }, mutate: func(*contract.Contract) {}},
	{path: "endpoints[].mutation", rule: "changed", want: Breaking, mutateOld: func(c *contract.Contract) { c.Endpoints[0].Mutation = "transferCreate" }, mutate: func(c *contract.Contract) { c.Endpoints[0].Mutation = "transferSend" }},
	{path: "endpoints[0].max_key_length", new: "40", rule: "lowered", want: Breaking},
	{path: "endpoints[0].max_key_length", new: "100", rule: "raised", want: Notable},
	{path: "idempotency.header_value", new: "sf-string", rule: "changed", want: Breaking},
	{path: "idempotency.replay_header", old: absent, new: "Idempotent-Replayed", rule: "added", want: Notable},
	{path: "idempotency.replay_header", new: absent, rule: "removed", want: Breaking},
	{path: "idempotency.replay_header", new: "X-Replayed", rule: "changed", want: Breaking},
	{path: "idempotency.key_source", new: "server-derived", rule: "changed", want: Breaking},
	{path: "idempotency.max_key_length", new: "128", rule: "lowered", want: Breaking},
	{path: "idempotency.max_key_length", new: "512", rule: "raised", want: Notable},
	{path: "idempotency.scope", new: "global", rule: "to global", want: Breaking},
	{path: "idempotency.scope", old: "global", new: "account", rule: "changed", want: Notable},
	{path: "idempotency.derivation", new: "[{kind: uuid-reused}, {kind: event-derived}]", rule: "changed", want: Compatible},
	{path: "idempotency.fingerprint", rule: "changed", want: Breaking, mutate: func(c *contract.Contract) { c.Idempotency.Fingerprint = contract.FingerprintNone }},
	{path: "idempotency.fingerprint_headers", rule: "changed", want: Breaking, mutate: func(c *contract.Contract) { c.Idempotency.FingerprintHeaders = []string{"Api-Version", "X-Tenant"} }},
	{path: "idempotency.claim.store", new: "mysql", rule: "changed", want: Notable},
	{path: "idempotency.claim.mechanism", new: "row-lock-serializable", rule: "changed", want: Notable},
	{path: "idempotency.claim.mechanism", new: "check-then-insert", rule: "to check-then-insert", want: Breaking},
	{path: "idempotency.claim.mechanism", new: "lock", rule: "to lock", want: Breaking},
	{path: "idempotency.claim.fencing_tokens", old: "true", new: "false", rule: "lowered", want: Breaking},
	{path: "idempotency.claim.fencing_tokens", new: "true", rule: "raised", want: Notable},
	{path: "idempotency.claim.same_transaction", new: "false", rule: "lowered", want: Breaking},
	{path: "idempotency.claim.same_transaction", old: "false", new: "true", rule: "raised", want: Notable},
	{path: "idempotency.in_flight", old: absent, new: "{response: conflict}", rule: "added", want: Breaking},
	{path: "idempotency.in_flight", new: absent, rule: "removed", want: Breaking},
	{path: "idempotency.in_flight.response", new: "block", rule: "changed", want: Breaking},
	{path: "idempotency.in_flight.lock_timeout", new: "5m", rule: "raised", want: Notable},
	{path: "idempotency.in_flight.lock_timeout", new: "30s", rule: "lowered", want: Notable},
	{path: "idempotency.in_flight.takeover", new: "none", rule: "changed", want: Notable},
	{path: "idempotency.in_flight.takeover", new: "pass-through", rule: "to pass-through", want: Breaking},
	{path: "idempotency.conflicts.payload_mismatch.status", new: "422", rule: "changed", want: Breaking},
	{path: "idempotency.conflicts.payload_mismatch.code", new: "idempotency_key_reused", rule: "changed", want: Breaking},
	{path: "idempotency.conflicts.in_flight.status", new: "425", rule: "changed", want: Breaking},
	{path: "idempotency.conflicts.in_flight.code", new: "request_in_progress", rule: "changed", want: Breaking},
	{path: "idempotency.conflicts.missing_key.status", new: "422", rule: "changed", want: Breaking},
	{path: "idempotency.conflicts.missing_key.code", new: "idempotency_key_required", rule: "changed", want: Breaking},
	{path: "idempotency.conflicts.invalid_key.status", rule: "changed", want: Breaking, mutate: func(c *contract.Contract) { c.Idempotency.Conflicts.InvalidKey.Status = 422 }},
	{path: "idempotency.conflicts.invalid_key.code", rule: "changed", want: Breaking, mutate: func(c *contract.Contract) { c.Idempotency.Conflicts.InvalidKey.Code = "bad_key" }},
	{path: "idempotency.conflicts.expired.status", rule: "changed", want: Breaking, mutate: func(c *contract.Contract) { c.Idempotency.Conflicts.Expired.Status = 412 }},
	{path: "idempotency.conflicts.expired.code", rule: "changed", want: Breaking, mutate: func(c *contract.Contract) { c.Idempotency.Conflicts.Expired.Code = "" }},
	{path: "idempotency.conflicts.payload_mismatch.message", rule: "changed", want: Compatible, mutate: func(c *contract.Contract) { c.Idempotency.Conflicts.PayloadMismatch.Message = "Reused." }},
	{path: "idempotency.conflicts.in_flight.message", rule: "changed", want: Compatible, mutate: func(c *contract.Contract) { c.Idempotency.Conflicts.InFlight.Message = "Busy." }},
	{path: "idempotency.conflicts.missing_key.message", rule: "changed", want: Compatible, mutate: func(c *contract.Contract) { c.Idempotency.Conflicts.MissingKey.Message = "Key?" }},
	{path: "idempotency.conflicts.invalid_key.message", rule: "changed", want: Compatible, mutate: func(c *contract.Contract) { c.Idempotency.Conflicts.InvalidKey.Message = "Bad key." }},
	{path: "idempotency.conflicts.expired.message", rule: "changed", want: Compatible, mutate: func(c *contract.Contract) { c.Idempotency.Conflicts.Expired.Message = "Too old." }},
	{path: "idempotency.conflicts.too_old.status", rule: "changed", want: Breaking, mutate: func(c *contract.Contract) { c.Idempotency.Conflicts.TooOld.Status = 422 }},
	{path: "idempotency.conflicts.too_old.code", rule: "changed", want: Breaking, mutate: func(c *contract.Contract) { c.Idempotency.Conflicts.TooOld.Code = "" }},
	{path: "idempotency.conflicts.too_old.message", rule: "changed", want: Compatible, mutate: func(c *contract.Contract) { c.Idempotency.Conflicts.TooOld.Message = "Too old." }},
	{path: "idempotency.first_sent", new: absent, row: "idempotency.conflicts.too_old.status", rule: "removed", want: Notable},
	{path: "idempotency.first_sent", new: absent, row: "idempotency.conflicts.too_old.code", rule: "removed", want: Compatible},
	{path: "idempotency.first_sent", new: absent, row: "idempotency.first_sent.window", rule: "removed", want: Breaking},
	{path: "idempotency.first_sent", new: absent, row: "idempotency.first_sent.header", rule: "removed", want: Notable},
	{path: "idempotency.first_sent", old: absent, new: "{header: Repeatability-First-Sent, window: 5m}", row: "idempotency.conflicts.too_old.status", rule: "added", want: Notable},
	{path: "idempotency.first_sent", old: absent, new: "{header: Repeatability-First-Sent, window: 5m}", row: "idempotency.conflicts.too_old.code", rule: "added", want: Compatible},
	{path: "idempotency.first_sent", old: absent, new: "{header: Repeatability-First-Sent, window: 5m}", row: "idempotency.first_sent.window", rule: "added", want: Breaking},
	{path: "idempotency.first_sent", old: absent, new: "{header: Repeatability-First-Sent, window: 5m}", row: "idempotency.first_sent.header", rule: "added", want: Breaking},
	{path: "idempotency.first_sent.header", new: "X-First-Sent", rule: "changed", want: Breaking},
	{path: "idempotency.first_sent.window", new: "2m", rule: "lowered", want: Breaking},
	{path: "idempotency.first_sent.window", new: "10m", rule: "raised", want: Notable},
	{path: "idempotency.result_header", old: absent, new: "{name: Repeatability-Result}", row: "idempotency.result_header.name", rule: "added", want: Notable},
	{path: "idempotency.result_header", old: absent, new: "{name: Repeatability-Result}", row: "idempotency.result_header.accepted", rule: "added", want: Notable},
	{path: "idempotency.result_header", old: absent, new: "{name: Repeatability-Result}", row: "idempotency.result_header.rejected", rule: "added", want: Notable},
	{path: "idempotency.result_header", new: absent, row: "idempotency.result_header.name", rule: "removed", want: Breaking},
	{path: "idempotency.result_header", new: absent, row: "idempotency.result_header.accepted", rule: "removed", want: Notable},
	{path: "idempotency.result_header", new: absent, row: "idempotency.result_header.rejected", rule: "removed", want: Notable},
	{path: "idempotency.result_header.name", new: "X-Result", rule: "changed", want: Breaking},
	{path: "idempotency.result_header.accepted", new: "ok", rule: "changed", want: Breaking},
	{path: "idempotency.result_header.rejected", new: "refused", rule: "changed", want: Breaking},
	{path: "api.error_body.format", rule: "changed", want: Breaking, mutate: func(c *contract.Contract) { c.API.ErrorBody.Format = contract.ErrorFormatProblem }},
	{path: "idempotency.stored_failures", new: "reattempt", rule: "changed", want: Breaking},
	{path: "idempotency.stored_failures", old: absent, new: "replay", rule: "added", want: Notable},
	{path: "idempotency.stored_failures", new: absent, rule: "removed", want: Breaking},
	{path: "idempotency.stored_outcomes", rule: "changed", want: Breaking, mutate: func(c *contract.Contract) { c.Idempotency.StoredOutcomes = contract.Stored2xx }},
	{path: "idempotency.fingerprint_fields.members", rule: "changed", want: Breaking, mutate: func(c *contract.Contract) {
		c.Idempotency.FingerprintFields.Members = []string{"/trace_id", "/sent_at"}
	}},
	{path: "idempotency.fingerprint_fields", new: "{only: [/trace_id]}", row: "idempotency.fingerprint_fields.only", rule: "raised", want: Breaking},
	{path: "idempotency.fingerprint_fields", old: "{only: [/trace_id]}", new: "{exclude: [/trace_id]}", row: "idempotency.fingerprint_fields.only", rule: "lowered", want: Breaking},
	{path: "idempotency.stored_response", new: "summary", rule: "to summary", want: Breaking},
	{path: "idempotency.stored_response", old: "summary", new: "verbatim", rule: "changed", want: Notable},
	{path: "idempotency.replay_window", new: "12h", rule: "lowered", want: Breaking},
	{path: "idempotency.replay_window", new: "7d", rule: "raised", want: Notable},
	{path: "idempotency.reaper_after", new: "96h", rule: "changed", want: Notable},
	{path: "idempotency.reaper_after", old: absent, new: "72h", rule: "added", want: Notable},
	{path: "idempotency.reaper_after", new: absent, rule: "removed", want: Notable},
	{path: "idempotency.longest_retry_chain.duration", new: "2h", rule: "lowered", want: Breaking},
	{path: "idempotency.longest_retry_chain.duration", new: "12h", rule: "raised", want: Notable},
	{path: "idempotency.longest_retry_chain", old: absent, new: "6h", row: "idempotency.longest_retry_chain.duration", rule: "added", want: Notable},
	{path: "idempotency.longest_retry_chain", new: absent, row: "idempotency.longest_retry_chain.duration", rule: "removed", want: Notable},
	{path: "idempotency.longest_retry_chain.because", new: "SDK retries only", rule: "changed", want: Compatible},
	{path: "idempotency.after_window", new: "error", rule: "to error", want: Breaking},
	{path: "idempotency.after_window", old: "error", new: "new-request", rule: "changed", want: Notable},
	{path: "idempotency.recovery.completer", new: "false", rule: "lowered", want: Breaking},
	{path: "idempotency.recovery.completer", old: "false", new: "true", rule: "raised", want: Notable},
	{path: "idempotency.recovery.reaper", new: "false", rule: "changed", want: Notable},

	{path: "endpoints[3]", old: absent, new: newEndpoint, rule: "added", want: Notable},
	{path: "endpoints[3]", old: newEndpoint, new: absent, rule: "removed", want: Breaking},
	{path: "endpoints[1].operation", new: "GET /v1/transfers/{transfer_id}", rule: "changed", want: Compatible},
	{path: "endpoints[0].effect", new: "replace", rule: "changed", want: Notable},
	{path: "endpoints[1].effect", new: "create", rule: "to create", want: Breaking},
	{path: "endpoints[1].effect", new: "append", rule: "to append", want: Breaking},
	{path: "endpoints[1].effect", new: "increment", rule: "to increment", want: Breaking},
	{path: "endpoints[1].effect", new: "decrement", rule: "to decrement", want: Breaking},
	{path: "endpoints[1].effect", new: "action", rule: "to action", want: Breaking},
	{path: "endpoints[2].key", new: "required", rule: "to required", want: Breaking},
	{path: "endpoints[2].key", old: "optional", new: "required", rule: "to required", want: Breaking},
	{path: "endpoints[0].key", new: "none", rule: "to none", want: Breaking},
	{path: "endpoints[0].key", new: "optional", rule: "changed", want: Notable},
	{path: "endpoints[2].unsafe_to_retry", new: "Archiving twice sends the owner two emails.", rule: "changed", want: Compatible},
	{path: "endpoints[0].external_calls", new: "[charge_bank, send_receipt, notify_ledger]", rule: "added", want: Notable},
	{path: "endpoints[0].external_calls", new: "[charge_bank]", rule: "removed", want: Compatible},
	{path: "endpoints[0].recovery_points", new: "[started, finished]", rule: "changed", want: Compatible},
	// issue 28: a first recovery point under keys in flight: a retry of a request claimed before the deploy starts over.
	{path: "endpoints[0].recovery_points", old: "[]", new: "[started, finished]", rule: "added", want: Breaking},
	{path: "endpoints[0].single_transaction", new: "true", rule: "changed", want: Notable},
	{path: "endpoints[0].summary", new: "Send money.", rule: "changed", want: Compatible},
	{path: "endpoints[0].example.body", new: `{"amount": 2500, "currency": "eur"}`, rule: "changed", want: Compatible},
	{path: "endpoints[2].example.path", new: "{id: rp_2}", rule: "changed", want: Compatible},

	{path: "retry.statuses", new: "[429, 503, 504]", rule: "removed", want: Breaking},
	{path: "retry.statuses", old: "any", new: "[429, 503]", rule: "removed", want: Breaking},
	{path: "retry.statuses", new: "[429, 502, 503, 504, 408]", rule: "added", want: Notable},
	{path: "retry.statuses", old: "[429, 5XX]", new: "[429, 502, 503, 504]", rule: "removed", want: Breaking},
	{path: "retry.cautious_statuses", new: "[]", rule: "removed", want: Breaking},
	{path: "retry.cautious_statuses", new: "[500, 501]", rule: "added", want: Notable},
	{path: "retry.connection_errors", new: "[timeout, reset]", rule: "removed", want: Breaking},
	{path: "retry.connection_errors", old: "[timeout]", new: "[timeout, reset]", rule: "added", want: Notable},
	{path: "retry.honor_retry_after", old: "false", new: "true", rule: "raised", want: Breaking},
	{path: "retry.honor_retry_after", new: "false", rule: "lowered", want: Notable},
	{path: "retry.backoff.jitter", new: "equal", rule: "changed", want: Notable},
	{path: "retry.backoff.base", new: "2s", rule: "changed", want: Notable},
	{path: "retry.backoff.cap", new: "20s", rule: "changed", want: Notable},
	{path: "retry.backoff.multiplier", new: "3", rule: "changed", want: Notable},
	{path: "retry.backoff.because", new: "a tight checkout deadline", rule: "changed", want: Compatible},
	{path: "retry.max_attempts", new: "2", rule: "lowered", want: Breaking},
	{path: "retry.max_attempts", new: "5", rule: "raised", want: Notable},
	{path: "retry.max_elapsed", new: "30s", rule: "lowered", want: Breaking},
	{path: "retry.max_elapsed", new: "2m", rule: "raised", want: Notable},
	{path: "retry.max_elapsed", old: absent, new: "60s", rule: "added", want: Breaking},
	{path: "retry.max_elapsed", new: absent, rule: "removed", want: Notable},
	{path: "retry.attempt_timeout.p99", new: "1s", rule: "changed", want: Notable},
	{path: "retry.attempt_timeout.factor", new: "3", rule: "changed", want: Notable},
	{path: "retry.attempt_timeout", old: "2s", new: "3s", rule: "changed", want: Notable},
	{path: "retry.deadline", new: "per-attempt", rule: "to per-attempt", want: Breaking},
	{path: "retry.deadline", old: "per-attempt", new: "overall", rule: "changed", want: Notable},
	{path: "retry.propagate_deadline", new: "false", rule: "changed", want: Notable},
	{path: "retry.log_retries", new: "false", rule: "changed", want: Notable},
	{path: "retry.budget", old: absent, new: "{capacity: 100}", rule: "added", want: Notable},
	{path: "retry.budget", new: absent, rule: "removed", want: Notable},
	{path: "retry.budget.kind", rule: "changed", want: Notable, mutate: func(c *contract.Contract) { c.Retry.Budget.Kind = "sliding-window" }},
	{path: "retry.budget.capacity", new: "100", rule: "changed", want: Notable},
	{path: "retry.budget.transient_cost", new: "10", rule: "changed", want: Notable},
	{path: "retry.budget.throttle_cost", new: "1", rule: "changed", want: Notable},
	{path: "retry.budget.success_refund", new: "2", rule: "changed", want: Notable},
	{path: "retry.stacking", new: "[retry, rate-limiter, circuit-breaker, bulkhead]", rule: "changed", want: Notable},

	{path: "sdk", old: absent, new: "{retries: on}", rule: "added", want: Notable},
	{path: "sdk", new: absent, rule: "removed", want: Breaking},
	{path: "sdk.languages", new: "[python, node, go]", rule: "removed", want: Breaking},
	{path: "sdk.languages", old: "[python]", new: "[python, typescript]", rule: "added", want: Notable},
	{path: "sdk.retries", new: "off", rule: "to off", want: Breaking},
	{path: "sdk.retries", old: "off", new: "on", rule: "changed", want: Notable},
	{path: "sdk.auto_idempotency_key", new: "false", rule: "lowered", want: Breaking},
	{path: "sdk.auto_idempotency_key", old: "false", new: "true", rule: "raised", want: Notable},

	{path: "docs.out", new: "public", rule: "changed", want: Compatible},
	{path: "docs.copy.include", new: "[\"docs/**/*.md\"]", rule: "changed", want: Compatible},
	{path: "docs.copy.allow", new: absent, rule: "changed", want: Compatible},
	{path: "docs.copy.lint_code", new: "true", rule: "changed", want: Compatible},
	{path: "lint.waive", new: absent, rule: "changed", want: Compatible},
	{path: "changes[1]", new: "{field: retry, because: \"tightened for the holiday peak\"}", row: "changes", rule: "added", want: Compatible},
	{path: "changes", new: absent, rule: "removed", want: Compatible},
}

// keyInHeader moves the key from full.yaml's body member back to a header.
func keyInHeader(c *contract.Contract) {
	c.Idempotency.KeyIn, c.Idempotency.KeyField = contract.KeyInHeader, nil
}

func TestRows(t *testing.T) {
	full := readTestdata(t, "full.yaml")
	used := map[string]bool{}
	for _, tc := range rowCases {
		row := tc.row
		if row == "" {
			row = rowOf(tc.path)
		}
		t.Run(tc.path+"/"+tc.rule+"/"+tc.new, func(t *testing.T) {
			src := full
			if tc.old != "" {
				src = edit(t, full, tc.path, tc.old)
			}
			old := parse(t, "old.yaml", src)
			if tc.mutateOld != nil {
				tc.mutateOld(old)
			}
			new := parse(t, "new.yaml", src)
			if tc.mutate != nil {
				tc.mutate(new)
			} else {
				new = parse(t, "new.yaml", edit(t, src, tc.path, tc.new))
			}
			var found bool
			var got []string
			for _, c := range Compare(old, new) {
				got = append(got, c.Row+" "+c.rule+" "+c.Class.String())
				if c.Row == row && c.rule == tc.rule {
					found = true
					if c.Class != tc.want {
						t.Errorf("%s %s: class %s, want %s (%s)", row, tc.rule, c.Class, tc.want, c.Why)
					}
					if strings.Contains(c.Why+c.Migration, "{") && !strings.Contains(tc.new+tc.old, "{") {
						t.Errorf("unexpanded placeholder: %q / %q", c.Why, c.Migration)
					}
				}
			}
			if !found {
				t.Errorf("no change of row %s decided by %q; got %v", row, tc.rule, got)
			}
		})
		used[row+" | "+tc.rule] = true
	}
	// Every entry of every row is exercised by a case above.
	var missing []string
	for _, r := range Table {
		for d := range r.By {
			if !used[r.Field+" | "+string(d)] && r.Field != wholeContract {
				missing = append(missing, r.Field+" | "+string(d))
			}
		}
		for v := range r.To {
			if !used[r.Field+" | to "+v] {
				missing = append(missing, r.Field+" | to "+v)
			}
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("no test case for table entry %s", m)
	}
}

// A status class covers its codes: widening to 5XX or any drops nothing.
func TestStatusClassesCoverCodes(t *testing.T) {
	full := readTestdata(t, "full.yaml")
	old := parse(t, "old.yaml", full)
	for _, tc := range []struct{ new, want string }{
		{"[429, 5XX]", "added 5XX"},
		{"any", "added any"},
		{"[4XX, 502, 503, 504]", "added 4XX"},
		{"[429, 503, 504, 5XX]", "added 5XX"},
	} {
		var got []string
		for _, c := range Compare(old, parse(t, "new.yaml", edit(t, full, "retry.statuses", tc.new))) {
			got = append(got, string(c.Direction)+" "+strings.TrimSuffix(strings.Fields(c.Why)[0], ":"))
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%s: got %v, want %s", tc.new, got, tc.want)
		}
	}
}

func TestEffectChangeUnderRequiredKey(t *testing.T) {
	full := readTestdata(t, "full.yaml")
	src := edit(t, full, "endpoints[0].effect", "replace")
	old := parse(t, "old.yaml", src)
	got := Compare(old, parse(t, "new.yaml", full)) // replace -> create, key required
	if len(got) != 1 || got[0].Class != Notable || !strings.Contains(got[0].Why, "the key is required") {
		t.Fatalf("got %+v", got)
	}
}

func TestNewAndDeletedContract(t *testing.T) {
	c := parse(t, "full.yaml", readTestdata(t, "full.yaml"))
	got := Compare(nil, c)
	if len(got) != 1+len(c.Endpoints) || got[0].Row != wholeContract || got[0].Class != Notable {
		t.Fatalf("new contract: %+v", got)
	}
	for _, ch := range got[1:] {
		if ch.Row != "endpoints[]" || ch.Direction != Added || ch.Endpoint == "" {
			t.Errorf("new contract endpoint: %+v", ch)
		}
	}
	got = Compare(c, nil)
	if len(got) != 1 || got[0].Class != Breaking || got[0].Direction != Removed {
		t.Fatalf("deleted contract: %+v", got)
	}
}

func TestEndpointsMatchByShape(t *testing.T) {
	full := readTestdata(t, "full.yaml")
	old := parse(t, "old.yaml", full)
	// Moving an endpoint and renaming its path parameter is not a removal.
	moved := edit(t, full, "endpoints[1]", absent)
	moved = edit(t, moved, "endpoints[2]", "{operation: \"GET /v1/transfers/{transfer_id}\", effect: read, key: none}")
	got := Compare(old, parse(t, "new.yaml", moved))
	if len(got) != 1 || got[0].Row != "endpoints[].operation" || got[0].Class != Compatible || got[0].Field != "endpoints[2].operation" {
		t.Fatalf("got %+v", got)
	}
	// Another method on the same path is another endpoint.
	other := edit(t, full, "endpoints[1].operation", "\"DELETE /v1/transfers/{id}\"")
	got = Compare(old, parse(t, "new.yaml", other))
	var dirs []string
	for _, c := range got {
		dirs = append(dirs, c.Field+" "+string(c.Direction))
	}
	if strings.Join(dirs, ",") != "endpoints[1] removed,endpoints[1] added" {
		t.Fatalf("got %v", dirs)
	}
}

func TestAcknowledgements(t *testing.T) {
	full := readTestdata(t, "full.yaml")
	old := parse(t, "old.yaml", full)
	shorter := edit(t, full, "idempotency.replay_window", "12h")
	shorter = edit(t, shorter, "endpoints[0].key", "none")
	for _, tc := range []struct {
		name, field string
		window, key bool
	}{
		{"exact field", "idempotency.replay_window", true, false},
		{"parent section", "idempotency", true, false},
		{"endpoint by index", "endpoints[0].key", false, true},
		{"endpoint by operation", "endpoints[POST /v1/transfers].key", false, true},
		{"endpoint by operation, whole", "endpoints[post /v1/transfers]", false, true},
		{"row pattern", "endpoints[].key", false, true},
		{"another endpoint", "endpoints[GET /v1/transfers/{x}].key", false, false},
		{"sibling field", "idempotency.replay_window_x", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := edit(t, shorter, "changes[1]", "{field: \""+tc.field+"\", because: \"partners confirmed\"}")
			new := parse(t, "new.yaml", src)
			got := map[string]bool{}
			for _, c := range Compare(old, new) {
				if c.Acknowledged {
					if c.Because != "partners confirmed" {
						t.Errorf("because %q", c.Because)
					}
					got[c.Row] = true
				}
			}
			if got["idempotency.replay_window"] != tc.window || got["endpoints[].key"] != tc.key {
				t.Errorf("acknowledged %v; want window %v key %v", got, tc.window, tc.key)
			}
			if unused := Unused(Compare(old, new), old, new); (len(unused) == 0) != (tc.window || tc.key) {
				t.Errorf("unused %v", unused)
			}
		})
	}
	// An acknowledgement the old contract already had is history: it does
	// not let a new change of the same field through.
	t.Run("old entry", func(t *testing.T) {
		new := parse(t, "new.yaml", edit(t, full, "idempotency.replay_window", "12h"))
		for _, c := range Compare(old, new) {
			if c.Acknowledged {
				t.Errorf("acknowledged by the old contract's entry: %+v", c)
			}
		}
	})
}
