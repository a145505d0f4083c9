package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ExampleRequest is the request the docs and the snippets show for a keyed
// endpoint (endpoints[].example): a body the API accepts and values for
// the path's parameters, so a reader sees their own API, not a stand-in.
type ExampleRequest struct {
	// Body is the request body, its members in the order written.
	Body *JSONValue
	// Path fills the path's {parameters} by name; a parameter it leaves
	// out is shown as example_NAME.
	Path map[string]string
}

// JSONKind is the kind of a JSON value.
type JSONKind string

const (
	JSONNull   JSONKind = "null"
	JSONBool   JSONKind = "boolean"
	JSONNumber JSONKind = "number"
	JSONString JSONKind = "string"
	JSONObject JSONKind = "object"
	JSONArray  JSONKind = "array"
)

// JSONValue is one JSON value that keeps its object members in the order
// written: the snippets write it as each language's literal, member for
// member, and the pages as JSON.
type JSONValue struct {
	Kind JSONKind
	// Text is a string's value, a number as written, or "true"/"false".
	Text    string
	Members []JSONMember // an object's
	Items   []JSONValue  // an array's
}

// JSONMember is one member of a JSON object.
type JSONMember struct {
	Name  string
	Value JSONValue
}

// Limits of an example body: it is shown on a page and pasted into six
// languages' code. Integers stay within I-JSON's exact range (RFC 7493) so
// every language reads the figure the contract wrote.
const (
	MaxExampleBody  = 4096
	maxExampleDepth = 16
	maxExactInt     = 1<<53 - 1
)

// String writes the value as one line of JSON, ", " and ": " between
// members, for pages and for the languages that send the body as text.
func (v JSONValue) String() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v JSONValue) write(b *strings.Builder) {
	switch v.Kind {
	case JSONObject:
		b.WriteByte('{')
		for i, m := range v.Members {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(JSONQuote(m.Name))
			b.WriteString(": ")
			m.Value.write(b)
		}
		b.WriteByte('}')
	case JSONArray:
		b.WriteByte('[')
		for i, x := range v.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			x.write(b)
		}
		b.WriteByte(']')
	case JSONString:
		b.WriteString(JSONQuote(v.Text))
	default:
		b.WriteString(v.Text)
	}
}

// JSONQuote is s as a JSON string, without HTML escaping (pages escape
// what they show; a body written with \u0026 for & reads wrong).
func JSONQuote(s string) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(strings.ToValidUTF8(s, "\uFFFD"))
	return strings.TrimSuffix(b.String(), "\n")
}

// ParseExampleBody reads a JSON document as an example body and checks it
// against the limits every target language can write back exactly: no
// duplicate member names, integers within ±(2^53-1), finite numbers, at
// most 16 levels and 4096 bytes.
func ParseExampleBody(data []byte) (JSONValue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readJSON(dec, 0)
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return JSONValue{}, fmt.Errorf("%v (at byte %d)", err, se.Offset)
		}
		return JSONValue{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return JSONValue{}, fmt.Errorf("text after the JSON value (at byte %d)", dec.InputOffset())
	}
	return v, checkExample(v)
}

func readJSON(dec *json.Decoder, depth int) (JSONValue, error) {
	if depth > maxExampleDepth {
		return JSONValue{}, fmt.Errorf("nested more than %d levels", maxExampleDepth)
	}
	tok, err := dec.Token()
	if err == io.EOF {
		return JSONValue{}, fmt.Errorf("no JSON value")
	}
	if err != nil {
		return JSONValue{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			v := JSONValue{Kind: JSONObject}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return JSONValue{}, err
				}
				name, _ := k.(string)
				m, err := readJSON(dec, depth+1)
				if err != nil {
					return JSONValue{}, err
				}
				v.Members = append(v.Members, JSONMember{Name: name, Value: m})
			}
			_, err := dec.Token()
			return v, err
		}
		v := JSONValue{Kind: JSONArray, Items: []JSONValue{}}
		for dec.More() {
			x, err := readJSON(dec, depth+1)
			if err != nil {
				return JSONValue{}, err
			}
			v.Items = append(v.Items, x)
		}
		_, err := dec.Token()
		return v, err
	case string:
		return JSONValue{Kind: JSONString, Text: t}, nil
	case json.Number:
		return JSONValue{Kind: JSONNumber, Text: t.String()}, nil
	case bool:
		return JSONValue{Kind: JSONBool, Text: strconv.FormatBool(t)}, nil
	}
	return JSONValue{Kind: JSONNull, Text: "null"}, nil
}

