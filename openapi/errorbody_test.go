package openapi

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// contractWithErrorBody is testdata/contract.yaml with api.error_body set
// to the given lines (indented under it).
func contractWithErrorBody(t *testing.T, lines string) *contract.Contract {
	t.Helper()
	src, err := os.ReadFile("testdata/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const at = "  base_url: https://api.lumapay.example\n"
	if !strings.Contains(string(src), at) {
		t.Fatal("testdata/contract.yaml changed its base_url line")
	}
	s := strings.Replace(string(src), at, at+"  error_body:\n"+lines, 1)
	c, err := contract.Parse("contract.yaml", []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// conflict409 is the JSON of the first 409 response the plan adds.
func conflict409(t *testing.T, p *Plan) string {
	t.Helper()
	for _, e := range p.Edits {
		if e.Key == "409" {
			b, _ := json.Marshal(e.Value)
			return string(b)
		}
		if o, ok := e.Value.(Obj); ok && e.Key == "responses" {
			for _, kv := range o {
				if kv.K == "409" {
					b, _ := json.Marshal(kv.V)
					return string(b)
				}
			}
		}
	}
	t.Fatal("no 409 response added")
	return ""
}

// TestErrorBodyDerivedSchema: without schema_ref, the 409's schema and
// examples follow code_at and message_at, and the merged spec validates.
func TestErrorBodyDerivedSchema(t *testing.T) {
	tests := []struct {
		name, lines     string
		schema, example string
	}{
		{"stripe-like", "    code_at: /error/code\n    message_at: /error/message\n",
			`"schema":{"type":"object","required":["error"],"properties":{"error":{"type":"object","required":["code","message"],"properties":{"code":{"type":"string","enum":["invalid_idempotent_request","concurrent_idempotent_requests"]},"message":{"type":"string"}}}}}`,
			`"value":{"error":{"code":"invalid_idempotent_request","message":"This idempotency key was already used with a different request. Send the original request again, or use a new key for a new operation."}}`},
		{"flat", "    code_at: /name\n    message_at: /message\n",
			`"schema":{"type":"object","required":["name","message"],"properties":{"name":{"type":"string","enum":["invalid_idempotent_request","concurrent_idempotent_requests"]},"message":{"type":"string"}}}`,
			`"value":{"name":"invalid_idempotent_request","message":"This idempotency key was already used with a different request. Send the original request again, or use a new key for a new operation."}`},
		{"json-api, no message", "    code_at: /errors/0/code\n",
			`"schema":{"type":"object","required":["errors"],"properties":{"errors":{"type":"array","minItems":1,"items":{"type":"object","required":["code"],"properties":{"code":{"type":"string","enum":["invalid_idempotent_request","concurrent_idempotent_requests"]}}}}}}`,
			`"value":{"errors":[{"code":"invalid_idempotent_request"}]}`},
	}
	s, err := Load("testdata/small.yaml", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := contractWithErrorBody(t, tt.lines)
			p := NewPlan(c, s)
			if len(p.Findings) != 0 {
				t.Fatalf("findings: %v", p.Findings)
			}
			got := conflict409(t, p)
			if !strings.Contains(got, tt.schema) {
				t.Errorf("schema: got %s\nwant it to contain %s", got, tt.schema)
			}
			if !strings.Contains(got, tt.example) {
				t.Errorf("example: got %s\nwant it to contain %s", got, tt.example)
			}
			merged, err := Merged(s, p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Parse("merged.yaml", merged, LoadOptions{}); err != nil {
				t.Errorf("merged spec does not validate: %v", err)
			}
			if tt.name == "stripe-like" {
				golden(t, "overlay.errorbody.small.yaml", OverlayText(Overlay(c, s, p), false))
			}
		})
	}
}

const specWithErrorSchema = `openapi: 3.1.0
info: {title: Lumapay, version: "1"}
paths:
  /v1/transfers:
    post:
      responses:
        "201": {description: Created.}
components:
  schemas:
    ApiError:
      type: object
      properties:
        error:
          $ref: '#/components/schemas/ErrorDetail'
    ErrorDetail:
      type: object
      properties:
        code: {type: string}
        message: {type: string}
`

// TestErrorBodySchemaRef: a schema_ref the spec defines is the 409's
// schema; one it lacks, or one without the code's property, is reported.
func TestErrorBodySchemaRef(t *testing.T) {
	s, err := Parse("spec.yaml", []byte(specWithErrorSchema), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := contractWithErrorBody(t, "    code_at: /error/code\n    message_at: /error/message\n    schema_ref: \"#/components/schemas/ApiError\"\n")
	p := NewPlan(c, s)
	if len(p.Findings) != 0 {
		t.Fatalf("findings: %v", p.Findings)
	}
	got := conflict409(t, p)
	if !strings.Contains(got, `"schema":{"$ref":"#/components/schemas/ApiError"}`) {
		t.Errorf("409 does not use the spec's schema: %s", got)
	}
	if !strings.Contains(got, `"value":{"error":{"code":"invalid_idempotent_request"`) {
		t.Errorf("409 example not in the API's shape: %s", got)
	}
	merged, err := Merged(s, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("merged.yaml", merged, LoadOptions{}); err != nil {
		t.Errorf("merged spec does not validate: %v", err)
	}

	// A reference the spec does not define: blamed on the contract's line.
	c = contractWithErrorBody(t, "    code_at: /error/code\n    schema_ref: \"#/components/schemas/Nope\"\n")
	p = NewPlan(c, s)
	if len(p.Findings) != 1 || p.Findings[0].File != "contract.yaml" || p.Findings[0].Line != 7 ||
		!strings.Contains(p.Findings[0].Message, "names #/components/schemas/Nope, which spec.yaml does not define") {
		t.Errorf("missing schema: findings %+v", p.Findings)
	}
	if got := conflict409(t, p); strings.Contains(got, "Nope") {
		t.Errorf("an undefined $ref was written: %s", got)
	}

	// The code's place is not in the schema: blamed on the spec's schema.
	c = contractWithErrorBody(t, "    code_at: /error/kind\n    schema_ref: \"#/components/schemas/ApiError\"\n")
	p = NewPlan(c, s)
	if len(p.Findings) != 1 || p.Findings[0].File != "spec.yaml" ||
		!strings.Contains(p.Findings[0].Message, "the spec's #/components/schemas/ApiError has no property /error/kind") ||
		!strings.Contains(p.Findings[0].Fix, "code, message") {
		t.Errorf("misplaced code: findings %+v", p.Findings)
	}
}
