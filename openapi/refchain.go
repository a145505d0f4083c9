package openapi

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxRefChain bounds how many $refs in a row one reference may pass
// through before it reaches a value: `S0: {$ref: S1}`, `S1: {$ref: S2}`,
// ... kin-openapi resolves such a chain again from every place that
// enters it, so a chain of N aliases costs N² (4,000 aliases took 27 s
// of CPU, 20,000 did not finish). Real specs alias a component once or
// twice; 16 leaves room for generated specs that layer a few more.
const MaxRefChain = 16

// checkRefChains follows every local $ref in the tree through the values
// it points at, before kin-openapi sees the document, and refuses the
// spec at the first reference that passes through more than MaxRefChain
// $refs. Each reference target is followed once (memoized), so the check
// is linear in the document. A cycle of aliases is not followed round.
func checkRefChains(s *Spec) *LoadError {
	c := refChains{root: s.Root, hops: map[string]int{}, depths: map[string]int{}, index: map[*yaml.Node]map[string]*yaml.Node{}}
	var found *LoadError
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if found != nil || n == nil {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Value == "$ref" && v.Kind == yaml.ScalarNode {
					if strings.HasPrefix(v.Value, "#") {
						if h := c.follow(v.Value); h > MaxRefChain {
							found = &LoadError{File: s.Path, Line: v.Line, Column: v.Column,
								Message: fmt.Sprintf("$ref %q passes through more than %d $refs in a row before it reaches a value (limit: %d)", v.Value, MaxRefChain, MaxRefChain),
								Fix:     "point the $ref at the component that holds the value, not at another $ref"}
							return
						}
						if d, _ := c.depth(v.Value, 1); d > MaxRefDepth {
							found = refDepthError(s, v, d)
							return
						}
					}
					continue
				}
				switch k.Value {
				case "example", "value", "default", "enum", "const":
					continue // literal data, as in firstExternalRef
				}
				walk(v)
			}
		case yaml.SequenceNode, yaml.DocumentNode:
			for _, e := range n.Content {
				walk(e)
			}
		}
	}
	walk(s.Root)
	return found
}

type refChains struct {
	root *yaml.Node
	// hops is, per reference, how many $refs a reader passes through from
	// it to a value (1 for a $ref to a value); -1 while being followed.
	hops map[string]int
	// depths is, per reference, the longest path of references from it
	// (refdepth.go); -1 while being measured.
	depths map[string]int
	// index holds the keys of the large mappings looked into, so that
	// following N references into components/schemas is not N² work.
	index map[*yaml.Node]map[string]*yaml.Node
}

func (c *refChains) get(m *yaml.Node, key string) *yaml.Node {
	if len(m.Content) < 32 {
		return mapGet(m, key)
	}
	idx, ok := c.index[m]
	if !ok {
		idx = make(map[string]*yaml.Node, len(m.Content)/2)
		for i := 0; i+1 < len(m.Content); i += 2 {
			if _, dup := idx[m.Content[i].Value]; !dup {
				idx[m.Content[i].Value] = m.Content[i+1]
			}
		}
		c.index[m] = idx
	}
	return idx[key]
}

// follow returns the length of the chain that starts at ref; a reference
// that does not resolve, or that closes a cycle, ends the chain (kin-openapi
// reports either on its own).
func (c *refChains) follow(ref string) int {
	if h, ok := c.hops[ref]; ok {
		if h < 0 {
			return 1 // a cycle: counted once, not round and round
		}
		return h
	}
	c.hops[ref] = -1
	h := 1
	if t := c.target(ref); t != nil {
		if next := mapGet(t, "$ref"); next != nil && next.Kind == yaml.ScalarNode && strings.HasPrefix(next.Value, "#") {
			h = 1 + c.follow(next.Value)
		}
	}
	c.hops[ref] = h
	return h
}

// target resolves a local reference ("#/a/b~1c/0") as a JSON pointer in
// the tree, following YAML aliases; nil when it leads nowhere.
func (c *refChains) target(ref string) *yaml.Node {
	frag := strings.TrimPrefix(ref, "#")
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	n := c.root
	if frag == "" {
		return n
	}
	if !strings.HasPrefix(frag, "/") {
		return nil
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		for n != nil && n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		switch {
		case n == nil:
			return nil
		case n.Kind == yaml.MappingNode:
			n = c.get(n, tok)
		case n.Kind == yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil
			}
			n = n.Content[i]
		default:
			return nil
		}
	}
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}
