package render

import (
	"fmt"

	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
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

// TestEndpointGroupsCapped: an API whose every path is its own resource
// gets one table, not a heading per endpoint (a 50,000-endpoint contract
// once made 50,000 sections and a quadratic grouping).
func TestEndpointGroupsCapped(t *testing.T) {
	var rows []endpointRow
	for i := range maxEndpointGroups + 1 {
		rows = append(rows, endpointRow{Endpoint: contract.Endpoint{Path: fmt.Sprintf("/v1/r%d/{id}/items", i)}})
	}
	if gs := groupEndpoints(rows[:maxEndpointGroups]); len(gs) != maxEndpointGroups {
		t.Errorf("%d prefixes: %d groups, want one each", maxEndpointGroups, len(gs))
	}
	gs := groupEndpoints(rows)
	if len(gs) != 1 || len(gs[0].Rows) != len(rows) || gs[0].Title != "" {
		t.Errorf("%d prefixes: %d groups, want one untitled group of every row", len(rows), len(gs))
	}
	for i, r := range gs[0].Rows {
		if r.Path != rows[i].Path {
			t.Fatalf("row %d is %s, want contract order (%s)", i, r.Path, rows[i].Path)
		}
	}
}
