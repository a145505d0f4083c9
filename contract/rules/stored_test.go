package rules

import "testing"

// TestRetriedStatusReplayed: state/retried-status-replayed reads what the
// server stores through contract.Idempotency.Stores, so the published
// rules of Checkout.com (2xx only) and Azure (a 5xx runs again) are
// expressible and clear it, and the retries it leaves alone (502 and 504,
// a cautious 500) stay clean.
func TestRetriedStatusReplayed(t *testing.T) {
	const id = "state/retried-status-replayed"
	azure := "idempotency:\n  stored_failures: reattempt\n  stored_outcomes: 2xx-4xx\n"
	checkout := "idempotency:\n  stored_failures: reattempt\n  stored_outcomes: 2xx\n"
	runRuleCases(t, []ruleCase{
		{"the starter: 502, 504 and a cautious 500 under replay", "", nil, "", "", nil},
		{"replay, 507 retried on every attempt", "retry:\n  statuses: [429, 502, 503, 504, 507]\n",
			[]string{id}, id, "retry.statuses[4]", []string{"retries 507 on every attempt", "stored_outcomes 2xx-5xx", "for 24h", "stored_outcomes: 2xx-4xx with stored_failures: reattempt (as Azure)"}},
		{"stored_outcomes 2xx-5xx, 5XX retried", "idempotency:\n  stored_outcomes: 2xx-5xx\nretry:\n  statuses: [429, 5XX]\n",
			[]string{id}, id, "retry.statuses[1]", []string{"5XX, 501 included,"}},
		{"Azure: a 5xx runs again, 5XX retried", azure + "retry:\n  statuses: [429, 5XX]\n", nil, "", "", nil},
		{"Azure: 2xx-4xx, 409 retried", azure + "retry:\n  statuses: [409, 429, 502, 503, 504]\n",
			[]string{"retry/client-error", id}, id, "retry.statuses[0]", []string{"retries 409 on every attempt", "stored_outcomes: 2xx (as Checkout.com)"}},
		{"Checkout.com: 2xx only, 409 retried", checkout + "retry:\n  statuses: [409, 429, 502, 503, 504]\n", []string{"retry/client-error"}, "", "", nil},
		{"Checkout.com: 2xx only, any status retried", checkout + "retry:\n  statuses: any\n", []string{"retry/any-error"}, "", "", nil},
		{"2xx-5xx, any status retried", "retry:\n  statuses: any\n", []string{"retry/any-error", id}, id, "retry.statuses", []string{"retries any, 400 included,"}},
		{"stored_outcomes alone decides the failure policy", "idempotency:\n  stored_failures: ~\n  stored_outcomes: 2xx-4xx\n", nil, "", "", nil},
	})
}
