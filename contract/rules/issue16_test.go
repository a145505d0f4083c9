package rules

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// Issue 16: a flawed design must be caught on the first run however the
// team writes it down, and a sound one must pass. Each case below failed on
// the main branch before the issue's rules existed (a flaw that passed
// silently, or a false alarm on a sound design).

// rulesFired lists the unwaived rule IDs of fs, sorted, without repeats.
func rulesFired(fs []findings.Finding) []string {
	var ids []string
	for _, f := range unwaived(fs) {
		if !slices.Contains(ids, f.Rule) {
			ids = append(ids, f.Rule)
		}
	}
	slices.Sort(ids)
	return ids
}

func finding(fs []findings.Finding, rule string) *findings.Finding {
	for i := range fs {
		if fs[i].Rule == rule && !fs[i].Waived {
			return &fs[i]
		}
	}
	return nil
}

func TestIssue16Cases(t *testing.T) {
	tests := []ruleCase{
		// 1. Nothing important silently absent.
		{"1 keyed create without external_calls", "endpoints:\n  - { operation: POST /v1/a, effect: create, key: required }\n",
			[]string{"endpoint/external-calls-unstated"}, "endpoint/external-calls-unstated", "endpoints[0]",
			[]string{"POST /v1/a", "does not say whether it calls other systems", "is not read as none", "external_calls: []"}},
		{"1 external_calls: [] is an answer", "endpoints:\n  - { operation: POST /v1/a, effect: create, key: required, external_calls: [] }\n", nil, "", "", nil},
		{"1 keyed replace must answer too", "endpoints:\n  - { operation: \"PUT /v1/a/{id}\", effect: replace, key: optional }\n",
			[]string{"endpoint/external-calls-unstated"}, "endpoint/external-calls-unstated", "endpoints[0]", nil},
		{"1 an unkeyed read need not answer", "endpoints:\n  - { operation: GET /v1/a, effect: read, key: none }\n", nil, "", "", nil},
		{"1 longest_retry_chain absent asks the question", "idempotency:\n  longest_retry_chain: ~\n",
			[]string{"window/retry-chain-unstated"}, "window/retry-chain-unstated", "idempotency.longest_retry_chain",
			[]string{"max_elapsed 60s", "dead-letter replay", "runbook", "webhook", "replay_window 24h", "is not taken to be"}},
		{"1 attempt_timeout absent states the default", "retry:\n  attempt_timeout: ~\n",
			[]string{"retry/timeout-not-from-p99"}, "retry/timeout-not-from-p99", "retry.attempt_timeout",
			[]string{"not set", "use 20s", "max_elapsed 60s shared by 3 attempts"}},

		// 2. Values compared with each other.
		{"2 lock_timeout below the attempt timeout", "idempotency:\n  in_flight: { response: conflict, lock_timeout: 1s, takeover: none }\n",
			[]string{"state/lock-timeout-below-request"}, "state/lock-timeout-below-request", "idempotency.in_flight.lock_timeout",
			[]string{"lock_timeout 1s is shorter than the attempt timeout 2s", "takeover none does not change this"}},
		{"2 lock_timeout below a stated handler duration",
			"endpoints:\n  - { operation: POST /v1/a, effect: create, key: required, external_calls: [], max_duration: 5m }\n",
			[]string{"state/lock-timeout-below-request"}, "state/lock-timeout-below-request", "idempotency.in_flight.lock_timeout",
			[]string{"POST /v1/a's max_duration 5m"}},
		{"2 lock_timeout above the handler is fine",
			"endpoints:\n  - { operation: POST /v1/a, effect: create, key: required, external_calls: [], max_duration: 90s }\n", nil, "", "", nil},
		{"2 redis claim in the same transaction as postgres rows",
			"idempotency:\n  claim: { store: redis, mechanism: lock, fencing_tokens: true, same_transaction: true, data_store: postgres }\n",
			[]string{"claim/cross-store-transaction"}, "claim/cross-store-transaction", "idempotency.claim.data_store",
			[]string{"the claim lives in redis but the data in postgres"}},
		{"2 redis claim beside redis data", "idempotency:\n  claim: { store: redis, mechanism: lock, fencing_tokens: true, data_store: redis }\n", nil, "", "", nil},
		{"2 uuid-reused ranked above event-derived",
			"idempotency:\n  derivation: [{ kind: uuid-reused }, { kind: request-scoped }, { kind: event-derived }]\n",
			[]string{"key/derivation-order"}, "key/derivation-order", "idempotency.derivation[1].kind",
			[]string{"ranks uuid-reused above request-scoped", "integrators take the first recommendation"}},
		{"2 a two-rung ranking in order", "idempotency:\n  derivation: [{ kind: request-scoped }, { kind: uuid-reused }]\n", nil, "", "", nil},
		{"2 recovery points out of call order",
			"endpoints:\n  - { operation: POST /v1/a, effect: create, key: required, external_calls: [charge_bank, send_receipt], recovery_points: [started, receipt_sent, bank_charged, finished], max_duration: 30s }\n",
			[]string{"endpoint/recovery-point-order"}, "endpoint/recovery-point-order", "endpoints[0].recovery_points",
			[]string{"calls charge_bank then send_receipt, but lists receipt_sent before bank_charged"}},
		{"2 no intent before the first call",
			"endpoints:\n  - { operation: POST /v1/a, effect: create, key: required, external_calls: [charge_bank, send_receipt], recovery_points: [bank_charged, receipt_sent, finished], max_duration: 30s }\n",
			[]string{"endpoint/recovery-point-order"}, "endpoint/recovery-point-order", "endpoints[0].recovery_points",
			[]string{"first recovery point bank_charged is the result of charge_bank"}},
		{"2 the spec's own recovery points bracket each call",
			"endpoints:\n  - { operation: POST /v1/a, effect: create, key: required, external_calls: [charge_bank, send_receipt], recovery_points: [started, transfer_created, bank_charged, receipt_sent, finished], max_duration: 30s }\n",
			nil, "", "", nil},
		{"2 names that say nothing about calls are only counted",
			"endpoints:\n  - { operation: POST /v1/a, effect: create, key: required, external_calls: [x1, y1], recovery_points: [p1, p2, p3], max_duration: 30s }\n",
			nil, "", "", nil},
		{"2 too few points still reported by count",
			"endpoints:\n  - { operation: POST /v1/a, effect: create, key: required, external_calls: [charge_bank], recovery_points: [bank_charged], max_duration: 30s }\n",
			[]string{"endpoint/no-recovery-points"}, "endpoint/no-recovery-points", "endpoints[0].recovery_points",
			[]string{"recording its intent", "recording its result"}},

		// 3. No false alarms on sound designs.
		{"3 cosmos db unique keys per partition", "idempotency:\n  claim: { store: cosmosdb, mechanism: unique-constraint }\n", nil, "", "", nil},
		{"3 cosmos db has no row locks", "idempotency:\n  claim: { store: cosmosdb, mechanism: row-lock-serializable }\n",
			[]string{"claim/mechanism-store-mismatch"}, "claim/mechanism-store-mismatch", "idempotency.claim.mechanism", []string{"cosmosdb has no row locks"}},
		{"3 five attempts for a bounded batch caller (no sdk)", "sdk: ~\nretry:\n  max_attempts: 5\n", nil, "", "", nil},
		{"3 five attempts without a budget (no sdk)", "sdk: ~\nretry:\n  max_attempts: 5\n  budget: ~\n",
			[]string{"retry/no-budget", "retry/too-many-attempts"}, "retry/too-many-attempts", "retry.max_attempts", []string{"max_attempts is 5 with no retry budget"}},
		{"3 five attempts as SDK default", "retry:\n  max_attempts: 5\n",
			[]string{"retry/too-many-attempts"}, "retry/too-many-attempts", "retry.max_attempts", []string{"the default of the SDKs"}},

		// 4. propagate_deadline: false gets a finding.
		{"4 deadline not propagated", "retry:\n  propagate_deadline: false\n",
			[]string{"retry/deadline-not-propagated"}, "retry/deadline-not-propagated", "retry.propagate_deadline", []string{"after the caller's 60s bound"}},

		// 5. A proposed PUT/DELETE is refused until reviewed.
		{"5 unreviewed PUT", "endpoints:\n  - { operation: \"PUT /v1/a/{id}\", effect: replace, key: optional, external_calls: [], reviewed: false }\n",
			[]string{"endpoint/unreviewed-effect"}, "endpoint/unreviewed-effect", "endpoints[0].reviewed",
			[]string{"PUT /v1/a/{id} is proposed as effect replace but not reviewed", "appends", "counter", "notification", "delete reviewed: false"}},
		{"5 reviewed: true is the person's word", "endpoints:\n  - { operation: \"PUT /v1/a/{id}\", effect: replace, key: optional, external_calls: [], reviewed: true }\n", nil, "", "", nil},

		// Issue 15 item 11: a class and an explicit cautious status. Under
		// the starter's stored_failures: replay the class's other codes
		// (501, ...) are stored and retried on every attempt.
		{"15.11 5XX with 500 cautious", "retry:\n  statuses: [429, 5XX]\n  cautious_statuses: [500]\n",
			[]string{"state/retried-status-replayed"}, "state/retried-status-replayed", "retry.statuses[1]", []string{"5XX, 501 included"}},
		{"15.11 5XX with 500 cautious, 5xx not stored", "idempotency:\n  stored_failures: reattempt\nretry:\n  statuses: [429, 5XX]\n  cautious_statuses: [500]\n", nil, "", "", nil},
		{"15.11 500 listed both ways is cautious", "retry:\n  statuses: [429, 500, 503]\n  cautious_statuses: [500]\n", nil, "", "", nil},
		{"15.11 5XX without cautious 500 still warns", "retry:\n  statuses: [429, 5XX]\n  cautious_statuses: []\n",
			[]string{"retry/500-not-cautious", "state/retried-status-replayed"}, "retry/500-not-cautious", "retry.statuses[1]", []string{"5XX, 500 included"}},
	}
	runRuleCases(t, tests)
}

