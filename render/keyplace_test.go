package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
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

// TestPagesDescribeGraphQL: a GraphQL contract's pages show the mutation
// with the key as a variable in the @idempotent directive on the mutation
// field, the POST to the GraphQL path that carries it, and the conflicts
// as userErrors codes in a 200: never a key header, and never a status for
// a conflict. A conflict's message with Markdown in it stays inside its
// fenced block.
func TestPagesDescribeGraphQL(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "graphql", "mutation.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// An in-flight conflict, the mutation's arguments, and a message that
	// would end a fence.
	src = []byte(strings.Replace(strings.Replace(strings.Replace(string(src),
		"  stored_failures: replay\n", "  stored_failures: replay\n  in_flight: {response: conflict}\n", 1),
		"    key: required\n", "    key: required\n    example: {body: {\"input\": {\"name\": \"available\", \"quantities\": [{\"quantity\": 11}]}}}\n", 1),
		"{code: IDEMPOTENCY_CONCURRENT_REQUEST}", "{code: IDEMPOTENCY_CONCURRENT_REQUEST, message: \"Busy ``` <b>|</b>\"}", 1))
	c, err := contract.Parse("retryspec.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	ps := pages(t, Inputs{Contract: c})
	for page, want := range map[string][]string{
		"idempotency.md": {
			"## The key in the mutation",
			"Every mutation travels as an HTTP POST to `/admin/api/2026-04/graphql.json`. Send the key in the key argument of the @idempotent directive on the mutation,",
			"```graphql\nmutation inventorySetQuantities($idempotencyKey: String!) {\n  inventorySetQuantities(input: {name: \"available\", quantities: [{quantity: 11}]}) @idempotent(key: $idempotencyKey) {\n    userErrors {\n      code\n      message\n    }\n  }\n}\n```",
			"POST /admin/api/2026-04/graphql.json HTTP/1.1\n",
			`"variables": {` + "\n" + `    "idempotencyKey": "8e03978e-40d5-43e8-bc93-6894a57f9324"`,
			"reports it as an error entry with a code at `data.<mutation>.userErrors[].code`",
			"| Same key, different variables or arguments | `IDEMPOTENCY_KEY_PARAMETER_MISMATCH` |",
			"| Same key while the first request is still running | `IDEMPOTENCY_CONCURRENT_REQUEST` |",
			"A mutation that ran is answered with 200 whether it took effect or reported errors of its own, so a retry with the same key gets that first answer back",
			"````json\n{\n  \"data\": {\n    \"inventorySetQuantities\": {\n      \"userErrors\": [\n        {\n          \"code\": \"IDEMPOTENCY_CONCURRENT_REQUEST\",\n          \"message\": \"Busy ``` <b>|</b>\"",
		},
		"index.md": {
			"1. Send every mutation that changes state as a POST to `/admin/api/2026-04/graphql.json`, with a new key in the key argument of the @idempotent directive on the mutation",
			"| Idempotency key | the key argument of the @idempotent directive on the mutation, in a POST to `/admin/api/2026-04/graphql.json` |",
		},
		"errors.md": {
			"| Code | Where | Meaning | Retry? |",
			"| `IDEMPOTENCY_KEY_PARAMETER_MISMATCH` | `data.<mutation>.userErrors[].code` |",
		},
		"retrying.md": {
			"| `IDEMPOTENCY_CONCURRENT_REQUEST` in a 200 | yes, after a wait |",
			"Here the key travels inside the mutation, in the key argument of the @idempotent directive on the mutation, passed as the variable `$idempotencyKey`",
		},
	} {
		for _, w := range want {
			if !strings.Contains(ps[page], w) {
				t.Errorf("%s lacks %q", page, w)
			}
		}
	}
	for page, md := range ps {
		for _, bad := range []string{"Idempotency-Key", "`200 IDEMPOTENCY", "| 200 |", "409", "missing_idempotency_key", "## The header"} {
			if strings.Contains(md, bad) {
				t.Errorf("%s contains %q", page, bad)
			}
		}
	}
}
