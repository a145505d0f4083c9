package openapi

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// sharedNodes is every node that more than one place in the document
// reads: an anchored node that an alias repeats (`responses: &std`,
// `*std` elsewhere) and everything inside it. The merged spec is written
// by inserting text at a node, so an edit to a shared node would reach
// every operation that repeats it: an unkeyed GET would gain the key
// header and the 409s (issue 13 item 5).
func sharedNodes(root *yaml.Node) map[*yaml.Node]bool {
	shared := map[*yaml.Node]bool{}
	var mark func(n *yaml.Node)
	mark = func(n *yaml.Node) {
		if n == nil || shared[n] {
			return
		}
		shared[n] = true
		for _, c := range n.Content {
			mark(c)
		}
	}
	seen := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if n.Kind == yaml.AliasNode {
			mark(n.Alias)
			return
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	return shared
}

// editable says whether an edit may be inserted at node; when not, it
// records why in the plan's Skipped notes, so the user adds it by hand.
// Neither output carries the edit: the overlay's target would name one
// operation, but a tool that reads aliases as one shared object (most
// YAML libraries do) would apply it to every operation sharing it.
func (b *planner) editable(target []string, node *yaml.Node, key string) bool {
	if b.shared == nil {
		b.shared = sharedNodes(b.s.Root)
	}
	op := ""
	if len(target) >= 3 && target[0] == "paths" {
		op = strings.ToUpper(target[2]) + " " + target[1]
	}
	where := jsonPath(append(append([]string(nil), target...), key))
	switch {
	case b.shared[node]:
		b.skipped(op, node, "%s is shared through a YAML anchor with other parts of the spec; nothing is added to it, so they do not change too (give this operation its own copy instead of the alias and run again)", jsonPath(target))
		return false
	case node != nil && node.Kind == yaml.MappingNode && key != "" && mapKey(node, key) != nil:
		k := mapKey(node, key)
		b.skipped(op, k, "%s is already there but is not a plain %s (a YAML alias?); nothing is added to it (write it out in place and run again)", where, kindName(key))
		return false
	}
	return true
}

func kindName(key string) string {
	switch key {
	case "parameters":
		return "list"
	default:
		return "mapping"
	}
}
