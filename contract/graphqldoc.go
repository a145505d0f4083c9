package contract

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The request a client sends to a GraphQL endpoint: one mutation document
// built from the endpoint's example, the key passed as a variable, so the
// document is the same on every attempt and only the variables carry the
// key. The snippets send it; the fault server reads the key back from it.

// KeyVariable is the variable that carries the key in Document: named
// after the argument that takes it ($key for @idempotent(key:)).
func (g GraphQL) KeyVariable() string { return g.Argument }

// Document is the mutation document for mutation, its arguments the
// members of args (the endpoint's example body, an object), each written
// as a GraphQL literal; the key is the String! variable KeyVariable,
// passed to the directive after the field's arguments as Shopify's
// published form has it (`inventoryAdjustQuantities(input: {...})
// @idempotent(key: "...") { ... }`), or, without a directive, as the
// field's own argument. The selection asks for the error entries the
// contract reads conflicts from (userErrors' code and message), or only
// __typename when they come in the top-level errors. It fails when args is
// not an object or a member name is not a GraphQL name: the example cannot
// be written as the mutation's arguments.
func (g GraphQL) Document(mutation string, args JSONValue) (string, error) {
	if args.Kind != JSONObject {
		return "", fmt.Errorf("the example body of mutation %s is %s, not an object of its arguments", mutation, args)
	}
	var list []string
	for _, m := range args.Members {
		if g.Directive == "" && m.Name == g.Argument {
			continue // the key's own argument: the variable fills it
		}
		if !graphQLName(m.Name) {
			return "", fmt.Errorf("the example body of mutation %s has the member %s, which is not a GraphQL argument name ([_A-Za-z][_0-9A-Za-z]*)", mutation, JSONQuote(m.Name))
		}
		s, err := graphQLLiteral(m.Value)
		if err != nil {
			return "", fmt.Errorf("the example body of mutation %s: %w", mutation, err)
		}
		list = append(list, m.Name+": "+s)
	}
	key := g.Argument + ": $" + g.KeyVariable()
	field := mutation
	if g.Directive == "" {
		list = append(list, key)
	}
	if len(list) > 0 {
		field += "(" + strings.Join(list, ", ") + ")"
	}
	if g.Directive != "" {
		field += " @" + g.Directive + "(" + key + ")"
	}
	selection := "{ userErrors { code message } }"
	if g.ErrorsIn == ErrorsInErrors {
		selection = "{ __typename }"
	}
	return "mutation ($" + g.KeyVariable() + ": String!) { " + field + " " + selection + " }", nil
}

// graphQLLiteral writes v as a GraphQL input value: objects with bare
// names, strings in JSON's quoting (whose escapes GraphQL reads the same),
// numbers, booleans and null as JSON writes them.
func graphQLLiteral(v JSONValue) (string, error) {
	switch v.Kind {
	case JSONObject:
		parts := make([]string, len(v.Members))
		for i, m := range v.Members {
			if !graphQLName(m.Name) {
				return "", fmt.Errorf("the member %s is not a GraphQL field name ([_A-Za-z][_0-9A-Za-z]*)", JSONQuote(m.Name))
			}
			s, err := graphQLLiteral(m.Value)
			if err != nil {
				return "", err
			}
			parts[i] = m.Name + ": " + s
		}
		return "{" + strings.Join(parts, ", ") + "}", nil
	case JSONArray:
		parts := make([]string, len(v.Items))
		for i, x := range v.Items {
			s, err := graphQLLiteral(x)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	default:
		return v.String(), nil
	}
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
