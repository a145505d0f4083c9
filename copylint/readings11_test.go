package copylint

import (
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestMethodMessageNamesTheClaim: the method-idempotency finding names
// the method the sentence claims (POST, PATCH, both, or every method)
// and the standard that contradicts it, with a contract and without
// one; with a contract, a claim about PATCH names the contract's PATCH
// endpoints and its fix is in the contract's words. A clean counterpart
// stays clean.
func TestMethodMessageNamesTheClaim(t *testing.T) {
	payouts := prefilterContract(t)
	// The same contract with a keyed PATCH endpoint: a PATCH claim is
	// judged by it alone.
	withPatch := *payouts
	withPatch.Endpoints = append(append([]contract.Endpoint(nil), payouts.Endpoints...), contract.Endpoint{
		Operation: "PATCH /v1/transfers/{id}", Method: "PATCH", Path: "/v1/transfers/{id}",
		Effect: contract.EffectReplace, Key: contract.KeyRequired,
	})
	header := payouts.Idempotency.Header
	cases := []struct {
		c             *contract.Contract
		text          string
		want, notWant []string // in the message ("" text: no finding)
		fix           string
	}{
		{payouts, "All our POSTs are idempotent.", []string{"says POST is idempotent", "RFC 9110 does not make POST idempotent", "POST /v1/transfers is idempotent only with " + header}, []string{"PATCH", "every HTTP method"}, "retry POST /v1/transfers only with the same " + header},
		{payouts, "Our PATCH handlers are idempotent by design.", []string{"says PATCH is idempotent", "RFC 5789 makes PATCH neither safe nor idempotent"}, []string{"says a POST", "every HTTP method"}, "retry POST /v1/transfers only with the same " + header},
		{&withPatch, "Our PATCH handlers are idempotent by design.", []string{"says PATCH is idempotent", "PATCH /v1/transfers/{id} is idempotent only with " + header}, []string{"POST /v1/reports"}, "retry PATCH /v1/transfers/{id} only with the same " + header},
		{payouts, "POST and PATCH requests are idempotent here.", []string{"says POST and PATCH are idempotent", "nor RFC 5789 PATCH"}, nil, ""},
		{payouts, "In this API every HTTP method is idempotent by design.", []string{"says every HTTP method is idempotent"}, []string{"says POST is", "says PATCH"}, ""},
		{nil, "Our PATCH handlers are idempotent by design.", []string{"says PATCH is idempotent; RFC 5789"}, []string{"POST"}, "name the endpoints that are idempotent"},
		{nil, "Every verb is idempotent across our API.", []string{"says every HTTP method is idempotent; RFC 9110"}, nil, ""},
		{payouts, "PATCH is idempotent only when you send the full resource.", nil, nil, ""},
	}
	for _, tc := range cases {
		var got []string
		fix := ""
		for _, f := range LintSource(tc.c, "page.md", []byte(tc.text+"\n")) {
			if f.Rule == RuleMethodIdempotency {
				got = append(got, f.Message)
				fix = f.Fix
			}
		}
		if tc.want == nil {
			if len(got) > 0 {
				t.Errorf("%q: want no method finding, got %q", tc.text, got)
			}
			continue
		}
		if len(got) != 1 {
			t.Errorf("%q: want one method finding, got %q", tc.text, got)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(got[0], w) {
				t.Errorf("%q: message %q lacks %q", tc.text, got[0], w)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(got[0], w) {
				t.Errorf("%q: message %q names %q", tc.text, got[0], w)
			}
		}
		if !strings.Contains(fix, tc.fix) {
			t.Errorf("%q: fix %q lacks %q", tc.text, fix, tc.fix)
		}
	}
}
