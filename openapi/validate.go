package openapi

import (
	"context"

	"github.com/getkin/kin-openapi/openapi3"
)

// validate runs kin-openapi's structural validation. kin-openapi checks a
// referenced schema again at every place that references it, which on a
// spec like Stripe's (hundreds of operations pointing at the same large
// component schemas) is most of the run time. Components are validated
// once each anyway, so while the document is validated, every schema
// reference inside an operation's own (inline) parameters, bodies and
// responses is pointed at an empty schema; the references are put back
// before validate returns. Inline schemas are still validated in place.
// Components get the same treatment (see below).
func validate(doc *openapi3.T) error {
	restore := stubReferencedSchemas(doc)
	defer restore()
	return doc.Validate(context.Background(), validationOptions()...)
}

func stubReferencedSchemas(doc *openapi3.T) (restore func()) {
	type saved struct {
		ref   *openapi3.SchemaRef
		value *openapi3.Schema
	}
	var undo []saved
	stub := &openapi3.Schema{}
	seen := map[*openapi3.Schema]bool{}
	var schemaRef func(r *openapi3.SchemaRef)
	schemaRefs := func(rs []*openapi3.SchemaRef) {
		for _, r := range rs {
			schemaRef(r)
		}
	}
	schemaRef = func(r *openapi3.SchemaRef) {
		if r == nil || r.Value == nil {
			return
		}
		if r.Ref != "" {
			// Only local component references: their targets are
			// validated with the components.
			if len(r.Ref) > 2 && r.Ref[:2] == "#/" {
				undo = append(undo, saved{r, r.Value})
				r.Value = stub
			}
			return
		}
		s := r.Value
		if seen[s] {
			return
		}
		seen[s] = true
		for _, p := range s.Properties {
			schemaRef(p)
		}
		schemaRef(s.Items)
		schemaRefs(s.AllOf)
		schemaRefs(s.AnyOf)
		schemaRefs(s.OneOf)
		schemaRef(s.Not)
		schemaRef(s.AdditionalProperties.Schema)
	}
	content := func(c openapi3.Content) {
		for _, mt := range c {
			if mt != nil {
				schemaRef(mt.Schema)
			}
		}
	}
	headers := func(h openapi3.Headers) {
		for _, hr := range h {
			if hr != nil && hr.Ref == "" && hr.Value != nil {
				schemaRef(hr.Value.Schema)
				content(hr.Value.Content)
			}
		}
	}
	params := func(ps openapi3.Parameters) {
		for _, pr := range ps {
			if pr != nil && pr.Ref == "" && pr.Value != nil {
				schemaRef(pr.Value.Schema)
				content(pr.Value.Content)
			}
		}
	}
	// The same within the components: a component that references
	// another is validated without walking into it, else a chain of N
	// components nested by reference (`S0: {properties: {a: {$ref: S1}}}`,
	// ...) is validated N²/2 times over (1,000 took 2 s, 4,000 took 13 s).
	if cs := doc.Components; cs != nil {
		for _, r := range cs.Schemas {
			if r != nil && r.Ref == "" {
				schemaRef(r)
			}
		}
		for _, pr := range cs.Parameters {
			params(openapi3.Parameters{pr})
		}
		headers(cs.Headers)
		for _, rb := range cs.RequestBodies {
			if rb != nil && rb.Ref == "" && rb.Value != nil {
				content(rb.Value.Content)
			}
		}
		for _, rr := range cs.Responses {
			if rr != nil && rr.Ref == "" && rr.Value != nil {
				content(rr.Value.Content)
				headers(rr.Value.Headers)
			}
		}
	}
	if doc.Paths != nil {
		for _, item := range doc.Paths.Map() {
			if item == nil || item.Ref != "" {
				continue
			}
			params(item.Parameters)
			for _, op := range item.Operations() {
				params(op.Parameters)
				if rb := op.RequestBody; rb != nil && rb.Ref == "" && rb.Value != nil {
					content(rb.Value.Content)
				}
				if op.Responses != nil {
					for _, rr := range op.Responses.Map() {
						if rr != nil && rr.Ref == "" && rr.Value != nil {
							content(rr.Value.Content)
							headers(rr.Value.Headers)
						}
					}
				}
			}
		}
	}
	return func() {
		for _, u := range undo {
			u.ref.Value = u.value
		}
	}
}
