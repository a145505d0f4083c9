package faultserver

import (
	"net/http"
	"strings"
	"testing"
)

// TestGraphQLKey: the key is read where the contract puts it in the
// mutation document, a $variable (from the variables) or a string
// literal, on the directive or, without one, as the field's argument; a
// document that passes it elsewhere, or not at all, has none.
func TestGraphQLKey(t *testing.T) {
	directive := GraphQLKey{Directive: "idempotent", Argument: "key"}
	field := GraphQLKey{Argument: "idempotencyKey"}
	for _, tt := range []struct {
		name string
		g    GraphQLKey
		body string
		want string
	}{
		{"variable", directive, `{"query": "mutation ($key: String!) { m(input: {a: \"key: $no\"}) @idempotent(key: $key) { userErrors { code } } }", "variables": {"key": "k-1"}}`, "k-1"},
		{"literal", directive, `{"query": "mutation { m(input: {a: 1}) @idempotent(key: \"k-\\\"2\\\"\") { __typename } }"}`, `k-"2"`},
		{"other directive arguments first", directive, `{"query": "mutation($k: String!) { m @idempotent(scope: SHOP, ttl: [1, 2], key: $k) { __typename } }", "variables": {"k": "k-3"}}`, "k-3"},
		{"field argument after a nested input", field, `{"query": "mutation($k: String!) { m(input: {x: [{idempotencyKey: \"no\"}], s: \")\"}, idempotencyKey: $k) { __typename } }", "variables": {"k": "k-4"}}`, "k-4"},
		{"a comment is not the directive", directive, `{"query": "# @idempotent(key: \"no\")\nmutation { m @idempotent(key: \"k-5\") { __typename } }"}`, "k-5"},
		{"no directive", directive, `{"query": "mutation { m(key: \"k\") { __typename } }"}`, ""},
		{"variable not sent", directive, `{"query": "mutation ($key: String!) { m @idempotent(key: $key) { __typename } }", "variables": {}}`, ""},
		{"variable not a string", directive, `{"query": "mutation ($key: String!) { m @idempotent(key: $key) { __typename } }", "variables": {"key": 7}}`, ""},
		{"not json", directive, `mutation { m @idempotent(key: "k") { __typename } }`, ""},
		{"key in a header's place only", field, `{"query": "mutation { m(input: {a: 1}) { __typename } }", "idempotencyKey": "k"}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.g.key([]byte(tt.body)); got != tt.want {
				t.Errorf("key = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestGraphQLServer: a server for a GraphQL contract records the key it
// reads from each request's document, not from a header.
func TestGraphQLServer(t *testing.T) {
	srv, err := StartAt(KeyPlace{GraphQL: &GraphQLKey{Directive: "idempotent", Argument: "key"}}, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sess := srv.NewSession(Script{{Status: 200, Body: `{"data":{"m":{"userErrors":[]}}}`, Effect: true}})
	body := `{"query": "mutation ($key: String!) { m @idempotent(key: $key) { __typename } }", "variables": {"key": "\"k-1\""}}`
	req, _ := http.NewRequest("POST", sess.BaseURL()+"/graphql", strings.NewReader(body))
	req.Header.Set("Idempotency-Key", "from-the-header")
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	reqs := sess.Requests()
	if len(reqs) != 1 || reqs[0].Key != `"k-1"` || reqs[0].RawKey != `"k-1"` || reqs[0].Path != "/graphql" {
		t.Errorf("recorded %+v, want the variable's \"k-1\" as sent", reqs)
	}
}