// ruleCase is a contract fragment, laid over the starter, and what check
// must say about it.
type ruleCase struct {
	item     string
	fragment string
	want     []string // exactly these rules fire
	rule     string   // the finding to inspect, when want is not empty
	path     string
	contains []string // in message + fix
}

func runRuleCases(t *testing.T, tests []ruleCase) {
	for _, tt := range tests {
		t.Run(tt.item, func(t *testing.T) {
			fs := lint(t, "retryspec.yaml", example(t, tt.fragment))
			if got := rulesFired(fs); !slices.Equal(got, tt.want) {
				t.Fatalf("rules fired %v, want %v\n%v", got, tt.want, fs)
			}
			if tt.rule == "" {
				return
			}
			f := finding(fs, tt.rule)
			if f.Path != tt.path {
				t.Errorf("path = %q, want %q", f.Path, tt.path)
			}
			for _, s := range tt.contains {
				if !strings.Contains(f.Message+" | "+f.Fix, s) {
					t.Errorf("finding lacks %q:\n%s\nfix: %s", s, f.Message, f.Fix)
				}
			}
			if f.Line == 0 || f.Fix == "" {
				t.Errorf("finding without a position or a fix: %+v", f)
			}
		})
	}
}

// TestStarterAsksTheTeamsQuestions: what init writes is not a placeholder
// that passes. check reports each question only the team can answer, and
// nothing else; answering them leaves a clean contract.
func TestStarterAsksTheTeamsQuestions(t *testing.T) {
	fs := lint(t, "retryspec.yaml", contract.Starter(contract.StarterOptions{}))
	want := []string{"endpoint/external-calls-unstated", "window/retry-chain-unstated"}
	if got := rulesFired(fs); !slices.Equal(got, want) {
		t.Fatalf("init's starter fires %v, want %v: %v", got, want, fs)
	}
	for _, f := range fs {
		if f.Severity != findings.Error {
			t.Errorf("%s is a %v: check must refuse the unanswered starter", f.Rule, f.Severity)
		}
	}
	if fs := lint(t, "retryspec.yaml", contract.Starter(contract.StarterOptions{Answered: true})); len(fs) > 0 {
		t.Errorf("the answered starter has findings: %v", fs)
	}
}

