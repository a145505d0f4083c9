package contract

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// KeyInGraphQL sends the key inside a GraphQL mutation document: as an
// argument of a directive on the mutation field (Shopify's
// `@idempotent(key: "...")`) or as an argument of the field itself. The
// mutation travels as an HTTP POST to idempotency.graphql.path, and the
// conflicts come back as error entries in a 200 response, not as statuses.
const KeyInGraphQL KeyIn = "graphql"

// GraphQL is idempotency.graphql: where a GraphQL API takes the key and
// reports its conflicts. Zero unless key_in is graphql.
type GraphQL struct {
	// Path is the GraphQL endpoint every mutation is POSTed to
	// (/admin/api/2026-04/graphql.json).
	Path string
	// Directive is the directive that carries the key (idempotent for
	// @idempotent), "" when the key is an argument of the mutation field.
	Directive string
	// Argument is the argument that holds the key: the directive's (key)
	// or, without a directive, the mutation field's (idempotencyKey).
	Argument string
	// ErrorsIn is where a conflict's code appears in the 200 response.
	ErrorsIn GraphQLErrors
}

// GraphQLErrors is where a GraphQL API reports an idempotency conflict.
type GraphQLErrors string

const (
	// ErrorsInUserErrors: data.<mutation>.userErrors[].code, the mutation's
	// own payload (Shopify's IDEMPOTENCY_CONCURRENT_REQUEST).
	ErrorsInUserErrors GraphQLErrors = "user-errors"
	// ErrorsInErrors: the response's top-level errors[].extensions.code.
	ErrorsInErrors GraphQLErrors = "errors"
)

// GraphQLErrorPlaces are graphql.errors_in's values as the file spells them.
var GraphQLErrorPlaces = names(ErrorsInUserErrors, ErrorsInErrors)

// InGraphQL reports whether the key travels in a GraphQL mutation.
func (id Idempotency) InGraphQL() bool { return id.KeyIn == KeyInGraphQL }

// CodeAt says, for sentences, where a conflict's code appears in the 200
// response of mutation name.
func (g GraphQL) CodeAt(mutation string) string {
	if g.ErrorsIn == ErrorsInErrors {
		return "errors[].extensions.code"
	}
	return "data." + mutation + ".userErrors[].code"
}

// decodeGraphQL reads idempotency.graphql: required with key_in: graphql,
// meaningless without it.
func (d *decoder) decodeGraphQL(f map[string]*yaml.Node, path string, id *Idempotency) {
	p := path + ".graphql"
	v, written := f["graphql"]
	switch {
	case id.InGraphQL() && !written:
		d.errorf(d.resolve(f["key_in"]), p, "add `graphql: { path: /graphql, directive: idempotent, argument: key, errors_in: user-errors }`",
			"%s.key_in is graphql, but %s does not say where the mutations are sent and where the key goes", path, p)
		return
	case written && !id.InGraphQL():
		d.errorf(d.resolve(v), p, "add `key_in: graphql` to send the key in the mutation, or remove graphql",
			"%s describes a GraphQL key, but the key travels in %s", p, id.KeyPlace())
		return
	case !written:
		return
	}
	g := d.object(v, p, "path", "directive", "argument", "errors_in")
	if g == nil {
		return
	}
	gq := GraphQL{ErrorsIn: ErrorsInUserErrors}
	if x, ok := g["path"]; ok {
		gq.Path = d.str(x, p+".path")
		if !pathTemplate(gq.Path) || pathParams(gq.Path) != nil {
			d.errorf(d.resolve(x), p+".path", "write the endpoint's path, e.g. /admin/api/2026-04/graphql.json",
				"%s %q is not a path without {parameters}: letters, digits and -._~/:@%%+,= after a leading /", p+".path", gq.Path)
		}
	} else {
		d.errorf(d.resolve(v), p+".path", "add `path: /graphql` (where the API takes its mutations)", "%s needs path:", p)
	}
	if x, ok := g["directive"]; ok {
		gq.Directive = d.str(x, p+".directive")
		if !graphQLName(gq.Directive) {
			d.errorf(d.resolve(x), p+".directive", "write the directive's name without @, e.g. idempotent",
				"%s %q is not a GraphQL name ([_A-Za-z][_0-9A-Za-z]*)", p+".directive", gq.Directive)
		}
	}
	if x, ok := g["argument"]; ok {
		gq.Argument = d.str(x, p+".argument")
		if !graphQLName(gq.Argument) {
			d.errorf(d.resolve(x), p+".argument", "write the argument's name, e.g. key",
				"%s %q is not a GraphQL name ([_A-Za-z][_0-9A-Za-z]*)", p+".argument", gq.Argument)
		}
	} else {
		fix := "add `argument: idempotencyKey` (the mutation field's argument that takes the key)"
		if gq.Directive != "" {
			fix = "add `argument: key` (the @" + gq.Directive + " argument that takes the key)"
		}
		d.errorf(d.resolve(v), p+".argument", fix, "%s needs argument: the name the key is passed under", p)
	}
	if x, ok := g["errors_in"]; ok {
		gq.ErrorsIn = GraphQLErrors(d.enum(x, p+".errors_in", GraphQLErrorPlaces...))
	}
	id.GraphQL = gq
}

