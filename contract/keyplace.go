package contract

import (
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// KeyIn is where the idempotency key travels in a request
// (idempotency.key_in). It names a place the way OpenAPI's parameter `in`
// does, so the next places extend this list without renaming anything: a
// first-sent header beside the key header (Azure's Repeatability-Request-Id
// with Repeatability-First-Sent) stays `key_in: header` with the sibling
// first_sent section, and a GraphQL argument or directive becomes a value
// of its own (`key_in: graphql`) with its own sibling field.
type KeyIn string

const (
	// KeyInHeader sends the key in idempotency.header (the default, and
	// every contract's place before key_in existed).
	KeyInHeader KeyIn = "header"
	// KeyInBody sends the key as a member of the JSON request body, at
	// idempotency.key_field (Square's /idempotency_key).
	KeyInBody KeyIn = "body"
)

// KeyIns are key_in's values as the file spells them.
var KeyIns = names(KeyInHeader, KeyInBody, KeyInGraphQL)

// InBody reports whether the key travels in the JSON request body.
func (id Idempotency) InBody() bool { return id.KeyIn == KeyInBody }

// KeyFieldPointer is key_field as written (/idempotency_key); "" when the
// key travels in a header.
func (id Idempotency) KeyFieldPointer() string { return Pointer(id.KeyField) }

// KeyPlace names where the key travels, for sentences: "the
// Idempotency-Key header" or "the idempotency_key member of the JSON body".
func (id Idempotency) KeyPlace() string {
	if id.InGraphQL() {
		if id.GraphQL.Directive != "" {
			return "the " + id.GraphQL.Argument + " argument of the @" + id.GraphQL.Directive + " directive on the mutation"
		}
		return "the " + id.GraphQL.Argument + " argument of the mutation"
	}
	if id.InBody() {
		return "the " + id.KeyFieldPointer() + " member of the JSON body"
	}
	return "the " + id.Header + " header"
}

// MaxKeyLengthFor is the longest key endpoint e accepts: its own
// max_key_length, else idempotency.max_key_length.
func (c *Contract) MaxKeyLengthFor(e Endpoint) int {
	if e.MaxKeyLength > 0 {
		return e.MaxKeyLength
	}
	return c.Idempotency.MaxKeyLength
}

// MintedKeyLength is the length of the keys the snippets mint when the
// caller passes none (a UUID v4, 36 characters), as it travels: quoted
// under header_value: sf-string. A max_key_length below it cannot accept
// the keys the published code sends (key/max-length-below-key-form).
func (id Idempotency) MintedKeyLength() int {
	const uuid = 36
	if !id.InBody() && id.HeaderValue == HeaderSFString {
		return uuid + 2
	}
	return uuid
}

// ShortestKey is the fewest characters a derivation example's keys have:
// its text without the {placeholders} the caller fills in.
func (d Derivation) ShortestKey() int {
	n, depth := 0, 0
	for _, r := range d.Example {
		switch {
		case r == '{':
			depth++
		case r == '}' && depth > 0:
			depth--
		case depth == 0:
			n++
		}
	}
	return n
}

// decodeKeyIn reads key_in and key_field, after header: key_field is
// required with key_in: body and meaningless with a header.
func (d *decoder) decodeKeyIn(f map[string]*yaml.Node, path string, id *Idempotency) {
	if v, ok := f["key_in"]; ok {
		id.KeyIn = KeyIn(d.enum(v, path+".key_in", KeyIns...))
	}
	v, written := f["key_field"]
	switch {
	case id.KeyIn == KeyInBody && !written:
		if n, ok := f["key_in"]; ok {
			d.errorf(d.resolve(n), path+".key_field", "add `key_field: /idempotency_key` (a JSON pointer to the body member that carries the key)",
				"%s.key_in is body, but %s.key_field does not say which member carries the key", path, path)
		}
	case written && id.KeyIn != KeyInBody:
		d.errorf(d.resolve(v), path+".key_field", "add `key_in: body` to send the key in the body, or remove key_field to keep it in the "+id.Header+" header",
			"%s.key_field names a body member, but the key travels in a header (key_in: header)", path)
	case written:
		s := d.str(v, path+".key_field")
		t, err := parseMemberPointer(s)
		if err != nil {
			d.errorf(d.resolve(v), path+".key_field", "write a JSON pointer to an object member, e.g. /idempotency_key", "%s.key_field: %v", path, err)
			return
		}
		if len(t) > 1 {
			// The snippets that send the body as JSON text (Java, curl) put
			// the key in as the object's first member; a nested member would
			// need a JSON library they do not have. The pointer form keeps
			// the door open without renaming the field.
			d.errorf(d.resolve(v), path+".key_field", "name a member of the body's top-level object, e.g. /idempotency_key",
				"%s.key_field %s is nested; the key travels in a member of the body's top-level object", path, s)
			return
		}
		id.KeyField = t
	}
}

// decodeEndpointKeyLength reads endpoints[].max_key_length: a per-endpoint
// bound (Square's differ by endpoint), never above the API-wide one, which
// sizes the key store's column.
func (d *decoder) decodeEndpointKeyLength(f map[string]*yaml.Node, path string, e *Endpoint, id Idempotency) {
	v, ok := f["max_key_length"]
	if !ok {
		return
	}
	e.MaxKeyLength = d.integer(v, path+".max_key_length", 1, 8192)
	// On an endpoint without a key the bound is moot, not wrong: it is kept
	// so that a key: none written while reviewing keeps its figure.
	if e.MaxKeyLength > id.MaxKeyLength {
		d.errorf(d.resolve(v), path+".max_key_length", "raise idempotency.max_key_length to at least "+strconv.Itoa(e.MaxKeyLength)+" (it sizes the server's key column), or lower this one",
			"%s.max_key_length %d is above idempotency.max_key_length %d, the longest key the server stores", path, e.MaxKeyLength, id.MaxKeyLength)
		e.MaxKeyLength = 0
	}
}

// WithKey is body with key at key_field: the member replaced where the
// body already has it, else added first to its object, with any object on
// the way created. The one function behind the key's place in the docs'
// example request and in the snippets that send the body as JSON text. A
// header key leaves body as it is; so does a body whose way to the member
// passes through something other than an object (the loader refuses such
// an example, checkBodyKey).
func (id Idempotency) WithKey(body JSONValue, key string) JSONValue {
	if !id.InBody() || len(id.KeyField) == 0 {
		return body
	}
	out, _ := withMember(body, id.KeyField, JSONValue{Kind: JSONString, Text: key})
	return out
}

func withMember(v JSONValue, tokens []string, leaf JSONValue) (JSONValue, bool) {
	if v.Kind != JSONObject {
		return v, false
	}
	members := append([]JSONMember(nil), v.Members...)
	for i, m := range members {
		if m.Name != tokens[0] {
			continue
		}
		if len(tokens) == 1 {
			members[i].Value = leaf
			return JSONValue{Kind: JSONObject, Members: members}, true
		}
		inner, ok := withMember(m.Value, tokens[1:], leaf)
		if !ok {
			return v, false
		}
		members[i].Value = inner
		return JSONValue{Kind: JSONObject, Members: members}, true
	}
	next := leaf
	if len(tokens) > 1 {
		next, _ = withMember(JSONValue{Kind: JSONObject}, tokens[1:], leaf)
	}
	// First, where a reader sees it, and where the snippets that send the
	// body as JSON text put it.
	return JSONValue{Kind: JSONObject, Members: append([]JSONMember{{Name: tokens[0], Value: next}}, members...)}, true
}

// bodylessMethods carry no request body a server reads (RFC 9110 gives a
// GET, HEAD, DELETE or OPTIONS body no defined meaning), so a key cannot
// travel in one.
var bodylessMethods = []string{"GET", "HEAD", "DELETE", "OPTIONS"}

// checkEndpointKey refuses the combinations of an endpoint and the key's
// place that cannot work: a QUERY with a key (safe by definition: a retry
// changes nothing, so there is nothing to collapse), a body-field key on a
// method without a body or with an example body that is not a JSON object
// holding the member, and a max_key_length shorter than the keys the
// published code mints or the contract's own derivation examples.
func (d *decoder) checkEndpointKey(item *yaml.Node, f map[string]*yaml.Node, path string, e Endpoint, id Idempotency) {
	at := func(key string) *yaml.Node {
		if v, ok := f[key]; ok {
			return d.resolve(v)
		}
		return d.resolve(item)
	}
	if e.Method == MethodQuery && e.Effect != "" && e.Effect != EffectRead {
		d.errorf(at("effect"), path+".effect", "set effect: read, or list the operation under the method that changes state (POST)",
			"%s is a QUERY, safe by definition, but its effect is %s", e.Operation, e.Effect)
	}
	if e.Method == MethodQuery && e.Keyed() {
		d.errorf(at("key"), path+".key", "set key: none: a QUERY only reads, so a retry is safe without a key",
			"%s is a QUERY, safe and idempotent by definition, but takes a key (key: %s)", e.Operation, e.Key)
		return
	}
	if !e.Keyed() {
		return
	}
	if id.InBody() {
		for _, m := range bodylessMethods {
			if e.Method == m {
				d.errorf(at("key"), path+".key", "send the key in a header (idempotency.key_in: header), or give "+e.Operation+" no key if it is idempotent by nature",
					"%s takes a key, but the key travels in the JSON body (%s) and a %s request has no body", e.Operation, id.KeyFieldPointer(), m)
				return
			}
		}
		if body, ok := e.ExampleBody(); ok {
			if _, fits := withMember(body, id.KeyField, JSONValue{Kind: JSONString}); !fits {
				d.errorf(at("example"), path+".example.body", "make the example body a JSON object whose members on the way to "+id.KeyFieldPointer()+" are objects, or send the key in a header (idempotency.key_in: header)",
					"%s: the example body cannot carry the key at %s: it is not a JSON object there", e.Operation, id.KeyFieldPointer())
			}
		}
	}
	if e.MaxKeyLength > 0 {
		d.checkKeyLength(at("max_key_length"), path+".max_key_length", e.MaxKeyLength, id)
	}
}

// checkKeyLength refuses a bound shorter than the keys clients send: the
// UUIDs the snippets mint (in the key's form), or a derivation example's
// text without its placeholders.
func (d *decoder) checkKeyLength(n *yaml.Node, path string, max int, id Idempotency) {
	if minted := id.MintedKeyLength(); max < minted {
		d.errorf(n, path, "raise it to at least "+strconv.Itoa(minted)+", or have clients mint shorter keys and say so in the derivation examples",
			"%s %d is shorter than the key the published code mints (a UUID, %d characters as sent): every request from it would be refused", path, max, minted)
		return
	}
	for _, dv := range id.Derivation {
		if n2 := dv.ShortestKey(); n2 > max {
			d.errorf(n, path, "raise it to at least "+strconv.Itoa(n2)+", or shorten the derivation example",
				"%s %d is shorter than the derivation example %q, which has at least %d characters", path, max, dv.Example, n2)
			return
		}
	}
}

// WithoutKey is body without the key_field member: the example body the
// snippets start from, which their code then gives the key (a body that
// already held a sample key would otherwise send it twice or stale).
func (id Idempotency) WithoutKey(body JSONValue) JSONValue {
	if !id.InBody() || len(id.KeyField) != 1 || body.Kind != JSONObject {
		return body
	}
	out := JSONValue{Kind: JSONObject}
	for _, m := range body.Members {
		if m.Name != id.KeyField[0] {
			out.Members = append(out.Members, m)
		}
	}
	return out
}

// KeyMember is the body member that carries the key (idempotency_key for
// /idempotency_key); "" when the key travels in a header.
func (id Idempotency) KeyMember() string {
	if !id.InBody() || len(id.KeyField) == 0 {
		return ""
	}
	return id.KeyField[len(id.KeyField)-1]
}

// endpointKeyBounds reports whether some keyed endpoint takes shorter keys
// than idempotency.max_key_length.
func (c *Contract) endpointKeyBounds() bool {
	for _, e := range c.Endpoints {
		if e.Keyed() && e.MaxKeyLength > 0 && e.MaxKeyLength < c.Idempotency.MaxKeyLength {
			return true
		}
	}
	return false
}

// KeyBound is the bound of the endpoints that take shorter keys than the
// API-wide max_key_length, for the pages and the OpenAPI description.
type KeyBound struct {
	Length     int
	Operations []string
}

// KeyBounds lists the endpoints' own bounds, shortest first, each with its
// operations in contract order; nil when every endpoint takes the API's.
func (c *Contract) KeyBounds() []KeyBound {
	var out []KeyBound
	for _, e := range c.Endpoints {
		if !e.Keyed() || e.MaxKeyLength == 0 || e.MaxKeyLength >= c.Idempotency.MaxKeyLength {
			continue
		}
		i := slices.IndexFunc(out, func(b KeyBound) bool { return b.Length == e.MaxKeyLength })
		if i < 0 {
			out = append(out, KeyBound{Length: e.MaxKeyLength})
			i = len(out) - 1
		}
		out[i].Operations = append(out[i].Operations, e.Operation)
	}
	slices.SortStableFunc(out, func(a, b KeyBound) int { return a.Length - b.Length })
	return out
}
