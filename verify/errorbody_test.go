package verify

import (
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestConflictCodeAtErrorBody: with api.error_body set, a conflict's code
// is read at code_at only; without it, from the first "code" member.
func TestConflictCodeAtErrorBody(t *testing.T) {
	conflict := contract.Conflict{Status: 409, Code: "concurrent_idempotent_requests"}
	tests := []struct {
		name string
		at   []string
		body string
		want bool
	}{
		{"default, nested", nil, `{"error":{"code":"concurrent_idempotent_requests"}}`, true},
		{"flat name", []string{"name"}, `{"statusCode":409,"name":"concurrent_idempotent_requests","message":"x"}`, true},
		{"flat name, code elsewhere", []string{"name"}, `{"code":"concurrent_idempotent_requests","name":"other"}`, false},
		{"default misses a flat name", nil, `{"name":"concurrent_idempotent_requests"}`, false},
		{"json-api", []string{"errors", "0", "code"}, `{"errors":[{"code":"concurrent_idempotent_requests"}]}`, true},
		{"json-api, empty list", []string{"errors", "0", "code"}, `{"errors":[]}`, false},
		{"not json", []string{"code"}, `concurrent_idempotent_requests`, false},
	}
	for _, tt := range tests {
		c := &contract.Contract{}
		c.API.ErrorBody.CodeAt = tt.at
		r := &runner{c: c}
		if got := r.matches(Response{Status: 409, Body: []byte(tt.body)}, conflict); got != tt.want {
			t.Errorf("%s: matches = %v, want %v", tt.name, got, tt.want)
		}
	}
}
