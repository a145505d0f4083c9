package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrorBody is where the API's own error responses carry the
// machine-readable code and the message (api.error_body). Every output that
// shows or reads an error body follows it: the docs' example bodies, the
// snippets' in-flight conflict detection, the OpenAPI conflict responses.
// The zero value means the contract does not say; each output then keeps
// the shape it always used.
type ErrorBody struct {
	// CodeAt is the JSON pointer (RFC 6901) to the code, as its tokens:
	// /error/code is ["error", "code"]. A token "0" is the first item of a
	// list (/errors/0/code, as JSON:API).
	CodeAt []string
	// MessageAt points at the human-readable message; nil when the
	// contract names none.
	MessageAt []string
	// SchemaRef is the spec's existing error schema, a local reference
	// such as #/components/schemas/Error; "" derives one from the pointers.
	SchemaRef string
}

// Set reports whether the contract states the error body.
func (b ErrorBody) Set() bool { return len(b.CodeAt) > 0 }

// Pointer writes tokens back as a JSON pointer.
func Pointer(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	return "/" + strings.Join(tokens, "/")
}

// CodeKey is the name of the member that holds the code ("code" for
// /error/code): the last token, always a name (the loader refuses a list
// index there).
func (b ErrorBody) CodeKey() string {
	if !b.Set() {
		return ""
	}
	return b.CodeAt[len(b.CodeAt)-1]
}

// BodyValue is a JSON value of an example error body: an object (fields in
// order), a list, or a string. It marshals in that order, so examples are
// deterministic and the code comes first.
type BodyValue struct {
	Fields           []BodyField // an object, when IsObject
	Items            []BodyValue // a list, when IsList
	Text             string      // a string otherwise
	IsObject, IsList bool
}

// BodyField is one member of an object.
type BodyField struct {
	Name  string
	Value BodyValue
}

// Example is an error body with code at CodeAt and message at MessageAt
// (when set). Callers building a schema pass labels instead of values and
// map the leaves back.
func (b ErrorBody) Example(code, message string) BodyValue {
	var v BodyValue
	v.set(b.CodeAt, code)
	if len(b.MessageAt) > 0 {
		v.set(b.MessageAt, message)
	}
	return v
}

func (v *BodyValue) set(tokens []string, leaf string) {
	if len(tokens) == 0 {
		*v = BodyValue{Text: leaf}
		return
	}
	t := tokens[0]
	if t == "0" {
		v.IsList = true
		if len(v.Items) == 0 {
			v.Items = []BodyValue{{}}
		}
		v.Items[0].set(tokens[1:], leaf)
		return
	}
	v.IsObject = true
	for i := range v.Fields {
		if v.Fields[i].Name == t {
			v.Fields[i].Value.set(tokens[1:], leaf)
			return
		}
	}
	v.Fields = append(v.Fields, BodyField{Name: t})
	v.Fields[len(v.Fields)-1].Value.set(tokens[1:], leaf)
}

// MarshalJSON writes the value with its fields in order. json.Marshal
// escapes <, > and &, so the text is inert in HTML and Markdown.
func (v BodyValue) MarshalJSON() ([]byte, error) {
	switch {
	case v.IsObject:
		var b bytes.Buffer
		b.WriteByte('{')
		for i, f := range v.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(f.Name)
			b.Write(k)
			b.WriteByte(':')
			x, err := f.Value.MarshalJSON()
			if err != nil {
				return nil, err
			}
			b.Write(x)
		}
		b.WriteByte('}')
		return b.Bytes(), nil
	case v.IsList:
		return json.Marshal(v.Items)
	}
	return json.Marshal(v.Text)
}

// pointerToken is a member name a pointer may use: it reaches generated
// code in every snippet language, so it stays a plain identifier (no
// quotes, no ~ escapes, no slash).
var pointerToken = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

const maxPointerDepth = 8

