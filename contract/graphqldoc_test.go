package contract

import (
	"strings"
	"testing"
)

// TestGraphQLDocument: the example's members become the mutation's
// arguments as GraphQL literals, the key the String! variable named after
// its argument, on the directive after the arguments (Shopify's form) or
// as the field's own argument; the selection asks for the error entries
// the conflicts come in.
func TestGraphQLDocument(t *testing.T) {
	args := func(src string) JSONValue {
		v, err := ParseExampleBody([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	shop := GraphQL{Directive: "idempotent", Argument: "key", ErrorsIn: ErrorsInUserErrors}
	field := GraphQL{Argument: "idempotencyKey", ErrorsIn: ErrorsInErrors}
	for _, tt := range []struct {
		name string
		g    GraphQL
		body string
		want string
		err  string
	}{
		{"directive", shop, `{"input": {"name": "available", "changes": [{"delta": -1.5e3, "ok": true, "note": null}], "empty": {}, "none": []}}`,
			`mutation m($idempotencyKey: String!) { m(input: {name: "available", changes: [{delta: -1.5e3, ok: true, note: null}], empty: {}, none: []}) @idempotent(key: $idempotencyKey) { userErrors { code message } } }`, ""},
		{"no arguments", shop, `{}`, `mutation m($idempotencyKey: String!) { m @idempotent(key: $idempotencyKey) { userErrors { code message } } }`, ""},
		{"field argument, errors", field, `{"input": {"id": "x"}, "idempotencyKey": "stale"}`,
			`mutation m($idempotencyKey: String!) { m(input: {id: "x"}, idempotencyKey: $idempotencyKey) { __typename } }`, ""},
		{"strings quoted", shop, `{"note": "a \"b\"\n\\ } ) @x"}`,
			`mutation m($idempotencyKey: String!) { m(note: "a \"b\"\n\\ } ) @x") @idempotent(key: $idempotencyKey) { userErrors { code message } } }`, ""},
		{"not an object", shop, `[1]`, "", "not an object of its arguments"},
		{"argument not a name", shop, `{"in-put": 1}`, "", `the member "in-put", which is not a GraphQL name`},
		{"field not a name", shop, `{"input": {"a b": 1}}`, "", `the member "a b", which is not a GraphQL name`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.g.Document("m", args(tt.body))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Document = %q, %v\nwant       %q", got, err, tt.want)
			}
		})
	}
}

// TestGraphQLRequestBody: the request is {"query": document}, the key
// added as the variable on every attempt; the error entries' place
// matches CodeAt's words.
func TestGraphQLRequestBody(t *testing.T) {
	req := GraphQLRequest(`mutation m($idempotencyKey: String!) { m @idempotent(key: $idempotencyKey) { __typename } }`)
	got := GraphQLVariables(req, "key", `k"1`).String()
	want := `{"query": "mutation m($idempotencyKey: String!) { m @idempotent(key: $idempotencyKey) { __typename } }", "variables": {"key": "k\"1"}}`
	if got != want {
		t.Errorf("body %s\nwant %s", got, want)
	}
	if len(req.Members) != 1 {
		t.Error("GraphQLVariables changed the request it was given")
	}
	for _, g := range []GraphQL{{ErrorsIn: ErrorsInUserErrors}, {ErrorsIn: ErrorsInErrors}} {
		eb := g.ErrorBody("m")
		words := strings.ReplaceAll(strings.Join(eb.CodeAt, "."), ".0.", "[].")
		if words != g.CodeAt("m") || !strings.Contains(words, g.EntriesMember()+"[]") {
			t.Errorf("%s: pointer %v reads %q, CodeAt says %q (entries %s)", g.ErrorsIn, eb.CodeAt, words, g.CodeAt("m"), g.EntriesMember())
		}
	}
}

// TestGraphQLExampleRefused: an example body a mutation cannot take as
// its arguments is refused at the body, with a fix.
func TestGraphQLExampleRefused(t *testing.T) {
	base := graphqlMutation(t)
	for _, tt := range []struct{ name, body, message string }{
		{"a list", `["input"]`, `is ["input"], not an object of its arguments`},
		{"a member that is no name", `{"in-put": {}}`, `the member "in-put", which is not a GraphQL name`},
		{"a nested member that is no name", `{"input": {"a b": 1}}`, `the member "a b", which is not a GraphQL name`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := base + "    example: {body: " + tt.body + "}\n"
			wantDiagnostic(t, src, 14, 21, "endpoints[0].example.body: the example body of mutation inventorySetQuantities", "write the body as the mutation's arguments")
			wantDiagnostic(t, src, 14, 21, tt.message, "")
		})
	}
	if _, err := Parse("retryspec.yaml", []byte(base+"    example: {body: {\"input\": {\"name\": \"available\"}}}\n")); err != nil {
		t.Errorf("an object of arguments is refused: %v", err)
	}
}