// exampleFromYAML reads a YAML value written as JSON: mappings, lists,
// strings, numbers, true, false, null.
func exampleFromYAML(n *yaml.Node, depth int) (JSONValue, error) {
	if depth > maxExampleDepth {
		return JSONValue{}, fmt.Errorf("nested more than %d levels", maxExampleDepth)
	}
	switch n.Kind {
	case yaml.MappingNode:
		v := JSONValue{Kind: JSONObject}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Value == "<<" {
				return JSONValue{}, fmt.Errorf("line %d column %d: a member name must be a plain string", k.Line, k.Column)
			}
			m, err := exampleFromYAML(n.Content[i+1], depth+1)
			if err != nil {
				return JSONValue{}, err
			}
			v.Members = append(v.Members, JSONMember{Name: k.Value, Value: m})
		}
		return v, nil
	case yaml.SequenceNode:
		v := JSONValue{Kind: JSONArray, Items: []JSONValue{}}
		for _, c := range n.Content {
			x, err := exampleFromYAML(c, depth+1)
			if err != nil {
				return JSONValue{}, err
			}
			v.Items = append(v.Items, x)
		}
		return v, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return JSONValue{Kind: JSONNull, Text: "null"}, nil
		case "!!bool":
			if n.Value != "true" && n.Value != "false" {
				return JSONValue{}, fmt.Errorf("line %d column %d: %q is a YAML 1.1 boolean; write true or false", n.Line, n.Column, n.Value)
			}
			return JSONValue{Kind: JSONBool, Text: n.Value}, nil
		case "!!int", "!!float":
			if !json.Valid([]byte(n.Value)) {
				return JSONValue{}, fmt.Errorf("line %d column %d: %q is not a JSON number", n.Line, n.Column, n.Value)
			}
			return JSONValue{Kind: JSONNumber, Text: n.Value}, nil
		case "!!str":
			return JSONValue{Kind: JSONString, Text: n.Value}, nil
		}
		return JSONValue{}, fmt.Errorf("line %d column %d: %s is not a JSON value", n.Line, n.Column, n.ShortTag())
	}
	return JSONValue{}, fmt.Errorf("line %d column %d: YAML aliases are not allowed in an example body", n.Line, n.Column)
}

// checkExample enforces the limits ParseExampleBody names.
func checkExample(v JSONValue) error {
	if n := len(v.String()); n > MaxExampleBody {
		return fmt.Errorf("the body is %d bytes as JSON; an example is at most %d", n, MaxExampleBody)
	}
	return checkValue(v)
}

func checkValue(v JSONValue) error {
	switch v.Kind {
	case JSONObject:
		seen := make(map[string]bool, len(v.Members))
		for _, m := range v.Members {
			if seen[m.Name] {
				return fmt.Errorf("member %q is written twice", m.Name)
			}
			seen[m.Name] = true
			if err := checkValue(m.Value); err != nil {
				return err
			}
		}
	case JSONArray:
		for _, x := range v.Items {
			if err := checkValue(x); err != nil {
				return err
			}
		}
	case JSONNumber:
		f, err := strconv.ParseFloat(v.Text, 64)
		if err != nil || math.IsInf(f, 0) {
			return fmt.Errorf("%s is out of range for a 64-bit float", v.Text)
		}
		if !strings.ContainsAny(v.Text, ".eE") && math.Abs(f) > maxExactInt {
			return fmt.Errorf("%s is beyond ±(2^53-1), where not every language reads an integer exactly; send it as a string", v.Text)
		}
	}
	return nil
}

// pathValue is what a path parameter's example may hold: URL-unreserved
// characters, so the path needs no escaping in any language or URL.
var pathValue = regexp.MustCompile(`^[A-Za-z0-9._~-]{1,100}$`)

