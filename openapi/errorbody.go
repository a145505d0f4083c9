package openapi

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// bodyValue converts an example error body to the values Obj renders.
func bodyValue(v contract.BodyValue) any {
	switch {
	case v.IsObject:
		o := make(Obj, 0, len(v.Fields))
		for _, f := range v.Fields {
			o = append(o, KV{K: f.Name, V: bodyValue(f.Value)})
		}
		return o
	case v.IsList:
		items := make([]any, len(v.Items))
		for i, x := range v.Items {
			items[i] = bodyValue(x)
		}
		return items
	case v.IsNumber:
		return v.Number
	}
	return v.Text
}

// errorBodySchema derives the conflict responses' schema from the error
// body's effective shape (api.error_body, or the default one): objects and
// lists down to the code (one of codes), the message and, for
// problem+json, its fixed members. The code member is required only when
// every conflict of the group has a code (codeRequired).
func errorBodySchema(eb contract.ErrorBody, codes []any, codeRequired bool) Obj {
	var schema func(v contract.BodyValue) Obj
	schema = func(v contract.BodyValue) Obj {
		switch {
		case v.IsObject:
			props := Obj{}
			var required []any
			for _, f := range v.Fields {
				props = append(props, KV{K: f.Name, V: schema(f.Value)})
				if f.Value.Role != contract.LeafCode || codeRequired {
					required = append(required, f.Name)
				}
			}
			o := obj("type", "object")
			if len(required) > 0 {
				o = append(o, KV{"required", required})
			}
			return append(o, KV{"properties", props})
		case v.IsList:
			return obj("type", "array", "minItems", 1, "items", schema(v.Items[0]))
		case v.IsNumber:
			return obj("type", "integer")
		case v.Role == contract.LeafCode:
			return obj("type", "string", "enum", codes)
		}
		return obj("type", "string")
	}
	code := "code"
	if len(codes) == 0 {
		code = "" // no conflict of the group has a code: no code member
	}
	return schema(eb.Render(0, code, "message"))
}

// errorSchemaRef checks api.error_body.schema_ref against the spec: it
// must name a schema the spec defines, and where that schema lists its
// properties, the code's pointer must lead through them. It returns the
// reference to use, or "" (a schema is then derived from the pointers).
func (b *planner) errorSchemaRef() string {
	eb := b.c.API.ErrorBody
	if eb.SchemaRef == "" {
		return ""
	}
	target := b.s.pointer(eb.SchemaRef)
	if target == nil {
		pos := b.c.PosOf("api.error_body.schema_ref")
		b.p.Findings = append(b.p.Findings, findings.Finding{
			Rule: RuleContradiction, Severity: findings.Error,
			Message: fmt.Sprintf("api.error_body.schema_ref names %s, which %s does not define", eb.SchemaRef, b.s.Path),
			File:    b.c.File, Line: pos.Line, Column: pos.Column, Path: "api.error_body.schema_ref",
			Fix: fmt.Sprintf("name the spec's error schema (under components.schemas in %s), or remove schema_ref to derive one from code_at", b.s.Path),
		})
		return ""
	}
	n := target
	for i, tok := range eb.CodeAt {
		n, _ = b.s.resolveRef(n)
		if n == nil || n.Kind != yaml.MappingNode {
			break
		}
		var next *yaml.Node
		if tok == "0" {
			next = mapGet(n, "items")
		} else if props := mapGet(n, "properties"); props != nil {
			next = mapGet(props, tok)
			if next == nil {
				at := contract.Pointer(eb.CodeAt[:i+1])
				b.contradiction(props, "api.error_body.code_at",
					fmt.Sprintf("add the property to the spec's schema, or point code_at at the member the API uses (the schema has %s)", strings.Join(mapKeys(props), ", ")),
					"the spec's %s has no property %s where api.error_body.code_at %s puts the error code", eb.SchemaRef, at, contract.Pointer(eb.CodeAt))
				return eb.SchemaRef
			}
		}
		if next == nil {
			break // the schema does not say (no properties, allOf, ...): nothing to contradict
		}
		n = next
	}
	return eb.SchemaRef
}

func mapKeys(n *yaml.Node) []string {
	var out []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, n.Content[i].Value)
	}
	return out
}
