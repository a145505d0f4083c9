package openapi

import (
	"fmt"
	"github.com/retryspec/retryspec/internal/testenv"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/contract"
)

// bodyKeyContract keys four operations in the body (Square's scheme): one
// with an inline request schema, two sharing a component schema, one with
// no request body, and one whose spec already declares the property with
// another bound; a QUERY search rides along.
const bodyKeyContract = `retryspec: 1
api: {name: Pay, base_url: https://api.pay.example}
idempotency:
  key_in: body
  key_field: /idempotency_key
  max_key_length: 192
  stored_failures: replay
endpoints:
  - {operation: "POST /v2/payments", effect: create, key: required, external_calls: [], max_key_length: 45}
  - {operation: "POST /v2/refunds", effect: create, key: required, external_calls: []}
  - {operation: "POST /v2/refunds/batch", effect: create, key: optional, external_calls: []}
  - {operation: "POST /v2/orders/{id}/pay", effect: action, key: required, external_calls: []}
  - {operation: "POST /v2/customers", effect: create, key: required, external_calls: [], max_key_length: 45}
  - {operation: "QUERY /v2/payments/search", effect: read}
`

const bodyKeySpec = `openapi: %s
info: {title: Pay, version: "1"}
paths:
  /v2/payments:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [source_id]
              properties:
                source_id: {type: string}
      responses:
        "200": {description: ok}
  /v2/refunds:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Refund"}
      responses:
        "200": {description: ok}
  /v2/refunds/batch:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Refund"}
      responses:
        "200": {description: ok}
  /v2/orders/{id}/pay:
    post:
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        "200": {description: ok}
  /v2/customers:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                idempotency_key: {type: string, maxLength: 50}
      responses:
        "200": {description: ok}
components:
  schemas:
    Refund:
      type: object
      properties:
        amount: {type: integer}
`