// decodeExample reads endpoints[].example: body (a YAML mapping or list,
// or a string holding JSON) and path (parameter values).
func (d *decoder) decodeExample(n *yaml.Node, p string, e *Endpoint) {
	f := d.object(n, p, "body", "path")
	if f == nil {
		return
	}
	ex := &ExampleRequest{}
	if v, ok := f["body"]; ok {
		ex.Body = d.exampleBody(d.resolve(v), p+".body")
	}
	if v, ok := f["path"]; ok {
		ex.Path = d.examplePath(v, p+".path", e.Path)
	}
	e.Example = ex
}

func (d *decoder) exampleBody(v *yaml.Node, p string) *JSONValue {
	const fix = `write the body as YAML ({"to": "ada@example.com"}) or as a string holding JSON`
	var body JSONValue
	var err error
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" {
		body, err = ParseExampleBody([]byte(v.Value))
	} else if body, err = exampleFromYAML(v, 0); err == nil {
		err = checkExample(body)
	}
	if err != nil {
		d.errorf(v, p, fix, "%s is not a usable JSON body: %v", p, err)
		return nil
	}
	return &body
}

func (d *decoder) examplePath(v *yaml.Node, p, path string) map[string]string {
	v = d.resolve(v)
	params := PathParams(path)
	if v.Kind != yaml.MappingNode {
		d.errorf(v, p, "write path: {"+strings.Join(params, ": ..., ")+": ...}", "%s must be a mapping from path parameter to value; got %s", p, kindName(v))
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := d.resolve(v.Content[i]), d.resolve(v.Content[i+1])
		if !contains(params, k.Value) {
			fix := "remove it: " + path + " has no parameters"
			if len(params) > 0 {
				fix = "name one of " + path + "'s parameters: " + strings.Join(params, ", ")
			}
			d.errorf(k, p+"."+k.Value, fix, "%s names %q, which is not a parameter of %s", p, k.Value, path)
			continue
		}
		s := d.str(val, p+"."+k.Value)
		if s != "" && !pathValue.MatchString(s) {
			d.errorf(val, p+"."+k.Value, "use letters, digits and . _ ~ - only (at most 100), e.g. em_8f2k", "%s.%s %q is not a plain path segment", p, k.Value, s)
			continue
		}
		out[k.Value] = s
	}
	return out
}

var pathParamName = regexp.MustCompile(`\{([^{}]+)\}`)

// PathParams lists a path's {parameter} names in order.
func PathParams(path string) []string {
	var out []string
	for _, m := range pathParamName.FindAllStringSubmatch(path, -1) {
		out = append(out, m[1])
	}
	return out
}

// ExamplePath is the endpoint's path with each {parameter} filled from the
// contract's example, else with example_NAME, so a shown call names a
// real-looking URL.
func (e Endpoint) ExamplePath() string {
	return pathParamName.ReplaceAllStringFunc(e.Path, func(m string) string {
		name := m[1 : len(m)-1]
		if e.Example != nil && e.Example.Path[name] != "" {
			return e.Example.Path[name]
		}
		return "example_" + name
	})
}

// PlaceholderBody is the body shown for an endpoint whose contract and
// spec give no example: an empty object, neutral for any API, that check
// reports (endpoint/no-example-request).
var PlaceholderBody = JSONValue{Kind: JSONObject}

// ExampleBody is the body the docs and snippets send to e: the contract's
// example, else the spec's, else PlaceholderBody (ok false).
func (e Endpoint) ExampleBody() (body JSONValue, ok bool) {
	if e.Example != nil && e.Example.Body != nil {
		return *e.Example.Body, true
	}
	return PlaceholderBody, false
}

// ParseJSON reads one JSON document as a JSONValue, members in their
// order, numbers as written, without an example body's size and number
// limits: verify reads the plan's request bodies with it to give them the
// key where key_field says (Idempotency.WithKey), the function the docs'
// example request uses. Nesting is bounded as an example body's is.
func ParseJSON(data []byte) (JSONValue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readJSON(dec, 0)
	if err != nil {
		return JSONValue{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return JSONValue{}, fmt.Errorf("text after the JSON value (at byte %d)", dec.InputOffset())
	}
	return v, nil
}
