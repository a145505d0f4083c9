package openapi

import (
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestApplyRequestExamples: a keyed endpoint without an example body takes
// the spec's request example for its operation (matched by path shape);
// the contract's own example wins and an unkeyed endpoint is left alone.
func TestApplyRequestExamples(t *testing.T) {
	spec := `openapi: 3.0.3
info: {title: Mail, version: "1"}
paths:
  /emails:
    post:
      requestBody:
        content:
          application/json:
            schema: {type: object}
            example: {to: ["ada@example.com"], subject: Hi}
      responses: {"200": {description: ok}}
  /emails/{id}/cancel:
    post:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      requestBody:
        content:
          application/json:
            examples:
              first: {value: {reason: "sent by mistake"}}
      responses: {"200": {description: ok}}
  /domains:
    post:
      requestBody:
        content:
          application/json:
            example: {name: mail.example}
      responses: {"200": {description: ok}}
  /lists:
    post:
      requestBody:
        content:
          application/json:
            schema: {type: object, example: {a: 1}}
      responses: {"200": {description: ok}}
`
	s, err := Parse("spec.yaml", []byte(spec), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.Parse("retryspec.yaml", []byte(`retryspec: 1
api: {name: Mail, base_url: https://mail.example}
idempotency: {}
endpoints:
  - {operation: POST /emails, effect: create, key: required, external_calls: []}
  - {operation: "POST /emails/{email_id}/cancel", effect: action, key: required, external_calls: []}
  - {operation: POST /domains, effect: create, key: required, external_calls: [], example: {body: {name: own.example}}}
  - {operation: POST /lists, effect: create, key: none, unsafe_to_retry: "Creates a second list."}
`))
	if err != nil {
		t.Fatal(err)
	}
	if n := ApplyRequestExamples(c, s); n != 2 {
		t.Errorf("filled %d endpoints, want 2", n)
	}
	want := []string{`{"to": ["ada@example.com"], "subject": "Hi"}`, `{"reason": "sent by mistake"}`, `{"name": "own.example"}`, `{}`}
	for i, w := range want {
		if got, _ := c.Endpoints[i].ExampleBody(); got.String() != w {
			t.Errorf("%s: body %s, want %s", c.Endpoints[i].Operation, got, w)
		}
	}
}
