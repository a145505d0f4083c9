package rules

import (
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestFirstRunMisses: the designs day-one contracts most often got past
// check are reported where they are written, each with its reason.
func TestFirstRunMisses(t *testing.T) {
	runRuleCases(t, []ruleCase{
		// The server hashes the body and clients derive nothing.
		{"server-derived key with no derivation", "idempotency:\n  key_source: server-derived\n  derivation: []\n",
			[]string{"key/server-derived"}, "key/server-derived", "idempotency.key_source",
			[]string{"hash of the request (fingerprint sha256-body)", "derivation is empty", "key_source: client"}},
		{"server-derived key with global scope", "idempotency:\n  key_source: server-derived\n  derivation: []\n  scope: global\n",
			[]string{"key/global-scope", "key/server-derived"}, "key/global-scope", "idempotency.scope",
			[]string{"the server's hash of the request (fingerprint sha256-body)", "first account's stored response", "scope: account"}},
		{"server-derived key without a fingerprint names the whole request", "idempotency:\n  key_source: server-derived\n  derivation: []\n  fingerprint: none\n",
			[]string{"key/no-fingerprint", "key/server-derived"}, "key/server-derived", "idempotency.key_source", []string{"the whole request"}},

		// The lock must outlast the attempt, not only match it.
		{"lock_timeout equal to the attempt timeout", "idempotency:\n  in_flight: { response: conflict, lock_timeout: 2s }\n",
			[]string{"state/lock-timeout-below-request"}, "state/lock-timeout-below-request", "idempotency.in_flight.lock_timeout",
			[]string{"lock_timeout 2s is no longer than the attempt timeout 2s", "lock_timeout: 4s"}},
		{"lock_timeout just above the attempt timeout", "idempotency:\n  in_flight: { response: conflict, lock_timeout: 2001ms }\n", nil, "", "", nil},
		{"max_duration asked for a keyed endpoint with external calls",
			"endpoints:\n  - { operation: POST /v1/a, effect: create, key: required, external_calls: [charge_bank], recovery_points: [started, bank_charged] }\n",
			[]string{"endpoint/max-duration-unstated"}, "endpoint/max-duration-unstated", "endpoints[0]",
			[]string{"POST /v1/a calls charge_bank but states no max_duration", "lock_timeout 2m", "add max_duration:"}},
		{"max_duration compared with the lock",
			"endpoints:\n  - { operation: POST /v1/a, effect: create, key: required, external_calls: [charge_bank], recovery_points: [started, bank_charged], max_duration: 2m }\n",
			[]string{"state/lock-timeout-below-request"}, "state/lock-timeout-below-request", "idempotency.in_flight.lock_timeout",
			[]string{"no longer than POST /v1/a's max_duration 2m", "lock_timeout: 4m"}},
		{"no external calls, no max_duration needed", "endpoints:\n  - { operation: POST /v1/a, effect: create, key: required, external_calls: [] }\n", nil, "", "", nil},

		// A schedule whose jitter nobody chose.
		{"flat schedule without jitter", "retry:\n  backoff: { jitter: ~, base: 100ms, cap: 100ms, multiplier: 1 }\n",
			[]string{"retry/jitter-unstated"}, "retry/jitter-unstated", "retry.backoff",
			[]string{"base 100ms, cap 100ms, multiplier 1", "does not say which jitter", "jitter: full"}},
		{"flat schedule with jitter none asks to grow it", "retry:\n  backoff: { jitter: none, base: 100ms, cap: 100ms, multiplier: 1 }\n",
			[]string{"retry/no-jitter"}, "retry/no-jitter", "retry.backoff.jitter",
			[]string{"the schedule is also flat", "jitter: full, multiplier: 2 and cap: 30s"}},

		// A PUT or DELETE whose summary says it repeats its effect.
		{"PUT that appends", "endpoints:\n  - { operation: \"PUT /v1/carts/{id}/items\", effect: replace, key: optional, external_calls: [], summary: Appends an item to the cart }\n",
			[]string{"endpoint/summary-contradicts-effect"}, "endpoint/summary-contradicts-effect", "endpoints[0].effect",
			[]string{`says "Appends"`, `"Appends an item to the cart"`, "set effect: append and key: required"}},
		{"DELETE that decrements", "endpoints:\n  - { operation: \"DELETE /v1/items/{id}/stock\", effect: delete, key: none, summary: Decrements the stock count }\n",
			[]string{"endpoint/summary-contradicts-effect"}, "endpoint/summary-contradicts-effect", "endpoints[0].effect",
			[]string{`says "Decrements"`, "set effect: decrement"}},
		{"PUT that charges", "endpoints:\n  - { operation: \"PUT /v1/subscriptions/{id}\", effect: replace, key: optional, external_calls: [], summary: Renews the plan and charges the card }\n",
			[]string{"endpoint/summary-contradicts-effect"}, "endpoint/summary-contradicts-effect", "endpoints[0].effect",
			[]string{`says "charges"`, "set effect: action"}},
		{"PUT that replaces", "endpoints:\n  - { operation: \"PUT /v1/carts/{id}\", effect: replace, key: optional, external_calls: [], summary: Replaces the cart }\n", nil, "", "", nil},
		{"a word inside another is not the verb", "endpoints:\n  - { operation: \"PUT /v1/carts/{id}\", effect: replace, key: optional, external_calls: [], summary: Sets the chargeback_policy field }\n", nil, "", "", nil},
	})
}

// TestDerivationEmptyStillRefusedForClientKeys: an empty list is a load
// error when clients mint the key, since the docs would recommend nothing.
func TestDerivationEmptyStillRefusedForClientKeys(t *testing.T) {
	_, err := contract.Parse("retryspec.yaml", example(t, "idempotency:\n  derivation: []\n"))
	if err == nil || !strings.Contains(err.Error(), "derivation is empty") {
		t.Fatalf("err = %v, want the empty derivation refused", err)
	}
}
