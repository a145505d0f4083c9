package rules

import (
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// TestRuleCases pins the behaviour at each rule's edges: the message quotes
// the contract's own figures, the finding points at the value, and
// severity tiers hold.
func TestRuleCases(t *testing.T) {
	tests := []struct {
		name     string
		fragment string
		rule     string // "" = no finding from any rule
		severity findings.Severity
		path     string
		message  string // substring
	}{
		{"window shorter than chain quotes both figures", "idempotency:\n  replay_window: 24h\n  reaper_after: 30d\n  longest_retry_chain: { duration: 6d, because: \"weekly replays\" }\n",
			"window/shorter-than-retry-chain", findings.Error, "idempotency.replay_window",
			"replay_window 24h is shorter than longest_retry_chain 6d: a retry on day 2 is treated as a new request and repeats the side effect"},
		{"window not whole days", "idempotency:\n  replay_window: 90m\n  longest_retry_chain: 2h\n",
			"window/shorter-than-retry-chain", findings.Error, "idempotency.replay_window", "a retry after 90m"},
		{"window equal to chain is fine", "idempotency:\n  replay_window: 2h\n  reaper_after: 6h\n  longest_retry_chain: 2h\n", "", 0, "", ""},
		{"reaper missing", "idempotency:\n  reaper_after: ~\n", "window/no-reaper-horizon", findings.Error, "idempotency.reaper_after", "add reaper_after: 3d"},
		{"reaper shorter", "idempotency:\n  replay_window: 48h\n  reaper_after: 24h\n", "window/no-reaper-horizon", findings.Error, "idempotency.reaper_after", "reaper_after 24h is not longer than replay_window 48h"},
		{"4 attempts warn", "retry:\n  max_attempts: 4\n", "retry/too-many-attempts", findings.Warning, "retry.max_attempts", "max_attempts is 4"},
		{"5 attempts warn", "retry:\n  max_attempts: 5\n", "retry/too-many-attempts", findings.Warning, "retry.max_attempts", "max_attempts is 5"},
		{"6 attempts error", "retry:\n  max_attempts: 6\n", "retry/too-many-attempts", findings.Error, "retry.max_attempts", "max_attempts is 6"},
		{"3 attempts fine", "retry:\n  max_attempts: 3\n", "", 0, "", ""},
		{"401 retried", "retry:\n  statuses: [401, 429, 503]\n", "retry/client-error", findings.Error, "retry.statuses[0]", "the client retries 401 (retry.statuses): a client error"},
		{"4XX class retried", "retry:\n  statuses: [4XX, 503]\n", "retry/client-error", findings.Error, "retry.statuses[0]", "4XX"},
		{"cautious 409", "retry:\n  cautious_statuses: [409]\n", "retry/client-error", findings.Error, "retry.cautious_statuses[0]", "409"},
		{"5XX includes 500", "retry:\n  statuses: [429, 5XX]\n  cautious_statuses: []\n", "retry/500-not-cautious", findings.Warning, "retry.statuses[1]", "statuses retries 5XX, 500 included, on every attempt"},
		{"no statuses listed", "retry:\n  statuses: ~\n  cautious_statuses: ~\n", "retry/any-error", findings.Error, "retry.statuses", "no statuses allowlist"},
		{"retry-after ignored without 429 is fine", "retry:\n  statuses: [502, 503, 504]\n  honor_retry_after: false\n", "", 0, "", ""},
		{"equal jitter", "retry:\n  backoff: { jitter: equal }\n", "retry/no-jitter", findings.Error, "retry.backoff.jitter", "jitter is equal"},
		{"decorrelated jitter with reason", "retry:\n  backoff: { jitter: decorrelated, because: \"checkout has a 3s deadline\" }\n", "", 0, "", ""},
		{"factor too high", "retry:\n  attempt_timeout: { p99: 1s, factor: 5 }\n", "retry/timeout-not-from-p99", findings.Warning, "retry.attempt_timeout.factor", "factor 5 times p99 1s gives 5s"},
		{"factor 3 is inside", "retry:\n  attempt_timeout: { p99: 1s, factor: 3 }\n", "", 0, "", ""},
		{"stacking with timeout in place", "retry:\n  stacking: [retry, circuit-breaker, rate-limiter, timeout, bulkhead]\n", "", 0, "", ""},
		{"stacking bulkhead first", "retry:\n  stacking: [bulkhead, retry]\n", "retry/stacking-order", findings.Error, "retry.stacking", "write stacking: [retry, bulkhead]"},
		{"timeouts not retried: unkeyed create is still unsafe", "retry:\n  connection_errors: [reset]\nendpoints:\n  - { operation: POST /v1/a, effect: create, key: none }\n",
			"endpoint/unsafe-without-key", findings.Error, "endpoints[0].key", "POST /v1/a has effect create but key none"},
		{"optional key protects", "endpoints:\n  - { operation: POST /v1/a, effect: append, key: optional, external_calls: [] }\n", "", 0, "", ""},
		{"PUT append unkeyed", "endpoints:\n  - { operation: PUT /v1/log, effect: append, key: none }\n", "endpoint/method-trusted", findings.Error, "endpoints[0].key", "PUT /v1/log has effect append"},
		{"PUT replace unkeyed is fine", "endpoints:\n  - { operation: \"PUT /v1/items/{id}\", effect: replace, key: none }\n", "", 0, "", ""},
		{"PUT append documented unsafe", "retry:\n  connection_errors: [reset]\nendpoints:\n  - { operation: PUT /v1/log, effect: append, key: none, unsafe_to_retry: \"Appends a line each call.\" }\n", "", 0, "", ""},
		{"recovery points: N+1 needed", "endpoints:\n  - { operation: POST /v1/a, effect: create, key: required, external_calls: [x, y], recovery_points: [a, b] }\n",
			"endpoint/no-recovery-points", findings.Error, "endpoints[0].recovery_points", "makes 2 external calls (x, y) but lists 2 recovery points; it needs at least 3"},
		{"recovery points absent point at calls", "endpoints:\n  - { operation: POST /v1/a, effect: create, key: required, external_calls: [x] }\n",
			"endpoint/no-recovery-points", findings.Error, "endpoints[0].external_calls", "makes 1 external call (x) but lists 0 recovery points"},
		{"memory store", "idempotency:\n  claim: { store: memory, mechanism: unique-constraint }\n", "claim/mechanism-store-mismatch", findings.Error, "idempotency.claim.mechanism", "in-process memory store"},
		{"redis unique constraint", "idempotency:\n  claim: { store: redis, mechanism: unique-constraint }\n", "claim/mechanism-store-mismatch", findings.Error, "idempotency.claim.mechanism", "redis is a cache"},
		{"postgres conditional write", "idempotency:\n  claim: { store: postgres, mechanism: conditional-write }\n", "claim/mechanism-store-mismatch", findings.Error, "idempotency.claim.mechanism", "postgres is relational"},
		{"mysql row lock for a request that calls a bank", "idempotency:\n  claim: { store: mysql, mechanism: row-lock-serializable }\n" +
			"endpoints:\n  - { operation: POST /v1/a, effect: create, key: required, external_calls: [charge_bank], recovery_points: [started, bank_charged], max_duration: 30s }\n", "", 0, "", ""},
		{"mysql row lock with no external calls", "idempotency:\n  claim: { store: mysql, mechanism: row-lock-serializable }\n",
			"claim/row-lock-without-external-calls", findings.Warning, "idempotency.claim.mechanism", "none of the 1 keyed endpoint calls another system"},
		{"memcached lock beside its rows in one transaction", "idempotency:\n  claim: { store: memcached, mechanism: lock, fencing_tokens: true, same_transaction: true, data_store: memcached }\n",
			"claim/same-transaction-without-transactions", findings.Error, "idempotency.claim.data_store", "live in memcached, which commits one item at a time"},
		{"memcached lock, rows beside it", "idempotency:\n  claim: { store: memcached, mechanism: lock, fencing_tokens: true, same_transaction: true }\n",
			"claim/same-transaction-without-transactions", findings.Error, "idempotency.claim.store", "same_transaction: true cannot hold"},
		{"redis lock, rows beside it", "idempotency:\n  claim: { store: redis, mechanism: lock, fencing_tokens: true, same_transaction: true }\n", "", 0, "", ""},
		{"cosmos conditional", "idempotency:\n  claim: { store: cosmosdb, mechanism: conditional-write }\n", "", 0, "", ""},
		{"in_flight without response", "idempotency:\n  in_flight: { response: ~, lock_timeout: 5m }\n", "state/no-in-flight", findings.Error, "idempotency.in_flight.response", "in_flight has no response"},
		{"takeover pass-through", "idempotency:\n  in_flight: { response: conflict, lock_timeout: 5m, takeover: pass-through }\n", "state/pass-through", findings.Error, "idempotency.in_flight.takeover", "after lock_timeout 5m"},
		{"codes differ, statuses equal", "idempotency:\n  conflicts:\n    payload_mismatch: { status: 422, code: a_b }\n    in_flight: { status: 422, code: c_d }\n", "", 0, "", ""},
		{"timestamp derivation", "idempotency:\n  derivation: [{ kind: timestamp }]\n", "key/fresh-per-attempt", findings.Error, "idempotency.derivation[0].kind", "derivation timestamp"},
		{"no sdk section", "sdk: ~\n", "", 0, "", ""},
		{"recovery section absent", "idempotency:\n  recovery: ~\n", "recovery/no-completer", findings.Warning, "idempotency.recovery.completer", "no completer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := example(t, tt.fragment)
			fs := unwaived(lint(t, "retryspec.yaml", src))
			if tt.rule == "" {
				if len(fs) > 0 {
					t.Fatalf("want no findings, got %v", fs)
				}
				return
			}
			var got *findings.Finding
			for i := range fs {
				if fs[i].Rule == tt.rule {
					got = &fs[i]
					break
				}
			}
			if got == nil {
				t.Fatalf("%s did not fire; findings: %v", tt.rule, fs)
			}
			if got.Severity != tt.severity {
				t.Errorf("severity = %v, want %v", got.Severity, tt.severity)
			}
			if got.Path != tt.path {
				t.Errorf("path = %q, want %q", got.Path, tt.path)
			}
			if !strings.Contains(got.Message+" "+got.Fix, tt.message) {
				t.Errorf("message %q (fix %q) lacks %q", got.Message, got.Fix, tt.message)
			}
			if got.Fix == "" {
				t.Error("finding has no fix")
			}
		})
	}
}

