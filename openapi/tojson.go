package openapi

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// nodeJSON writes a YAML node tree as JSON, so kin-openapi decodes the
// document from the tree already parsed instead of parsing the YAML a
// second time (a third of the load time of a 4 MB spec).
func nodeJSON(n *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(1 << 20)
	budget := min(maxJSONNodes, aliasGrowth*treeNodes(n, 0)+minJSONNodes)
	w := &jsonWriter{b: &b, budget: budget, limit: budget}
	err := w.write(n, 0)
	return b.Bytes(), err
}

// The expansion budget is relative to the document's own size: aliases
// may repeat parts of it, but a few kilobytes must not expand into
// hundreds of megabytes (an alias bomb reached 530 MB of RSS before the
// fixed 20 million node limit stopped it; found by the hostile-input
// tests).
const (
	aliasGrowth  = 32
	minJSONNodes = 1 << 20
)

// treeNodes counts the nodes as written, not following aliases, and stops
// counting past maxJSONNodes.
func treeNodes(n *yaml.Node, count int) int {
	if n == nil || count > maxJSONNodes {
		return count
	}
	count++
	for _, c := range n.Content {
		count = treeNodes(c, count)
	}
	return count
}

// maxJSONNodes bounds the nodes written: aliases are expanded, and a few
// nested aliases ("billion laughs") would otherwise expand without end.
// Stripe's 4 MB spec has about 1.3 million nodes.
const maxJSONNodes = 20_000_000

type jsonWriter struct {
	b      *bytes.Buffer
	budget int
	limit  int // the budget at the start, for the message
}

func (w *jsonWriter) write(n *yaml.Node, depth int) error {
	b := w.b
	if depth > 10_000 {
		return fmt.Errorf("line %d: nesting too deep", n.Line)
	}
	if w.budget--; w.budget < 0 {
		return fmt.Errorf("line %d column %d: the document expands to more than %d nodes (nested YAML aliases?)", n.Line, n.Column, w.limit)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			b.WriteString("null")
			return nil
		}
		return w.write(n.Content[0], depth+1)
	case yaml.AliasNode:
		return w.write(n.Alias, depth+1)
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d column %d: a mapping key must be a scalar", k.Line, k.Column)
			}
			writeJSONString(b, k.Value)
			b.WriteByte(':')
			if err := w.write(n.Content[i+1], depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := w.write(c, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			b.WriteString("null")
		case "!!bool":
			var v bool
			if err := n.Decode(&v); err != nil {
				return fmt.Errorf("line %d column %d: %v", n.Line, n.Column, err)
			}
			b.WriteString(strconv.FormatBool(v))
		case "!!int":
			var v int64
			if err := n.Decode(&v); err != nil {
				// Beyond int64: keep the digits as a JSON number.
				if _, perr := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); perr == nil {
					b.WriteString(strings.ReplaceAll(n.Value, "_", ""))
					return nil
				}
				return fmt.Errorf("line %d column %d: %v", n.Line, n.Column, err)
			}
			b.WriteString(strconv.FormatInt(v, 10))
		case "!!float":
			var v float64
			if err := n.Decode(&v); err != nil {
				return fmt.Errorf("line %d column %d: %v", n.Line, n.Column, err)
			}
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return fmt.Errorf("line %d column %d: %s has no JSON equivalent", n.Line, n.Column, n.Value)
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		default:
			writeJSONString(b, n.Value)
		}
	}
	return nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	simple := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			simple = false
			break
		}
	}
	if simple {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	q, _ := marshalJSON(s)
	b.Write(q)
}
