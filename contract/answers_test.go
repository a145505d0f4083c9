package contract

import (
	"slices"
	"strings"
	"testing"
	"time"
)

const answersBase = `retryspec: 1
api: { name: Acme, base_url: "https://api.acme.example" }
idempotency: { stored_failures: replay }
`

func mustParse(t *testing.T, src string) *Contract {
	t.Helper()
	c, err := Parse("retryspec.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAttemptTimeoutNeverZero (issue 16 item 1): an omitted attempt_timeout
// takes the default the docs and snippets show, never zero.
func TestAttemptTimeoutNeverZero(t *testing.T) {
	for _, tc := range []struct {
		name, retry string
		want        time.Duration
	}{
		{"no retry section", "", 20 * time.Second},
		{"max_elapsed shared by attempts", "retry: { statuses: [503], max_elapsed: 45s, max_attempts: 4 }\n", 11250 * time.Millisecond},
		{"no max_elapsed: the fallback", "retry: { statuses: [503] }\n", DefaultAttemptTimeoutFallback},
		{"stated p99 is kept", "retry: { statuses: [503], attempt_timeout: { p99: 400ms, factor: 3 } }\n", 1200 * time.Millisecond},
		{"stated bare value is kept", "retry: { statuses: [503], attempt_timeout: 7s }\n", 7 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustParse(t, answersBase+tc.retry)
			if got := c.Retry.AttemptTimeout.Value().D; got != tc.want {
				t.Errorf("attempt timeout = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestStatusTreatment (issue 15 item 11): classes and explicit cautious
// statuses are reconciled in one place.
func TestStatusTreatment(t *testing.T) {
	c := mustParse(t, answersBase+"retry: { statuses: [429, 5XX, 503], cautious_statuses: [500] }\n")
	r := c.Retry
	for status, want := range map[int]Treatment{500: RetriedOnce, 502: Retried, 503: Retried, 429: Retried, 404: NotRetried, 400: NotRetried} {
		if got := r.Treatment(status); got != want {
			t.Errorf("Treatment(%d) = %v, want %v", status, got, want)
		}
	}
	p := r.Plan()
	if !slices.Equal(p.Codes, []int{429, 503}) || !slices.Equal(p.Classes, []int{5}) || !slices.Equal(p.Cautious, []int{500}) {
		t.Errorf("Plan = %+v", p)
	}
	if ex := r.ClassExceptions(5); !slices.Equal(ex, []int{500}) {
		t.Errorf("ClassExceptions(5) = %v", ex)
	}
	both := mustParse(t, answersBase+"retry: { statuses: [500, 503], cautious_statuses: [500] }\n").Retry
	if both.Treatment(500) != RetriedOnce || slices.Contains(both.Plan().Codes, 500) {
		t.Errorf("500 listed both ways is not cautious: %+v", both.Plan())
	}
}

// TestAnswerFields: the new fields load with their positions, and a field
// left out is told apart from an empty answer.
func TestAnswerFields(t *testing.T) {
	c := mustParse(t, answersBase[:len(answersBase)-len("idempotency: { stored_failures: replay }\n")]+`idempotency:
  stored_failures: replay
  claim: { store: redis, mechanism: lock, fencing_tokens: true, data_store: postgres }
endpoints:
  - { operation: POST /v1/a, effect: create, key: required, external_calls: [], max_duration: 90s }
  - { operation: POST /v1/b, effect: create, key: required, reviewed: false }
retry: { statuses: [503], fleet: 12 }
`)
	if c.Idempotency.Claim.DataStore != "postgres" || c.Retry.Fleet != 12 {
		t.Errorf("claim %+v fleet %d", c.Idempotency.Claim, c.Retry.Fleet)
	}
	a, b := c.Endpoints[0], c.Endpoints[1]
	if !a.ExternalCallsStated || b.ExternalCallsStated || a.MaxDuration.D != 90*time.Second || a.Unreviewed || !b.Unreviewed {
		t.Errorf("endpoints: %+v / %+v", a, b)
	}
	if p := c.PosOf("idempotency.claim.data_store"); p.Line != 5 {
		t.Errorf("data_store at %+v", p)
	}
	if c.HasRecoveryPoints() {
		t.Error("HasRecoveryPoints with none listed")
	}
}

func TestEmptyDerivationIsAnError(t *testing.T) {
	_, err := Parse("retryspec.yaml", []byte(answersBase[:len(answersBase)-len("idempotency: { stored_failures: replay }\n")]+"idempotency:\n  stored_failures: replay\n  derivation: []\n"))
	if err == nil || !strings.Contains(err.Error(), "retryspec.yaml:5:15: idempotency.derivation is empty") {
		t.Errorf("err = %v", err)
	}
}
