package render

import (
	"strings"
	"testing"
)

// Issue 15 item 8: the key table of the Idempotent requests page groups
// operations by path prefix, leaves reads out, and calls an optional key
// optional.
func TestEndpointsTableGroupsAndLeavesReadsOut(t *testing.T) {
	src := strings.Replace(issue16Base, "endpoints:\n", `endpoints:
  - { operation: "GET /v1/orders/{id}", effect: read }
  - { operation: "HEAD /v1/orders/{id}", effect: read }
  - { operation: "POST /v1/orders/{id}/cancel", effect: action, key: optional }
  - { operation: "PUT /v1/customers/{id}", effect: replace, key: optional }
  - { operation: POST /domains/claim, effect: action, key: required }
`, 1) + "retry:\n  statuses: [429, 503]\n  max_elapsed: 60s\n  attempt_timeout: { p99: 1s, factor: 2 }\n"
	page := pages(t, Inputs{Contract: parseContract(t, src)})["idempotency.md"]
	table := page[strings.Index(page, "## Which endpoints take a key"):strings.Index(page, "## The header")]
	for _, want := range []string{
		"### `/v1/orders`", "### `/v1/customers`", "### `/domains`",
		"| `POST /v1/orders/{id}/cancel` | action | optional | only with a key: the key is optional, and without one a retry repeats the effect |",
		"| `PUT /v1/customers/{id}` | replace | optional | yes: repeating it leaves the same state; a key is optional |",
		"2 read operations are left out of these tables",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("key table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "GET /v1/orders") || strings.Contains(table, "HEAD /v1/orders") {
		t.Errorf("a read is in the key table:\n%s", table)
	}
	// Groups follow the contract's order: orders (first endpoint) first.
	if !(strings.Index(table, "`/v1/orders`") < strings.Index(table, "`/v1/customers`") && strings.Index(table, "`/v1/customers`") < strings.Index(table, "`/domains`")) {
		t.Errorf("groups out of the contract's order:\n%s", table)
	}
}

func TestEndpointGroupOf(t *testing.T) {
	for path, want := range map[string]string{
		"/v1/accounts/{account}/bank_accounts": "/v1/accounts",
		"/v1/transfers":                        "/v1/transfers",
		"/domains/claim":                       "/domains",
		"/2024-01-01/orders/{id}":              "/2024-01-01/orders",
		"/{tenant}/orders":                     "/{tenant}/orders",
		"/":                                    "/",
	} {
		if got := endpointGroupOf(path); got != want {
			t.Errorf("endpointGroupOf(%q) = %q, want %q", path, got, want)
		}
	}
}