// TestFindingPointsAtValue checks that a finding's line and column are
// those of the offending value in the file.
func TestFindingPointsAtValue(t *testing.T) {
	src := strings.Replace(string(contract.Starter(contract.StarterOptions{Answered: true})), "max_attempts: 3 ", "max_attempts: 7 ", 1)
	fs := lint(t, "retryspec.yaml", []byte(src))
	if len(fs) != 1 {
		t.Fatalf("want one finding, got %v", fs)
	}
	f := fs[0]
	lines := strings.Split(src, "\n")
	line := lines[f.Line-1]
	if !strings.HasPrefix(line[f.Column-1:], "7 ") {
		t.Errorf("finding at %d:%d points at %q, want the value 7", f.Line, f.Column, line[f.Column-1:])
	}
	if f.File != "retryspec.yaml" {
		t.Errorf("file = %q", f.File)
	}
}

func TestWaivers(t *testing.T) {
	tests := []struct {
		name    string
		frag    string
		waived  []string // rules whose findings are waived
		reports []string // lint rules that fire
	}{
		{"waiver applies", "retry:\n  budget: ~\nlint:\n  waive:\n    - { rule: retry/no-budget, because: \"batch only\" }\n", []string{"retry/no-budget"}, nil},
		{"path scopes a waiver", "endpoints:\n  - { operation: POST /v1/a, effect: create, key: none }\n  - { operation: POST /v1/b, effect: create, key: none }\n" +
			"retry:\n  connection_errors: [reset]\nlint:\n  waive:\n    - { rule: endpoint/unsafe-without-key, path: \"endpoints[1]\", because: \"internal\" }\n",
			[]string{"endpoint/unsafe-without-key"}, nil},
		{"unknown rule", "lint:\n  waive:\n    - { rule: retry/no-budgte, because: \"x\" }\n", nil, []string{"lint/unknown-waiver"}},
		{"unused waiver", "lint:\n  waive:\n    - { rule: retry/no-jitter, because: \"x\" }\n", nil, []string{"lint/unused-waiver"}},
		{"copy waivers are not contract findings", "lint:\n  waive:\n    - { rule: copy/exactly-once, because: \"x\" }\n", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := lint(t, "retryspec.yaml", example(t, tt.frag))
			var waived, reports []string
			for _, f := range fs {
				if f.Waived {
					waived = append(waived, f.Rule)
					if f.WaivedBecause == "" {
						t.Errorf("waived %s without its reason", f.Rule)
					}
				} else if strings.HasPrefix(f.Rule, "lint/") {
					reports = append(reports, f.Rule)
				}
			}
			if strings.Join(waived, ",") != strings.Join(tt.waived, ",") || strings.Join(reports, ",") != strings.Join(tt.reports, ",") {
				t.Errorf("waived %v, reported %v; want %v, %v\nall: %v", waived, reports, tt.waived, tt.reports, fs)
			}
		})
	}
	fs := lint(t, "retryspec.yaml", example(t, "lint:\n  waive:\n    - { rule: retry/no-budgte, because: \"x\" }\n"))
	if len(fs) != 1 || !strings.Contains(fs[0].Fix, "retry/no-budget") || fs[0].Path != "lint.waive[0].rule" {
		t.Errorf("unknown waiver finding = %+v, want a did-you-mean at lint.waive[0].rule", fs)
	}
}

func TestMarkWaived(t *testing.T) {
	src := example(t, "lint:\n  waive:\n    - { rule: endpoint/unclassified, because: \"internal admin routes\" }\n")
	c, err := contract.Parse("retryspec.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	if fs := Run(c); len(fs) != 0 {
		t.Fatalf("an openapi-scope waiver is not unused when check runs without --openapi: %v", fs)
	}
	drift := []findings.Finding{{Rule: "endpoint/unclassified", Severity: findings.Error, Message: "POST /admin/x is not classified"},
		{Rule: "endpoint/unknown", Severity: findings.Warning, Message: "GET /v1/y is not in the spec"}}
	MarkWaived(c, drift)
	if !drift[0].Waived || drift[0].WaivedBecause != "internal admin routes" || drift[1].Waived {
		t.Errorf("MarkWaived: %+v", drift)
	}
}
