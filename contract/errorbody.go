package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
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
	// Format is the media type of the bodies: "" or ErrorFormatJSON for
	// application/json, ErrorFormatProblem for RFC 9457
	// application/problem+json (type, title, status and detail members,
	// the code as an extension member).
	Format ErrorFormat
}

// DefaultErrorBody is the shape every output uses when the contract states
// no api.error_body: a flat {"code": ..., "message": ...}. The docs, the
// OpenAPI additions, the middleware and verify all read it through
// Effective, so they cannot disagree.
var DefaultErrorBody = ErrorBody{CodeAt: []string{"code"}, MessageAt: []string{"message"}}

// Problem+JSON's defaults: the code as an extension member, the message in
// detail (RFC 9457 section 3).
var (
	problemCodeAt    = []string{"code"}
	problemMessageAt = []string{"detail"}
)

// Effective is the shape error bodies have: the stated one, or
// DefaultErrorBody.
func (b ErrorBody) Effective() ErrorBody {
	if !b.Set() {
		return DefaultErrorBody
	}
	return b
}

// MediaType is the Content-Type of the API's error bodies.
func (b ErrorBody) MediaType() string {
	if b.Format == ErrorFormatProblem {
		return "application/problem+json"
	}
	return "application/json"
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

// BodyValue is a JSON value of an error body: an object (fields in order),
// a list, a number or a string. It marshals in that order, so bodies are
// deterministic and the code comes first.
type BodyValue struct {
	Fields           []BodyField // an object, when IsObject
	Items            []BodyValue // a list, when IsList
	Text             string      // a string otherwise
	Number           int         // a number, when IsNumber
	IsObject, IsList bool
	IsNumber         bool
	// Role says what a leaf holds, so a schema can be derived from a body.
	Role Leaf
}

// Leaf is what a leaf of an error body holds.
type Leaf int

const (
	// LeafFixed is a constant of the shape (problem+json's type and title).
	LeafFixed Leaf = iota
	// LeafCode is the machine-readable code.
	LeafCode
	// LeafMessage is the human-readable message.
	LeafMessage
	// LeafStatus is the HTTP status, repeated in the body (problem+json).
	LeafStatus
)

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
	v.set(b.CodeAt, BodyValue{Text: code, Role: LeafCode})
	if len(b.MessageAt) > 0 {
		v.set(b.MessageAt, BodyValue{Text: message, Role: LeafMessage})
	}
	return v
}

// Render is the error body the API sends with status, code and message, in
// the effective shape: the one function behind every error body the docs,
// the OpenAPI additions, the fault server and the middleware show or send.
// An empty code (a conflict the contract answers by status only) leaves
// the code member out.
func (b ErrorBody) Render(status int, code, message string) BodyValue {
	e := b.Effective()
	var v BodyValue
	if e.Format == ErrorFormatProblem {
		v.set([]string{"type"}, BodyValue{Text: "about:blank"})
		v.set([]string{"title"}, BodyValue{Text: statusTitle(status)})
		v.set([]string{"status"}, BodyValue{Number: status, IsNumber: true, Role: LeafStatus})
		v.set(e.MessageAt, BodyValue{Text: message, Role: LeafMessage})
		if code != "" {
			v.set(e.CodeAt, BodyValue{Text: code, Role: LeafCode})
		}
		return v
	}
	if code != "" {
		v.set(e.CodeAt, BodyValue{Text: code, Role: LeafCode})
	}
	if len(e.MessageAt) > 0 {
		v.set(e.MessageAt, BodyValue{Text: message, Role: LeafMessage})
	}
	if !v.IsObject && !v.IsList {
		v.IsObject = true // a body without code and message is still an object
	}
	return v
}

func (v *BodyValue) set(tokens []string, leaf BodyValue) {
	if len(tokens) == 0 {
		*v = leaf
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
	case v.IsNumber:
		return json.Marshal(v.Number)
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
	f := d.object(n, p, "format", "code_at", "message_at", "schema_ref")
	if f == nil {
		return
	}
	b := &c.API.ErrorBody
	if v, ok := f["format"]; ok {
		b.Format = ErrorFormat(d.enum(v, p+".format", ErrorFormats...))
	}
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
	_, codeWritten := f["code_at"]
	msg, mv := pointer("message_at")
	if b.Format == ErrorFormatProblem {
		// RFC 9457 names the message's place (detail); the code is an
		// extension member unless the contract points elsewhere.
		if !codeWritten {
			code = problemCodeAt
		}
		if _, ok := f["message_at"]; !ok {
			msg = problemMessageAt
		}
		if code != nil && problemMember(code) {
			d.errorf(d.resolve(f["code_at"]), p+".code_at", "point code_at at an extension member, e.g. /code (or /type for a problem type URI)",
				"%s.code_at %s is a member problem+json fixes (title, status or detail): it cannot hold the code", p, Pointer(code))
			code = nil
		}
	} else if !codeWritten {
		d.errorf(d.resolve(n), p+".code_at", "add `code_at: /error/code` (a JSON pointer to the code in the API's error body)", "%s needs code_at:", p)
	}
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
		b.MessageAt, b.SchemaRef, b.Format = nil, "", ""
	}
}

// problemMember reports whether a pointer names one of the members RFC 9457
// gives a fixed meaning to and the body fills itself.
func problemMember(tokens []string) bool {
	if len(tokens) != 1 {
		return false
	}
	switch tokens[0] {
	case "title", "status", "detail":
		return true
	}
	return false
}

// statusTitle is problem+json's title for the status: its reason phrase,
// as RFC 9457 asks with the type about:blank.
func statusTitle(status int) string {
	if t, ok := reasonPhrases[status]; ok {
		return t
	}
	return "Error " + strconv.Itoa(status)
}

// reasonPhrases are the client and server error phrases of the IANA HTTP
// status registry (the same text as net/http's StatusText, which this
// package cannot import: the contract model stays free of the network
// stack, see internal/layering). TestReasonPhrasesMatchNetHTTP keeps them equal.
var reasonPhrases = map[int]string{
	400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden",
	404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required",
	408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required",
	412: "Precondition Failed", 413: "Request Entity Too Large", 414: "Request URI Too Long", 415: "Unsupported Media Type",
	416: "Requested Range Not Satisfiable", 417: "Expectation Failed", 418: "I'm a teapot", 421: "Misdirected Request",
	422: "Unprocessable Entity", 423: "Locked", 424: "Failed Dependency", 425: "Too Early",
	426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests", 431: "Request Header Fields Too Large",
	451: "Unavailable For Legal Reasons",
	500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
	504: "Gateway Timeout", 505: "HTTP Version Not Supported", 506: "Variant Also Negotiates", 507: "Insufficient Storage",
	508: "Loop Detected", 510: "Not Extended", 511: "Network Authentication Required",
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
