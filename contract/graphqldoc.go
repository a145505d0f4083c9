package contract

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// The request a client sends to a GraphQL endpoint: one mutation document
// built from the endpoint's example, the key passed as a variable, so the
// document is the same on every attempt and only the variables carry the
// key. The snippets send it; the fault server reads the key back from it.

// Document is MutationDocument's one-line form for mutation with args,
// or why args cannot be the mutation's arguments (not an object, or a
// member name at any depth that is not a GraphQL name), which
// MutationDocument would leave out instead: a client must not send a
// mutation without the arguments its example names.
func (g GraphQL) Document(mutation string, args JSONValue) (string, error) {
	if args.Kind != JSONObject {
		return "", fmt.Errorf("the example body of mutation %s is %s, not an object of its arguments", mutation, args)
	}
	if err := graphQLNames(args); err != nil {
		return "", fmt.Errorf("the example body of mutation %s has %w", mutation, err)
	}
	return g.MutationDocument(mutation, args, true), nil
}

// graphQLNames finds the first object member name in v, at any depth,
// that GraphQL cannot spell.
func graphQLNames(v JSONValue) error {
	for _, m := range v.Members {
		if !graphQLName(m.Name) {
			return fmt.Errorf("the member %s, which is not a GraphQL name ([_A-Za-z][_0-9A-Za-z]*)", JSONQuote(m.Name))
		}
		if err := graphQLNames(m.Value); err != nil {
			return err
		}
	}
	for _, x := range v.Items {
		if err := graphQLNames(x); err != nil {
			return err
		}
	}
	return nil
}

// GraphQLRequest is the JSON body that carries document, before the
// variables are added: {"query": document}.
func GraphQLRequest(document string) JSONValue {
	return JSONValue{Kind: JSONObject, Members: []JSONMember{{Name: "query", Value: JSONValue{Kind: JSONString, Text: document}}}}
}

// ErrorBody is where the 200 of mutation carries its first error entry's
// code and message, as an error-body pointer (CodeAt): the place CodeAt
// names in words, so the snippets read a conflict's code there and the
// fault server writes it there.
func (g GraphQL) ErrorBody(mutation string) ErrorBody {
	if g.ErrorsIn == ErrorsInErrors {
		return ErrorBody{CodeAt: []string{"errors", "0", "extensions", "code"}, MessageAt: []string{"errors", "0", "message"}}
	}
	return ErrorBody{CodeAt: []string{"data", mutation, "userErrors", "0", "code"}, MessageAt: []string{"data", mutation, "userErrors", "0", "message"}}
}

// EntriesMember is the name of the list that holds the error entries
// (userErrors, or the top-level errors).
func (g GraphQL) EntriesMember() string {
	if g.ErrorsIn == ErrorsInErrors {
		return "errors"
	}
	return "userErrors"
}

// GraphQLVariables is request (GraphQLRequest's body) with the key as
// the variable name: {"query": ..., "variables": {name: key}}, the body a
// client sends on every attempt.
func GraphQLVariables(request JSONValue, name, key string) JSONValue {
	vars := JSONValue{Kind: JSONObject, Members: []JSONMember{{Name: name, Value: JSONValue{Kind: JSONString, Text: key}}}}
	out := request
	out.Members = append(append([]JSONMember(nil), request.Members...), JSONMember{Name: "variables", Value: vars})
	return out
}

// checkGraphQLExample refuses an example body a mutation cannot take as
// its arguments, at the body's position: the snippets send the mutation
// document built from it (Document), so a body that is not an object, or
// whose member is not a GraphQL name, could not be sent.
func (d *decoder) checkGraphQLExample(n *yaml.Node, p string, e Endpoint, id Idempotency) {
	if !id.InGraphQL() || e.Mutation == "" || e.Example == nil || e.Example.Body == nil {
		return
	}
	if _, err := id.GraphQL.Document(e.Mutation, *e.Example.Body); err != nil {
		at := d.resolve(n)
		for i := 0; i+1 < len(at.Content); i += 2 {
			if at.Content[i].Value == "body" {
				at = d.resolve(at.Content[i+1])
			}
		}
		d.errorf(at, p+".body", `write the body as the mutation's arguments, each member a GraphQL name, e.g. {"input": {"name": "available"}}`, "%s: %v", p+".body", err)
	}
}
