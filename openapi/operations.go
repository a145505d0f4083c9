package openapi

import (
	"strings"

	"github.com/retryspec/retryspec/contract"
	"go.yaml.in/yaml/v3"
)

// operationMethods are the OpenAPI path-item fields that hold operations.
var operationMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// stateChanging are the methods whose operations must be classified.
var stateChanging = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "DELETE": true}

// Operation is one operation of the spec, with its nodes.
type Operation struct {
	Method string // upper case
	Path   string // as written in the spec
	// Line and Column locate the method key in the spec.
	Line, Column int
	key          *yaml.Node
	node         *yaml.Node // the operation object
	pathItem     *yaml.Node
}

// Name is "METHOD /path", the contract's spelling.
func (o Operation) Name() string { return o.Method + " " + o.Path }

// shape is the key operations match by: method plus the path with every
// template parameter blanked, so {id} and {order_id} agree.
func shape(method, path string) string {
	return strings.ToUpper(method) + " " + contract.PathShape(path)
}

// Operations lists the spec's operations in document order.
func (s *Spec) Operations() []Operation {
	paths := mapGet(s.Root, "paths")
	if paths == nil || paths.Kind != yaml.MappingNode {
		return nil
	}
	var out []Operation
	for i := 0; i+1 < len(paths.Content); i += 2 {
		p, item := paths.Content[i], paths.Content[i+1]
		if item.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, v := item.Content[j], item.Content[j+1]
			m := strings.ToLower(k.Value)
			if !isMethod(m) || v.Kind != yaml.MappingNode {
				continue
			}
			out = append(out, Operation{Method: strings.ToUpper(m), Path: p.Value, Line: k.Line, Column: k.Column, key: k, node: v, pathItem: item})
		}
	}
	return out
}

func isMethod(m string) bool {
	for _, x := range operationMethods {
		if x == m {
			return true
		}
	}
	return false
}

// operationNode finds one operation by its path as written and method.
func (s *Spec) operationNode(path, method string) *Operation {
	for _, op := range s.Operations() {
		if op.Path == path && strings.EqualFold(op.Method, method) {
			return &op
		}
	}
	return nil
}

// index maps each operation's shape to the operation.
func index(ops []Operation) map[string]Operation {
	m := make(map[string]Operation, len(ops))
	for _, op := range ops {
		sh := shape(op.Method, op.Path)
		if _, dup := m[sh]; !dup {
			m[sh] = op
		}
	}
	return m
}

// resolveRef follows local $refs ("#/components/...") to the node they
// name. It gives up after a few hops (a cycle) and returns the last node.
func (s *Spec) resolveRef(n *yaml.Node) (target *yaml.Node, ref string) {
	for hops := 0; hops < 8 && n != nil && n.Kind == yaml.MappingNode; hops++ {
		r := mapGet(n, "$ref")
		if r == nil || r.Kind != yaml.ScalarNode {
			return n, ref
		}
		if ref == "" {
			ref = r.Value
		}
		t := s.pointer(r.Value)
		if t == nil {
			return nil, ref
		}
		n = t
	}
	return n, ref
}

// pointer resolves a local JSON pointer ("#/components/parameters/Key").
func (s *Spec) pointer(ref string) *yaml.Node {
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	n := s.Root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if u, err := unescapePointer(tok); err == nil {
			tok = u
		}
		switch n.Kind {
		case yaml.MappingNode:
			n = mapGet(n, tok)
		case yaml.SequenceNode:
			i := 0
			for _, c := range tok {
				if c < '0' || c > '9' {
					return nil
				}
				i = i*10 + int(c-'0')
			}
			if i >= len(n.Content) {
				return nil
			}
			n = n.Content[i]
		default:
			return nil
		}
		if n == nil {
			return nil
		}
	}
	return n
}

func unescapePointer(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			var v byte
			for _, c := range []byte(s[i+1 : i+3]) {
				v <<= 4
				switch {
				case c >= '0' && c <= '9':
					v |= c - '0'
				case c >= 'a' && c <= 'f':
					v |= c - 'a' + 10
				case c >= 'A' && c <= 'F':
					v |= c - 'A' + 10
				default:
					return s, nil
				}
			}
			b.WriteByte(v)
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), nil
}