// TestImportedPutDeleteNeedReview: init --openapi's PUT and DELETE
// proposals carry reviewed: false, which check refuses; a POST does not.
func TestImportedPutDeleteNeedReview(t *testing.T) {
	src := contract.Starter(contract.StarterOptions{Answered: true, Endpoints: []contract.StarterEndpoint{
		{Method: "POST", Path: "/v1/orders", Review: "POST creates", ExternalCalls: []string{}},
		{Method: "PUT", Path: "/v1/orders/{id}", Review: "PUT replaces", ExternalCalls: []string{}},
		{Method: "DELETE", Path: "/v1/orders/{id}", Review: "DELETE removes", ExternalCalls: []string{}},
		{Method: "GET", Path: "/v1/orders/{id}", Review: "GET reads"},
	}})
	fs := lint(t, "retryspec.yaml", src)
	var paths []string
	for _, f := range fs {
		if f.Rule != "endpoint/unreviewed-effect" {
			t.Errorf("unexpected finding %v", f)
			continue
		}
		paths = append(paths, f.Path)
	}
	if want := []string{"endpoints[1].reviewed", "endpoints[2].reviewed"}; !slices.Equal(paths, want) {
		t.Errorf("unreviewed findings at %v, want %v\n%s", paths, want, src)
	}
}

