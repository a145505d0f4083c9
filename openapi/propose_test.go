package openapi

import (
	"strings"
	"testing"
)

// TestProposeEffects: the guesses the issue named, and how sure each is.
func TestProposeEffects(t *testing.T) {
	tests := []struct {
		op, effect, key, sure string
	}{
		{"GET /v1/refunds", "read", "none", "sure"},
		{"POST /v1/refunds", "create", "required", "likely"},
		{"POST /v1/accounts/{account}/bank_accounts", "create", "required", "likely"},
		{"POST /domains/claim", "action", "required", "likely"},
		{"POST /emails/{email_id}/cancel", "action", "required", "likely"},
		{"POST /v1/payment_intents/{intent}/confirm", "action", "required", "likely"},
		{"POST /2010-04-01/Accounts/{AccountSid}/Addresses.json", "create", "required", "likely"},
		{"POST /v1/customers/{customer}", "replace", "optional", "a guess"},
		{"POST /v1/reports/{id}/archive", "action", "required", "likely"},
		{"POST /v1/widgets/{id}/frobnicate", "action", "required", "a guess"},
		{"DELETE /v1/refunds/{id}", "delete", "none", "likely"},
		{"POST /emails/batch", "create", "required", "a guess"},
	}
	for _, tt := range tests {
		method, path, _ := strings.Cut(tt.op, " ")
		p := propose(Operation{Method: method, Path: path})
		if p.Effect != tt.effect || p.Key != tt.key || !strings.HasPrefix(p.Reason, tt.sure+": ") {
			t.Errorf("%s: got %s, key %s, %q; want %s, key %s, %s", tt.op, p.Effect, p.Key, p.Reason, tt.effect, tt.key, tt.sure)
		}
	}
}
