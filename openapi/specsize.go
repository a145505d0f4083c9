package openapi

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// kin-openapi decodes every value of a spec into its model, whether or
// not a command reads it, and a decoded schema costs far more than its
// text: a 9.7 MB spec of 90,000 small components took 12.9 s of CPU and
// 812 MB. The cost follows the number of values, so the spec is measured
// on the YAML tree (already parsed for positions) before kin-openapi sees
// it, and refused past these limits.
//
// Measured (check --openapi, one CPU): Stripe's spec3.yaml (4.2 MB) holds
// 29,285 mappings and 173,893 values and costs 1.9 s and 171 MB; a 10 MB
// spec of 9,990 components holding 39,969 mappings, 2.2-2.4 s and 191 MB.
// 40,000 mappings is Stripe with a third to spare; the value limit catches
// specs that are cheap in mappings but hold millions of scalars (one enum
// of 1.2 million values took 6 s and 556 MB).
const (
	MaxSpecMappings = 40_000
	MaxSpecValues   = 400_000
)

// checkSpecSize counts the mappings and values of the tree as kin-openapi
// will see them, with YAML aliases expanded (a value an alias repeats is
// decoded once per alias), memoized per anchored node so that the count
// itself stays linear. It stops at the first node past a limit and names
// its position.
func checkSpecSize(s *Spec) *LoadError {
	type size struct{ maps, values int }
	memo := map[*yaml.Node]size{}
	var total size
	var at *yaml.Node
	var which string
	aliases := 0 // how many alias expansions the walk is inside
	over := func(n *yaml.Node) bool {
		if at != nil {
			return true
		}
		if total.maps > MaxSpecMappings || total.values > MaxSpecValues {
			if aliases > 0 || n.Kind == yaml.AliasNode {
				which = "nested YAML aliases that expand to "
			}
		}
		switch {
		case total.maps > MaxSpecMappings:
			at, which = n, which+fmt.Sprintf("more than %d mappings (objects)", MaxSpecMappings)
		case total.values > MaxSpecValues:
			at, which = n, which+fmt.Sprintf("more than %d values", MaxSpecValues)
		}
		return at != nil
	}
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || over(n) || depth > 10_000 {
			return
		}
		if n.Kind == yaml.AliasNode {
			if n.Alias == nil {
				return
			}
			if sz, ok := memo[n.Alias]; ok {
				total.maps += sz.maps
				total.values += sz.values
				over(n)
				return
			}
			aliases++
			walk(n.Alias, depth+1)
			aliases--
			return
		}
		before := total
		total.values++
		if n.Kind == yaml.MappingNode {
			total.maps++
		}
		if over(n) {
			return
		}
		for _, c := range n.Content {
			walk(c, depth+1)
			if at != nil {
				return
			}
		}
		if n.Anchor != "" {
			memo[n] = size{total.maps - before.maps, total.values - before.values}
		}
	}
	walk(s.Root, 0)
	if at == nil {
		return nil
	}
	return &LoadError{File: s.Path, Line: at.Line, Column: at.Column,
		Message: fmt.Sprintf("the spec holds %s, more than retryspec decodes within its bounds of 2 s of CPU and 200 MB (limit: %d mappings, %d values; Stripe's spec holds 29,285 and 173,893)", which, MaxSpecMappings, MaxSpecValues),
		Fix:     "pass a spec that holds only the API the contract describes (e.g. `redocly split`, or remove unused components with `redocly bundle --remove-unused-components`)"}
}