// TestSoundVariants: testdata/sound holds a sound contract for each claim
// mechanism on each store family that can arbitrate it, written the way a
// team would (optional fields left out). None may get a finding.
func TestSoundVariants(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "sound", "*.yaml"))
	if err != nil || len(files) < 6 {
		t.Fatalf("want at least 6 sound variants in testdata/sound, found %d (%v)", len(files), err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if fs := unwaived(lint(t, filepath.Base(file), src)); len(fs) > 0 {
				t.Errorf("a sound design gets findings: %v", fs)
			}
		})
	}
}

// TestNewRulesSayWhy: a rule that fires on a contract leaving an answer
// out says, in the message, why the omission matters today (never the
// project's history), so a team whose contract passed before is not
// surprised.
func TestNewRulesSayWhy(t *testing.T) {
	for _, tc := range []struct{ frag, rule, why string }{
		{"endpoints:\n  - { operation: POST /v1/a, effect: create, key: required }\n", "endpoint/external-calls-unstated", "is not read as none"},
		{"idempotency:\n  longest_retry_chain: ~\n", "window/retry-chain-unstated", "is not taken to be the SDK's own retries"},
		{"retry:\n  attempt_timeout: ~\n", "retry/timeout-not-from-p99", "a figure nobody chose"},
		{"retry:\n  backoff: { jitter: ~, base: 100ms, cap: 100ms, multiplier: 1 }\n", "retry/jitter-unstated", "does not say which jitter clients use"},
		{"endpoints:\n  - { operation: POST /v1/a, effect: create, key: required, external_calls: [bank], recovery_points: [started, bank_called] }\n",
			"endpoint/max-duration-unstated", "cannot be compared with how long the handler may run"},
	} {
		fs := lint(t, "retryspec.yaml", example(t, tc.frag))
		f := finding(fs, tc.rule)
		if f == nil || !strings.Contains(f.Message, tc.why) {
			t.Errorf("%s: finding %+v does not say %q", tc.rule, f, tc.why)
		}
		for _, f := range fs {
			for _, history := range []string{"no longer", "now reported", "rather than shown as", "used to", "previously", "anymore"} {
				if strings.Contains(f.Message, history) || strings.Contains(f.Fix, history) {
					t.Errorf("%s speaks of the project's history (%q): %s", f.Rule, history, f.Message)
				}
			}
		}
	}
}
