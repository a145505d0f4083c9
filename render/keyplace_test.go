package render

import (
	"github.com/retryspec/retryspec/internal/testenv"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

const keyPlaceContract = `retryspec: 1
api: {name: Pay, base_url: https://api.pay.example}
idempotency:
  key_in: body
  key_field: /idempotency_key
  max_key_length: 192
  stored_failures: replay
endpoints:
  - {operation: "POST /v2/payments", effect: create, key: required, external_calls: [], max_key_length: 45, example: {body: {"amount": 100}}}
  - {operation: "POST /v2/refunds", effect: create, key: required, external_calls: [], max_key_length: 45}
  - {operation: "QUERY /v2/payments/search", effect: read}
`

// TestPagesSayWhereTheKeyGoes: with key_in: body, the Idempotent requests
// page, the Overview, the Retrying page and the Errors page put the key in
// the body member, never in a header, and name the per-endpoint bound; the
// example request carries the key in its body and no key header. A QUERY
// is named with the reads, without a key.
func TestPagesSayWhereTheKeyGoes(t *testing.T) {
	c, err := contract.Parse("retryspec.yaml", []byte(keyPlaceContract))
	if err != nil {
		t.Fatal(err)
	}
	ps := pages(t, Inputs{Contract: c})
	for page, want := range map[string][]string{
		"idempotency.md": {
			"Send the key in the `idempotency_key` member of the JSON request body, as a string of at most 192 characters (45 on `POST /v2/payments`, `POST /v2/refunds`).",
			"\n\n{\n  \"idempotency_key\": \"8e03978e-40d5-43e8-bc93-6894a57f9324\",\n  \"amount\": 100\n}\n",
			"Add the `idempotency_key` member to the body.",
			"So is `QUERY /v2/payments/search`: QUERY is the HTTP method for a safe request",
		},
		"index.md": {
			"1. Put a new key in the `idempotency_key` member of the JSON body of every request that changes state",
			"| Idempotency key | the `idempotency_key` member of the JSON body |",
			"| Maximum key length | 192 characters; 45 on `POST /v2/payments`, `POST /v2/refunds` |",
		},
		"retrying.md": {"Here the key travels in the `idempotency_key` member of the JSON body, not in a header"},
		"errors.md":   {"The endpoint requires a key in the `idempotency_key` member of the body"},
	} {
		for _, w := range want {
			if !strings.Contains(ps[page], w) {
				t.Errorf("%s lacks %q", page, w)
			}
		}
		if strings.Contains(ps[page], "Idempotency-Key") {
			t.Errorf("%s names the Idempotency-Key header, but the key travels in the body", page)
		}
	}
	if strings.Contains(ps["idempotency.md"], "| `QUERY /v2/payments/search`") {
		t.Error("the QUERY is listed among the endpoints that change state")
	}
}

// TestPagesRefuseGraphQL: until the pages describe mutations, a GraphQL
// contract is refused with the field named, instead of pages that tell
// integrators to send a key header the API never reads.
func TestPagesRefuseGraphQL(t *testing.T) {
	c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "testdata", "graphql", "mutation.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Markdown(Inputs{Contract: c}, nil); err == nil || !strings.Contains(err.Error(), "idempotency.key_in: graphql") {
		t.Errorf("Markdown = %v, want a refusal naming key_in: graphql", err)
	}
}