// checkGraphQLConflicts refuses what a GraphQL conflict cannot be: it is
// an entry in a 200 response, so it has no status of its own, and an entry
// without a code cannot be told from the mutation's other errors.
func (d *decoder) checkGraphQLConflicts(f map[string]*yaml.Node, path string, id Idempotency) {
	v, ok := f["conflicts"]
	if !ok || !id.InGraphQL() {
		return
	}
	cs := d.resolve(v)
	if cs.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(cs.Content); i += 2 {
		name, entry := cs.Content[i].Value, d.resolve(cs.Content[i+1])
		if entry.Kind != yaml.MappingNode {
			continue
		}
		p := path + ".conflicts." + name
		for j := 0; j+1 < len(entry.Content); j += 2 {
			k, val := entry.Content[j].Value, entry.Content[j+1]
			switch {
			case k == "status":
				d.errorf(d.resolve(val), p+".status", "remove status: the code alone names this conflict",
					"%s.status: a GraphQL API answers a mutation with 200 and reports this conflict as an error entry (%s), not with a status", p, id.GraphQL.CodeAt("<mutation>"))
			case k == "code" && d.resolve(val).Value == NoCode:
				d.errorf(d.resolve(val), p+".code", "write the code the API puts in the error entry",
					"%s.code: a GraphQL error entry without a code cannot be told from the mutation's other errors", p)
			}
		}
	}
}

// inGraphQL gives every stated conflict the status a GraphQL API answers
// it with, 200 (the code is in an error entry), so no output can show the
// HTTP defaults (409) for a conflict that never carries them. A conflict
// left zero stays zero (contract.Reply's HTTP default: the middleware
// refuses a GraphQL contract, and verify takes any refusal for a conflict
// the contract does not state).
func (cs *Conflicts) inGraphQL() {
	for _, c := range []*Conflict{&cs.PayloadMismatch, &cs.InFlight, &cs.MissingKey, &cs.InvalidKey, &cs.Expired, &cs.TooOld} {
		if c.Status != 0 {
			c.Status = 200
		}
	}
}

// graphQLName: a GraphQL Name ([_A-Za-z][_0-9A-Za-z]*), at most 64.
func graphQLName(s string) bool {
	if len(s) == 0 || len(s) > 64 || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '_' {
			return false
		}
	}
	return true
}

// decodeMutation reads endpoints[].mutation, the name of the mutation
// field a GraphQL endpoint is, in place of operation: it travels as a POST
// to idempotency.graphql.path.
func (d *decoder) decodeMutation(item *yaml.Node, f map[string]*yaml.Node, p string, e *Endpoint, id Idempotency, seen map[string]string) {
	v, ok := f["mutation"]
	switch {
	case !id.InGraphQL():
		if ok {
			d.errorf(d.resolve(v), p+".mutation", "write `operation: \"POST /v1/things\"`, or set idempotency.key_in: graphql",
				"%s names a GraphQL mutation, but the key travels in %s", p+".mutation", id.KeyPlace())
		}
		return
	case !ok:
		fix := `add mutation: the mutation field's name, e.g. inventorySetQuantities`
		if op, has := f["operation"]; has {
			d.errorf(d.resolve(op), p+".operation", fix+", in place of operation",
				"%s: with key_in: graphql an endpoint is a mutation, sent as a POST to %s", p, id.GraphQL.Path)
			return
		}
		d.errorf(d.resolve(item), p+".mutation", fix, "%s needs mutation:", p)
		return
	}
	if op, has := f["operation"]; has {
		d.errorf(d.resolve(op), p+".operation", "remove operation: the mutation is sent as a POST to idempotency.graphql.path",
			"%s has both mutation and operation", p)
	}
	e.Mutation = d.str(v, p+".mutation")
	if !graphQLName(e.Mutation) {
		d.errorf(d.resolve(v), p+".mutation", "write the mutation field's name, e.g. inventorySetQuantities",
			"%s %q is not a GraphQL name ([_A-Za-z][_0-9A-Za-z]*)", p+".mutation", e.Mutation)
		return
	}
	if prev, dup := seen["mutation "+e.Mutation]; dup {
		d.errorf(d.resolve(v), p+".mutation", "merge the two entries", "%s: %s is already listed at %s", p+".mutation", e.Mutation, prev)
	}
	seen["mutation "+e.Mutation] = p
	e.Method, e.Path, e.Operation = "POST", id.GraphQL.Path, "mutation "+e.Mutation
}

// KeyVariable is the GraphQL variable a mutation document passes the key
// in: the argument's own name when the key is a field argument
// (idempotencyKey), idempotencyKey when it is a directive's (key), so the
// document reads `@idempotent(key: $idempotencyKey)`.
func (g GraphQL) KeyVariable() string {
	if g.Directive == "" {
		return g.Argument
	}
	return "idempotencyKey"
}