// TestBodyKeyAdditions: with the key in the body, the additions put it
// where it lives, for OpenAPI 3.0 and 3.1: a string property with the
// endpoint's maxLength in the request schema (required when the key is),
// never a header parameter; a shared component gets it once; an operation
// without a body gets one; a property the spec declares with another bound
// is a contradiction. The merged spec validates.
func TestBodyKeyAdditions(t *testing.T) {
	c, err := contract.Parse("retryspec.yaml", []byte(bodyKeyContract))
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{"3.0.3", "3.1.0"} {
		t.Run(version, func(t *testing.T) {
			s, err := Parse("spec.yaml", []byte(fmt.Sprintf(bodyKeySpec, version)), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p, merged := validMerge(t, c, s)
			var doc struct {
				Paths map[string]map[string]struct {
					Parameters  []map[string]any `yaml:"parameters"`
					RequestBody struct {
						Content map[string]struct {
							Schema schemaDoc `yaml:"schema"`
						} `yaml:"content"`
					} `yaml:"requestBody"`
					X map[string]any `yaml:"x-idempotency"`
				} `yaml:"paths"`
				Components struct {
					Schemas map[string]schemaDoc `yaml:"schemas"`
				} `yaml:"components"`
			}
			if err := yaml.Unmarshal(merged, &doc); err != nil {
				t.Fatal(err)
			}
			for path, ops := range doc.Paths {
				for _, p := range ops["post"].Parameters {
					if p["in"] == "header" {
						t.Errorf("%s declares a header parameter %v: the key travels in the body", path, p["name"])
					}
				}
			}
			pay := doc.Paths["/v2/payments"]["post"]
			inline := pay.RequestBody.Content["application/json"].Schema
			if k := inline.Properties["idempotency_key"]; k.MaxLength != 45 || k.Type != "string" || k.MinLength != 1 {
				t.Errorf("CreatePayment's key property: %+v, want a string of 1 to 45", k)
			}
			if !sameSet(inline.Required, "source_id", "idempotency_key") {
				t.Errorf("required %v, want source_id and the key", inline.Required)
			}
			if pay.X["key-in"] != "body" || pay.X["key-field"] != "/idempotency_key" || pay.X["max-key-length"] != 45 || pay.X["header"] != nil {
				t.Errorf("x-idempotency %v", pay.X)
			}
			refund := doc.Components.Schemas["Refund"]
			if k := refund.Properties["idempotency_key"]; k.MaxLength != 192 {
				t.Errorf("the shared Refund schema's key property: %+v, want maxLength 192", k)
			}
			if strings.Join(refund.Required, ",") != "idempotency_key" {
				t.Errorf("Refund required %v", refund.Required)
			}
			added := doc.Paths["/v2/orders/{id}/pay"]["post"].RequestBody.Content["application/json"].Schema
			if k := added.Properties["idempotency_key"]; k.MaxLength != 192 || strings.Join(added.Required, ",") != "idempotency_key" {
				t.Errorf("the body added to an operation without one: %+v", added)
			}
			if len(p.Findings) != 1 || !strings.Contains(p.Findings[0].Message, "POST /v2/customers: the spec's idempotency_key property allows 50 characters but the contract's bound for it is 45") {
				t.Errorf("findings %v, want the customers property's contradiction", p.Findings)
			}
			edits := 0
			for _, e := range p.Edits {
				if len(e.Target) >= 3 && e.Target[2] == "query" {
					t.Errorf("an edit targets the QUERY operation: %+v", e)
				}
				if e.Key == "idempotency_key" {
					edits++
				}
			}
			if edits != 2 { // payments inline, Refund once; customers reused-contradicted, orders via requestBody
				t.Errorf("%d edits add the key property, want 2 (the inline schema and the shared one, once)", edits)
			}
			noted := false
			for _, n := range p.Skipped {
				noted = noted || (n.Operation == "QUERY /v2/payments/search" && strings.Contains(n.Message, "no query operation"))
			}
			if !noted {
				t.Errorf("no note says why nothing is added for the QUERY: %v", p.Skipped)
			}
			for _, f := range DriftSpec(c, s) {
				if strings.Contains(f.Message, "QUERY") {
					t.Errorf("drift reports the QUERY, which OpenAPI %s cannot declare: %s", version, f.Message)
				}
			}
		})
	}
}

type schemaDoc struct {
	Type       string `yaml:"type"`
	Required   []string
	Properties map[string]struct {
		Type      string `yaml:"type"`
		MinLength int    `yaml:"minLength"`
		MaxLength int    `yaml:"maxLength"`
	} `yaml:"properties"`
}

func sameSet(got []string, want ...string) bool {
	if len(got) != len(want) {
		return false
	}
	for _, w := range want {
		if !strings.Contains(","+strings.Join(got, ",")+",", ","+w+",") {
			return false
		}
	}
	return true
}

// validMerge plans c's additions to s and merges them; the merged spec
// must validate.
func validMerge(t *testing.T, c *contract.Contract, s *Spec) (*Plan, []byte) {
	t.Helper()
	p := NewPlan(c, s)
	merged, err := Merged(s, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("merged.yaml", merged, LoadOptions{}); err != nil {
		t.Fatalf("merged spec does not validate: %v\n%s", err, merged)
	}
	return p, merged
}

// TestBodyKeySkipsNonObjectExamples: with the key in the body, a spec's
// request example that is not a JSON object (it cannot hold the key
// member) is not taken; an object example is.
func TestBodyKeySkipsNonObjectExamples(t *testing.T) {
	c, err := contract.Parse("retryspec.yaml", []byte(bodyKeyContract))
	if err != nil {
		t.Fatal(err)
	}
	spec := `openapi: 3.1.0
info: {title: Pay, version: "1"}
paths:
  /v2/refunds:
    post:
      requestBody:
        content:
          application/json:
            example: [{"amount": 1}]
      responses:
        "200": {description: ok}
  /v2/orders/{id}/pay:
    post:
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      requestBody:
        content:
          application/json:
            example: {"tip": 1}
      responses:
        "200": {description: ok}
`
	s, err := Parse("spec.yaml", []byte(spec), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := ApplyRequestExamples(c, s); n != 1 {
		t.Errorf("took %d examples, want 1 (the object, not the list)", n)
	}
	if _, stated := c.Endpoints[1].ExampleBody(); stated {
		t.Error("the list example was taken for POST /v2/refunds, whose key travels in the body")
	}
	if b, stated := c.Endpoints[3].ExampleBody(); !stated || b.String() != `{"tip": 1}` {
		t.Errorf("the object example was not taken: %s", b.String())
	}
}

// TestGraphQLSkipped: a GraphQL contract's mutations get no operation
// additions (OpenAPI has no operation per mutation), each with a note
// saying why, even when the spec declares the GraphQL POST; drift does not
// call them stale.
func TestGraphQLSkipped(t *testing.T) {
	c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "testdata", "graphql", "mutation.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse("spec.yaml", []byte(`openapi: 3.1.0
info: {title: Shop, version: "1"}
paths:
  /admin/api/2026-04/graphql.json:
    post:
      responses:
        "200": {description: ok}
`), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := validMerge(t, c, s)
	for _, e := range p.Edits {
		if len(e.Target) >= 2 && e.Target[0] == "paths" {
			t.Errorf("an edit targets the GraphQL POST: %+v", e)
		}
	}
	if len(p.Skipped) != 1 || p.Skipped[0].Operation != "mutation inventorySetQuantities" || !strings.Contains(p.Skipped[0].Message, "no operation per mutation") || p.Skipped[0].Line != 11 {
		t.Errorf("skipped %+v, want one note for the mutation at line 11", p.Skipped)
	}
	if f := DriftSpec(c, s); len(f) != 0 {
		t.Errorf("drift %v", f)
	}
}