// parsePointer checks a JSON pointer for api.error_body.
func parsePointer(s string) ([]string, error) {
	// A hostile file may hold megabytes here; messages quote at most a line.
	q := clipQuoted(s)
	if !strings.HasPrefix(s, "/") {
		return nil, fmt.Errorf("%q is not a JSON pointer; a pointer starts with / (e.g. /error/code)", q)
	}
	tokens := strings.SplitN(s[1:], "/", maxPointerDepth+1)
	if len(tokens) > maxPointerDepth {
		return nil, fmt.Errorf("%q is more than %d levels deep", q, maxPointerDepth)
	}
	for i, t := range tokens {
		switch {
		case t == "0" && i < len(tokens)-1:
			// the first item of a list
		case t == "0":
			return nil, fmt.Errorf("%q ends in a list index; point at the member that holds the text (e.g. /errors/0/code)", q)
		case isAllDigits(t) && t != "":
			return nil, fmt.Errorf("%q uses the list index %s; only the first item (0) can be pointed at", q, clipQuoted(t))
		case !pointerToken.MatchString(t):
			return nil, fmt.Errorf("%q: the member name %q must be letters, digits, _ or - (starting with a letter or _), at most 64 characters", q, clipQuoted(t))
		}
	}
	return tokens, nil
}

// localSchemaRef is a reference into the spec's own components: external
// references stay off (the spec's $refs to other files are refused unless
// asked for), so the contract cannot ask for one either.
var localSchemaRef = regexp.MustCompile(`^#/components/schemas/[A-Za-z0-9._-]{1,128}$`)

func (d *decoder) decodeErrorBody(n *yaml.Node, c *Contract) {
	const p = "api.error_body"
	f := d.object(n, p, "code_at", "message_at", "schema_ref")
	if f == nil {
		return
	}
	b := &c.API.ErrorBody
	pointer := func(key string) ([]string, *yaml.Node) {
		v, ok := f[key]
		if !ok {
			return nil, nil
		}
		s := d.str(v, p+"."+key)
		if s == "" {
			return nil, nil
		}
		t, err := parsePointer(s)
		if err != nil {
			d.errorf(d.resolve(v), p+"."+key, "write a JSON pointer to the member, e.g. /error/code for {\"error\": {\"code\": \"...\"}} or /code for a flat body", "%s.%s: %v", p, key, err)
			return nil, nil
		}
		return t, v
	}
	code, _ := pointer("code_at")
	if _, ok := f["code_at"]; !ok {
		d.errorf(d.resolve(n), p+".code_at", "add `code_at: /error/code` (a JSON pointer to the code in the API's error body)", "%s needs code_at:", p)
	}
	msg, mv := pointer("message_at")
	if code != nil && msg != nil {
		if prefixOf(code, msg) || prefixOf(msg, code) {
			d.errorf(d.resolve(mv), p+".message_at", "point the code and the message at two different members", "%s.message_at %s overlaps code_at %s: one member cannot hold both", p, Pointer(msg), Pointer(code))
			msg = nil
		}
	}
	b.CodeAt, b.MessageAt = code, msg
	if v, ok := f["schema_ref"]; ok {
		if r := d.resolve(v); r.Tag == "!!null" && strings.HasPrefix(strings.TrimSpace(r.LineComment+keyComment(n, "schema_ref")), "#/") {
			d.errorf(r, p+".schema_ref", "quote it: schema_ref: \"#/components/schemas/Error\"", "%s is empty: an unquoted # starts a YAML comment", p+".schema_ref")
			return
		}
		s := d.str(v, p+".schema_ref")
		if s != "" && !localSchemaRef.MatchString(s) {
			d.errorf(d.resolve(v), p+".schema_ref", "name a schema of the spec itself, e.g. \"#/components/schemas/Error\" (quoted: # starts a YAML comment)", "%s.schema_ref: %q is not a reference to #/components/schemas/NAME", p, s)
			s = ""
		}
		b.SchemaRef = s
	}
	if !b.Set() {
		b.MessageAt, b.SchemaRef = nil, ""
	}
}

func prefixOf(a, b []string) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// keyComment is the line comment yaml attaches to key's node in mapping n.
func keyComment(n *yaml.Node, key string) string {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i].LineComment + n.Content[i+1].LineComment
		}
	}
	return ""
}
