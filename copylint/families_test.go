package copylint

import (
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestFamiliesJudgedByContract: a claim family's finding depends on the
// contract's values, not on the words alone. With the payouts contract
// (a keyed create, a non-idempotent action, 24h window, 3 attempts) each
// claim is reported with the contract value it contradicts; with a
// contract whose endpoints are all reads and whose window is 30 days,
// the same sentences about endpoints and retention pass.
func TestFamiliesJudgedByContract(t *testing.T) {
	payouts := prefilterContract(t)
	reads := prefilterContract(t)
	reads.Endpoints = []contract.Endpoint{{Operation: "GET /v1/transfers/{id}", Method: "GET", Path: "/v1/transfers/{id}", Effect: contract.EffectRead, Key: contract.KeyNone}}
	reads.Idempotency.ReplayWindow = contract.Duration{D: 30 * 24 * 3600e9}
	for _, tc := range []struct {
		text      string
		path      string // with the payouts contract; "" for none
		readsPass bool   // no finding with the reads-only contract
	}{
		{"Our SDKs retry automatically, forever, until the request succeeds.", "retry.max_attempts", false},
		{"The client never gives up on a payout.", "retry.max_attempts", false},
		{"You can safely retry any request.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Retries are always safe.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Every endpoint is idempotent.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"Our API is 100% idempotent.", "endpoints[2].effect (POST /v1/reports/{id}/archive)", true},
		{"If a payout times out, just resend it.", "endpoints[0].key (POST /v1/transfers)", true},
		{"You can retry a transfer without a key.", "endpoints[0].key (POST /v1/transfers)", true},
		{"Keys are kept for 30 days.", "idempotency.replay_window", true},
		{"We remember each key for a month.", "idempotency.replay_window", true},
		{"You get a week of replay.", "idempotency.replay_window", false},
		// Hedged and correct copy.
		{"The SDK retries up to 2 times within 60 seconds.", "", true},
		{"Safe to retry with the same key within 24 hours.", "", true},
		{"Not every request is safe to retry.", "", true},
		{"Do not write \"every endpoint is idempotent\".", "", true},
		{"Keys are kept for 24 hours.", "", false},
		{"Stored keys are purged after 72 hours.", "", false},
		{"At most one charge per key.", "", true},
		// A loop length said with another verb of sending again; a stated
		// stop that agrees with the contract is no fixed wait; a denial
		// inside "retries ... forever"; a statement about a named subset.
		{"Declined transfers are resent for up to 10 minutes.", "retry.max_elapsed", false},
		{"Our SDK stops retrying after 60 seconds.", "", false},
		// The contract's longest_retry_chain (6h) is a loop it states.
		{"Our reconciliation job resubmits failed transfers for up to 6 hours.", "", false},
		{"Retries will not continue indefinitely.", "", true},
		{"Only the endpoints flagged safe in the table may be retried without a key.", "", true},
	} {
		fs := LintSource(payouts, "page.md", []byte(tc.text+"\n"))
		var paths []string
		for _, f := range fs {
			paths = append(paths, f.Path)
		}
		switch {
		case tc.path == "" && len(fs) > 0:
			t.Errorf("%q: want no finding, got %v", tc.text, fs)
		case tc.path != "" && (len(fs) != 1 || fs[0].Path != tc.path || fs[0].Rule != RuleContradicts || fs[0].Fix == ""):
			t.Errorf("%q: want one copy/contradicts-contract finding at %s with a fix, got paths %v: %v", tc.text, tc.path, paths, fs)
		}
		if tc.readsPass {
			if fs := LintSource(reads, "page.md", []byte(tc.text+"\n")); len(fs) > 0 {
				t.Errorf("%q: the reads-only contract agrees, want no finding, got %v", tc.text, fs)
			}
		}
	}
}

// TestEveryClaimReported: two claims of one rule in one sentence, and
// several in one paragraph, are each a finding at their own column.
func TestEveryClaimReported(t *testing.T) {
	c := prefilterContract(t)
	text := "Every endpoint is idempotent and all operations are idempotent by design; you will never be charged twice and no duplicate shipments, ever.\n"
	fs := LintSource(c, "page.md", []byte(text))
	var got []string
	for _, f := range fs {
		got = append(got, f.Rule+"@"+itoa(f.Column))
	}
	want := []string{RuleContradicts + "@1", RuleContradicts + "@34", RuleAbsoluteGuarantee + "@84", RuleAbsoluteGuarantee + "@111"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("findings %v, want %v", got, want)
	}
}
