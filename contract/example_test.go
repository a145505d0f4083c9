package contract

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// exampleContract is a sound contract whose first endpoint carries the
// example lines given.
func exampleContract(example string) string {
	return "retryspec: 1\napi: {name: A, base_url: https://a.example}\nidempotency: {}\nendpoints:\n" +
		"  - operation: POST /v1/items/{item_id}/lines\n    effect: create\n    key: required\n    external_calls: []\n" + example
}

// TestExampleRequest reads endpoints[].example: a body written as YAML or
// as a string of JSON keeps its members in order, path values fill the
// path, and every kind of bad input names its line and column and a fix.
func TestExampleRequest(t *testing.T) {
	good := []struct{ name, example, body, path string }{
		{"yaml body", "    example:\n      body: {b: 1, a: [true, null, \"x\"], n: -1.5e3}\n", `{"b": 1, "a": [true, null, "x"], "n": -1.5e3}`, "/v1/items/example_item_id/lines"},
		{"json string", "    example:\n      body: '{\"z\": {}, \"a\": []}'\n      path: {item_id: it_9}\n", `{"z": {}, "a": []}`, "/v1/items/it_9/lines"},
		{"largest exact integer", "    example: {body: {n: 9007199254740991}}\n", `{"n": 9007199254740991}`, "/v1/items/example_item_id/lines"},
	}
	for _, tc := range good {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse("retryspec.yaml", []byte(exampleContract(tc.example)))
			if err != nil {
				t.Fatal(err)
			}
			e := c.Endpoints[0]
			body, ok := e.ExampleBody()
			if !ok || body.String() != tc.body || e.ExamplePath() != tc.path {
				t.Errorf("body %s (stated %v), path %s; want %s, %s", body, ok, e.ExamplePath(), tc.body, tc.path)
			}
		})
	}
	bad := []struct{ name, example, want string }{
		{"not JSON", "    example:\n      body: '{\"a\": 1,}'\n", "10:13 endpoints[0].example.body is not a usable JSON body: invalid character '}'"},
		{"member twice", "    example:\n      body: '{\"a\": 1, \"a\": 2}'\n", `10:13 endpoints[0].example.body is not a usable JSON body: member "a" is written twice`},
		{"inexact integer", "    example:\n      body: {n: 9007199254740993}\n", "10:13 endpoints[0].example.body is not a usable JSON body: 9007199254740993 is beyond"},
		{"yaml 1.1 boolean", "    example:\n      body: {ok: True}\n", "is not a usable JSON body: line 10 column 18: \"True\" is a YAML 1.1 boolean"},
		{"too large", "    example:\n      body: {s: " + strings.Repeat("x", MaxExampleBody) + "}\n", "is not a usable JSON body: the body is 4105 bytes as JSON"},
		{"unknown parameter", "    example:\n      path: {id: x}\n", `10:14 endpoints[0].example.path names "id", which is not a parameter of /v1/items/{item_id}/lines`},
		{"unsafe path value", "    example:\n      path: {item_id: \"a/b\"}\n", `10:23 endpoints[0].example.path.item_id "a/b" is not a plain path segment`},
		{"unknown key", "    example:\n      headers: {}\n", `10:7 unknown key "headers" in endpoints[0].example`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("retryspec.yaml", []byte(exampleContract(tc.example)))
			var le *LoadError
			if !errors.As(err, &le) || len(le.Diagnostics) != 1 {
				t.Fatalf("want one diagnostic, got %v", err)
			}
			d := le.Diagnostics[0]
			got := fmt.Sprintf("%d:%d %s", d.Pos.Line, d.Pos.Column, d.Message)
			if !strings.Contains(got, tc.want) || d.Fix == "" {
				t.Errorf("got %q (fix %q), want it to contain %q and a fix", got, d.Fix, tc.want)
			}
		})
	}
}
