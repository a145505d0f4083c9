package contract

import (
	"testing"
)

// bodyKey is minimal with the key in the JSON body.
const bodyKey = minimal + "  key_in: body\n  key_field: /idempotency_key\n"

// TestKeyPlaceDiagnostics: each combination of the key's place and an
// endpoint that cannot work is refused at its line and column, with a fix.
func TestKeyPlaceDiagnostics(t *testing.T) {
	tests := []struct {
		name, src string
		line, col int
		message   string
		fix       string
	}{
		{"key_in typo", minimal + "  key_in: bdy\n", 7, 11, `"bdy" is not a valid value`, `did you mean "body"?`},
		{"body without field", minimal + "  key_in: body\n", 7, 11, "does not say which member carries the key", "key_field: /idempotency_key"},
		{"field without body", minimal + "  key_field: /idempotency_key\n", 7, 14, "but the key travels in a header", "add `key_in: body`"},
		{"field not a pointer", minimal + "  key_in: body\n  key_field: idempotency_key\n", 8, 14, "is not a JSON pointer to a member", "e.g. /idempotency_key"},
		{"field into a list", minimal + "  key_in: body\n  key_field: /items/0\n", 8, 14, "list items cannot be named", ""},
		{"body key on a GET", bodyKey + "endpoints:\n  - {operation: \"GET /v1/a\", effect: read, key: optional}\n", 10, 49, "a GET request has no body", "send the key in a header"},
		{"body key on a DELETE", bodyKey + "endpoints:\n  - operation: DELETE /v1/a/{id}\n    effect: delete\n    key: required\n", 12, 10, "a DELETE request has no body", "idempotency.key_in: header"},
		{"body key, array example", bodyKey + "endpoints:\n  - operation: POST /v1/a\n    effect: create\n    key: required\n    external_calls: []\n    example: {body: [1, 2]}\n", 14, 14,
			"cannot carry the key at /idempotency_key", "make the example body a JSON object"},
		{"nested field", minimal + "  key_in: body\n  key_field: /payment/key\n", 8, 14, "is nested", "a member of the body's top-level object"},
		{"endpoint bound above the API's", minimal + "  max_key_length: 64\nendpoints:\n  - {operation: \"POST /v1/a\", effect: create, key: required, external_calls: [], max_key_length: 100}\n", 9, 98,
			"above idempotency.max_key_length 64", "raise idempotency.max_key_length to at least 100"},
		{"endpoint bound below a UUID", minimal + "endpoints:\n  - {operation: \"POST /v1/a\", effect: create, key: required, external_calls: [], max_key_length: 30}\n", 8, 98,
			"shorter than the key the published code mints (a UUID, 36 characters", "raise it to at least 36"},
		{"sf-string bound below a quoted UUID", minimal + "  header_value: sf-string\nendpoints:\n  - {operation: \"POST /v1/a\", effect: create, key: required, external_calls: [], max_key_length: 37}\n", 9, 98,
			"38 characters as sent", "at least 38"},
		{"body bound below a derivation example", bodyKey + "  max_key_length: 40\n  derivation:\n    - kind: event-derived\n      example: \"payment-for-order-{order_id}-line-item-{line}-of-the-basket\"\n", 9, 19,
			"shorter than the derivation example", "raise it to at least 43"},
		{"keyed QUERY", minimal + "endpoints:\n  - {operation: \"QUERY /v1/search\", effect: read, key: required}\n", 8, 56, "is a QUERY, safe and idempotent by definition, but takes a key", "set key: none"},
		{"QUERY that creates", minimal + "endpoints:\n  - {operation: \"QUERY /v1/search\", effect: create, key: none, unsafe_to_retry: x}\n", 8, 45, "is a QUERY, safe by definition, but its effect is create", "set effect: read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantDiagnostic(t, tt.src, tt.line, tt.col, tt.message, tt.fix)
		})
	}
}

// TestKeyPlaceLoads: the sound combinations load with their values, and a
// contract that says nothing keeps the header it always had.
func TestKeyPlaceLoads(t *testing.T) {
	c, err := Parse("retryspec.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if c.Idempotency.KeyIn != KeyInHeader || c.Idempotency.InBody() || c.Idempotency.KeyPlace() != "the Idempotency-Key header" {
		t.Errorf("default place: %q %q", c.Idempotency.KeyIn, c.Idempotency.KeyPlace())
	}
	src := bodyKey + "  max_key_length: 192\nendpoints:\n" +
		"  - {operation: \"POST /v2/payments\", effect: create, key: required, external_calls: [], max_key_length: 45, example: {body: {\"amount_money\": {\"amount\": 100}}}}\n" +
		"  - {operation: \"POST /v2/orders\", effect: create, key: required, external_calls: []}\n" +
		"  - {operation: \"GET /v2/payments/{id}\", effect: read, key: none}\n" +
		"  - {operation: \"query /v2/payments/search\", effect: read}\n"
	c, err = Parse("retryspec.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	id := c.Idempotency
	if !id.InBody() || id.KeyFieldPointer() != "/idempotency_key" || id.KeyPlace() != "the /idempotency_key member of the JSON body" {
		t.Errorf("body place: %q %q", id.KeyFieldPointer(), id.KeyPlace())
	}
	if got := c.MaxKeyLengthFor(c.Endpoints[0]); got != 45 {
		t.Errorf("CreatePayment's bound %d, want 45", got)
	}
	if got := c.MaxKeyLengthFor(c.Endpoints[1]); got != 192 {
		t.Errorf("an endpoint without its own bound takes the API's: %d, want 192", got)
	}
	if e := c.Endpoints[3]; e.Method != MethodQuery || e.Keyed() {
		t.Errorf("QUERY endpoint: %+v", e)
	}
	body, _ := c.Endpoints[0].ExampleBody()
	if got := id.WithKey(body, "k-1").String(); got != `{"idempotency_key": "k-1", "amount_money": {"amount": 100}}` {
		t.Errorf("WithKey added %s", got)
	}
}

// TestWithKey: the key replaces a member the body already has, in place,
// and creates the objects on the way to a nested one; a header key leaves
// the body alone.
func TestWithKey(t *testing.T) {
	body, err := ParseExampleBody([]byte(`{"idempotency_key": "old", "payment": {"amount": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	id := Idempotency{KeyIn: KeyInBody, KeyField: []string{"idempotency_key"}}
	if got := id.WithKey(body, `a"b`).String(); got != `{"idempotency_key": "a\"b", "payment": {"amount": 1}}` {
		t.Errorf("replace: %s", got)
	}
	id.KeyField = []string{"meta", "request", "key"}
	if got := id.WithKey(body, "k").String(); got != `{"meta": {"request": {"key": "k"}}, "idempotency_key": "old", "payment": {"amount": 1}}` {
		t.Errorf("nested: %s", got)
	}
	if got := (Idempotency{KeyIn: KeyInHeader}).WithKey(body, "k").String(); got != body.String() {
		t.Errorf("header key changed the body: %s", got)
	}
	if body.String() != `{"idempotency_key": "old", "payment": {"amount": 1}}` {
		t.Errorf("WithKey changed its argument: %s", body.String())
	}
	id.KeyField = []string{"idempotency_key"}
	if got := id.WithoutKey(body).String(); got != `{"payment": {"amount": 1}}` {
		t.Errorf("WithoutKey: %s", got)
	}
}