// MutationDocument is the GraphQL document a client POSTs for mutation
// name: args (the endpoint's example body, an object whose members are the
// mutation field's arguments) written inline as GraphQL values, the key
// passed as $KeyVariable where the contract says (the directive on the
// mutation field, or the field's argument), and the selection that holds
// the conflict's code (userErrors { code message } under user-errors,
// __typename under errors, where the code is outside data). Arguments that
// GraphQL cannot spell (a member name that is not a GraphQL name) are left
// out, all of them, rather than half-written. Compact gives the one-line
// form a JSON "query" member carries.
func (g GraphQL) MutationDocument(name string, args JSONValue, compact bool) string {
	return g.document(name, args, compact, true)
}

// document is MutationDocument, without the key (no variable, no
// directive or key argument) when keyed is false.
func (g GraphQL) document(name string, args JSONValue, compact, keyed bool) string {
	nl, in1, in2, in3 := "\n", "  ", "    ", "      "
	if compact {
		nl, in1, in2, in3 = " ", "", "", ""
	}
	v := "$" + g.KeyVariable()
	var field []string
	if lits, ok := graphQLArguments(args, g.keyArgument()); ok {
		field = lits
	}
	call := name
	if keyed && g.Directive == "" {
		field = append(field, g.Argument+": "+v)
	}
	if len(field) > 0 {
		call += "(" + strings.Join(field, ", ") + ")"
	}
	if keyed && g.Directive != "" {
		call += " @" + g.Directive + "(" + g.Argument + ": " + v + ")"
	}
	decl := ""
	if keyed {
		decl = "(" + v + ": String!)"
	}
	var b strings.Builder
	b.WriteString("mutation " + name + decl + " {" + nl)
	b.WriteString(in1 + call + " {" + nl)
	if g.ErrorsIn == ErrorsInErrors {
		b.WriteString(in2 + "__typename" + nl)
	} else {
		b.WriteString(in2 + "userErrors {" + nl + in3 + "code" + nl + in3 + "message" + nl + in2 + "}" + nl)
	}
	b.WriteString(in1 + "}" + nl + "}")
	if !compact {
		b.WriteString("\n")
	}
	return b.String()
}

// keyArgument is the mutation field's argument the key fills, "" when a
// directive carries it.
func (g GraphQL) keyArgument() string {
	if g.Directive != "" {
		return ""
	}
	return g.Argument
}

// graphQLArguments writes an object's members as GraphQL arguments
// (name: value), leaving out skip (the key's own argument, which the
// variable fills); ok is false when args is not an object or a name at
// any depth is not a GraphQL name.
func graphQLArguments(args JSONValue, skip string) ([]string, bool) {
	if args.Kind != JSONObject {
		return nil, false
	}
	var out []string
	for _, m := range args.Members {
		if skip != "" && m.Name == skip {
			continue
		}
		var b strings.Builder
		if !graphQLName(m.Name) || !writeGraphQLValue(&b, m.Value) {
			return nil, false
		}
		out = append(out, m.Name+": "+b.String())
	}
	return out, true
}

// writeGraphQLValue writes v as a GraphQL input value. A JSON string is a
// GraphQL string with the same escapes, and a JSON number is a GraphQL
// Int or Float as written; only object member names need checking.
func writeGraphQLValue(b *strings.Builder, v JSONValue) bool {
	switch v.Kind {
	case JSONObject:
		b.WriteByte('{')
		for i, m := range v.Members {
			if !graphQLName(m.Name) {
				return false
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(m.Name + ": ")
			if !writeGraphQLValue(b, m.Value) {
				return false
			}
		}
		b.WriteByte('}')
	case JSONArray:
		b.WriteByte('[')
		for i, x := range v.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			if !writeGraphQLValue(b, x) {
				return false
			}
		}
		b.WriteByte(']')
	case JSONString:
		b.WriteString(JSONQuote(v.Text))
	default:
		b.WriteString(v.Text)
	}
	return true
}

// GraphQLReply is the 200 response body that reports answer k to
// mutation name, where idempotency.graphql.errors_in puts it: a userErrors
// entry in the mutation's payload, or a top-level error with the code in
// its extensions. Code and message are Reply's (the contract's, else
// DefaultMessage). The pages show it; a GraphQL fault server answers with
// these bytes.
func (c *Contract) GraphQLReply(k ReplyKind, name string) JSONValue {
	r := c.Reply(k)
	str := func(s string) JSONValue { return JSONValue{Kind: JSONString, Text: s} }
	obj := func(ms ...JSONMember) JSONValue { return JSONValue{Kind: JSONObject, Members: ms} }
	list := func(v JSONValue) JSONValue { return JSONValue{Kind: JSONArray, Items: []JSONValue{v}} }
	if c.Idempotency.GraphQL.ErrorsIn == ErrorsInErrors {
		entry := obj(JSONMember{"message", str(r.Message)}, JSONMember{"extensions", obj(JSONMember{"code", str(r.Code)})})
		return obj(JSONMember{"errors", list(entry)})
	}
	entry := obj(JSONMember{"code", str(r.Code)}, JSONMember{"message", str(r.Message)})
	return obj(JSONMember{"data", obj(JSONMember{name, obj(JSONMember{"userErrors", list(entry)})})})
}
