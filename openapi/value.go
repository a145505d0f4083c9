package openapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Obj is an ordered JSON/YAML object: what retryspec adds keeps the order
// it is written in, in the overlay and in the merged spec alike.
type Obj []KV

// KV is one member of an Obj.
type KV struct {
	K string
	V any // string, int, float64, bool, []any, Obj
}

// obj builds an Obj from alternating keys and values.
func obj(kv ...any) Obj {
	o := make(Obj, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		o = append(o, KV{K: kv[i].(string), V: kv[i+1]})
	}
	return o
}

// MarshalJSON keeps member order and leaves <, > and & as they are.
func (o Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalJSON(kv.K)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := marshalJSON(kv.V)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// jsonIndent renders v as indented JSON whose continuation lines start
// with prefix.
func jsonIndent(v any, prefix, unit string) []byte {
	raw, err := marshalJSON(v)
	if err != nil {
		panic(err) // only our own values reach here
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, prefix, unit); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// yamlNode converts a value to a yaml.v3 node tree.
func yamlNode(v any) *yaml.Node {
	switch x := v.(type) {
	case Obj:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, kv := range x {
			n.Content = append(n.Content, yamlNode(kv.K), yamlNode(kv.V))
		}
		return n
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range x {
			n.Content = append(n.Content, yamlNode(e))
		}
		return n
	case string:
		// yaml.v3 quotes a !!str whose plain form would read back as
		// another type ("409", "true").
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: x}
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(x)}
	case float64:
		if x == float64(int64(x)) && x < 1e15 && x > -1e15 {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(int64(x), 10)}
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(x, 'f', -1, 64)}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}
	}
	// The contract's enumerations are string types (contract.Effect, ...).
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return yamlNode(rv.String())
	}
	panic("openapi: unsupported value type")
}

// yamlText renders v as block YAML with the given indent unit.
func yamlText(v any, unit int) []byte {
	o, ok := v.(Obj)
	if !ok {
		return yamlEncode(v, unit)
	}
	// yaml.v3's emitter keeps every event of a document until the document
	// ends, a few hundred bytes each: one Encode of a 20,000-action overlay
	// allocated 1.8 GB. Encoding member by member, and a long list item by
	// item, keeps that to one item's events. The text is the same as one
	// Encode's (TestYAMLTextInPieces).
	var b bytes.Buffer
	for _, kv := range o {
		items, isList := kv.V.([]any)
		if !isList || len(items) < 2 {
			b.Write(yamlEncode(Obj{kv}, unit))
			continue
		}
		first := yamlEncode(Obj{{K: kv.K, V: items[:1]}}, unit)
		b.Write(first)
		// The first item's text shows how deep this emitter indents a list
		// under its key; the later items, encoded alone at the margin, are
		// shifted by as much.
		indent := itemIndent(first)
		for _, e := range items[1:] {
			for _, line := range bytes.SplitAfter(yamlEncode([]any{e}, unit), []byte("\n")) {
				if len(line) > 0 && line[0] != '\n' {
					b.WriteString(indent)
				}
				b.Write(line)
			}
		}
	}
	return b.Bytes()
}

// itemIndent returns the spaces before the first list item marker in text,
// a key and its one-item list.
func itemIndent(text []byte) string {
	for _, line := range bytes.Split(text, []byte("\n")) {
		t := bytes.TrimLeft(line, " ")
		if bytes.HasPrefix(t, []byte("- ")) || bytes.Equal(t, []byte("-")) {
			return string(line[:len(line)-len(t)])
		}
	}
	return ""
}

func yamlEncode(v any, unit int) []byte {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(unit)
	if err := enc.Encode(yamlNode(v)); err != nil {
		panic(err)
	}
	enc.Close()
	return b.Bytes()
}
