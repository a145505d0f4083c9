package contract

import (
	"encoding/json"
	"slices"
)

// UnkeyedDocument is MutationDocument without the key: no $variable, and
// neither the directive nor the key argument, as a client that forgot the
// key sends it (verify's missing-key request).
func (g GraphQL) UnkeyedDocument(name string, args JSONValue, compact bool) string {
	return g.document(name, args, compact, false)
}

// GraphQLAnswer is what a GraphQL response body says about errors: the
// codes where idempotency.graphql.errors_in puts a conflict's (CodeAt),
// and whether it carries any error entry at all (a top-level errors entry,
// or a userErrors entry in the mutation's payload).
type GraphQLAnswer struct {
	Codes    []string
	AnyError bool
}

// HasCode reports whether code is among the codes at CodeAt.
func (a GraphQLAnswer) HasCode(code string) bool { return slices.Contains(a.Codes, code) }

// ReadAnswer reads body, the response to mutation name, as GraphQLReply
// writes it: the reader of those bytes, so the two cannot drift apart. A
// body that is not a JSON object has no codes and no error entries.
func (g GraphQL) ReadAnswer(body []byte, name string) GraphQLAnswer {
	var doc struct {
		Data   map[string]json.RawMessage `json:"data"`
		Errors []struct {
			Extensions struct {
				Code any `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return GraphQLAnswer{}
	}
	var payload struct {
		UserErrors []struct {
			Code any `json:"code"`
		} `json:"userErrors"`
	}
	_ = json.Unmarshal(doc.Data[name], &payload)
	a := GraphQLAnswer{AnyError: len(doc.Errors) > 0 || len(payload.UserErrors) > 0}
	add := func(c any) {
		if s, ok := c.(string); ok {
			a.Codes = append(a.Codes, s)
		}
	}
	if g.ErrorsIn == ErrorsInErrors {
		for _, e := range doc.Errors {
			add(e.Extensions.Code)
		}
		return a
	}
	for _, e := range payload.UserErrors {
		add(e.Code)
	}
	return a
}
