package openapi

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// YAML anchors (issue 13 item 5). Operations may share a value through an
// anchor and aliases: `responses: &std {...}` in one, `responses: *std` in
// others. Inserting text into the anchored node would reach every
// operation that repeats it: an unkeyed GET would gain the key header and
// the 409s. So an edit whose path enters a shared node is made on a copy
// that only the planned operation reads, in the merged spec:
//
//   - Where the planned operation reads the value through an alias
//     (`responses: *std`), the alias is replaced by a copy of the anchored
//     value, written out in block style with the additions in it. The one
//     line holding the alias changes (`responses: *std` becomes
//     `responses:`); every other line of the copy is added.
//   - Where the planned operation holds the anchor itself
//     (`responses: &std`), the anchor is taken off it (that line changes to
//     `responses:`) and the additions go in as for any value, and the first
//     alias of it that is not itself planned is replaced by a copy of the
//     original value carrying the anchor (`responses: *std` becomes
//     `responses: &std` and the copy's lines are added), so every later
//     alias still reads the original.
//
// Either way every operation outside the plan reads, aliases resolved,
// what it read before (TestMergedAnchorsChangeOnlyThePlan). The overlay
// cannot say "a copy": its target names one operation, but a tool that
// reads aliases as one shared object (most YAML libraries do) would apply
// the update to every operation sharing it; such additions are left out
// of the overlay and the plan says so.

// anchorUse is one alias of an anchor, where it appears: the value of key
// in the block mapping parent.
type anchorUse struct {
	alias, key, parent *yaml.Node
}

// anchorIndex knows, per anchored node that some alias repeats, the
// aliases in document order, and which nodes are shared (an anchored node
// some alias repeats and everything inside it).
type anchorIndex struct {
	uses   map[*yaml.Node][]anchorUse
	shared map[*yaml.Node]bool
}

func newAnchorIndex(root *yaml.Node) *anchorIndex {
	x := &anchorIndex{uses: map[*yaml.Node][]anchorUse{}, shared: map[*yaml.Node]bool{}}
	var mark func(n *yaml.Node)
	mark = func(n *yaml.Node) {
		if n == nil || x.shared[n] {
			return
		}
		x.shared[n] = true
		for _, c := range n.Content {
			mark(c)
		}
	}
	var walk func(n, key, parent *yaml.Node)
	walk = func(n, key, parent *yaml.Node) {
		if n == nil {
			return
		}
		if n.Kind == yaml.AliasNode {
			if n.Alias != nil {
				x.uses[n.Alias] = append(x.uses[n.Alias], anchorUse{alias: n, key: key, parent: parent})
				mark(n.Alias)
			}
			return
		}
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i], nil, nil)
				walk(n.Content[i+1], n.Content[i], n)
			}
			return
		}
		for _, c := range n.Content {
			walk(c, nil, nil)
		}
	}
	walk(root, nil, nil)
	return x
}

// blockValue says whether an alias can be replaced by a block copy: it is
// the value of a key of a block mapping, on the key's line, and the rest
// of that line is empty or a comment.
func (m *merger) blockValue(u anchorUse) bool {
	if u.key == nil || u.parent == nil || u.parent.Style&yaml.FlowStyle != 0 || u.key.Line != u.alias.Line {
		return false
	}
	off := m.offset(u.alias.Line, u.alias.Column)
	end := off + 1 + len(u.alias.Value)
	if off >= len(m.s.Data) || m.s.Data[off] != '*' || end > len(m.s.Data) {
		return false
	}
	rest := strings.TrimLeft(string(m.restOfLine(end)), " \t")
	return rest == "" || rest[0] == '#'
}

func (m *merger) restOfLine(off int) []byte {
	end := off
	for end < len(m.s.Data) && lineBreak(m.s.Data, end) == 0 {
		end++
	}
	return m.s.Data[off:end]
}

// site is where an edit's path first enters a shared node, in the text:
// an alias the planned operation reads it through, or the anchored node
// itself (def).
type site struct {
	node *yaml.Node // the alias, or the anchored node
	def  bool
	// depth is how many keys of the edit's target lead to node.
	depth int
}

// findSite walks target from the root as the text nests (not following
// aliases) and returns the first alias or anchored-and-repeated node on
// the way; ok is false when the path cannot be followed in the text.
func (x *anchorIndex) findSite(root *yaml.Node, target []string) (site, bool) {
	n := root
	for i, k := range target {
		if n.Kind != yaml.MappingNode {
			return site{}, false
		}
		child := mapGet(n, k)
		switch {
		case child == nil:
			return site{}, false
		case child.Kind == yaml.AliasNode:
			return site{node: child, depth: i + 1}, true
		case len(x.uses[child]) > 0:
			return site{node: child, def: true, depth: i + 1}, true
		}
		n = child
	}
	return site{}, false
}

// nestedAnchor says whether anything inside n (not n) is an anchor some
// alias repeats: taking n's anchor off and editing n in place would then
// still change what those aliases read.
func (x *anchorIndex) nestedAnchor(n *yaml.Node) bool {
	for _, c := range n.Content {
		if len(x.uses[c]) > 0 || x.nestedAnchor(c) {
			return true
		}
	}
	return false
}

// editable says whether an edit may be made at node; when not, it records
// why in the plan's Skipped notes, so the user adds it by hand. An edit
// into a shared node is made on a copy in the merged spec (see the top of
// this file) and left out of the overlay; its site is returned.
func (b *planner) editable(target []string, node *yaml.Node, key string) (*site, bool) {
	if b.anchors == nil {
		b.anchors = newAnchorIndex(b.s.Root)
	}
	op := ""
	if len(target) >= 3 && target[0] == "paths" {
		op = strings.ToUpper(target[2]) + " " + target[1]
	}
	where := jsonPath(append(append([]string(nil), target...), key))
	if node != nil && node.Kind == yaml.MappingNode && key != "" && mapKey(node, key) != nil {
		k := mapKey(node, key)
		b.skipped(op, k, "%s is already there but is not a plain %s (a YAML alias?); nothing is added to it (write it out in place and run again)", where, kindName(key))
		return nil, false
	}
	if !b.anchors.shared[node] {
		return nil, true
	}
	st, ok := b.anchors.findSite(b.s.Root, target)
	if ok {
		ok = b.copyable(st)
	}
	if !ok {
		b.skipped(op, node, "%s is shared through a YAML anchor with other parts of the spec; nothing is added to it, so they do not change too (give this operation its own copy instead of the alias and run again)", jsonPath(target))
		return nil, false
	}
	if !b.sharedNoted[st.node] {
		b.sharedNoted[st.node] = true
		b.skipped(op, node, "%s is shared through a YAML anchor with other parts of the spec; the merged spec gives this operation its own copy with the additions, the overlay leaves them out (a tool applying it would change every part sharing the anchor)", jsonPath(target))
	}
	return &st, true
}

// copyable says whether the merged spec can make a copy at the site: every
// alias involved is a block mapping value (not inside brackets), and an
// anchored node edited in place is a block collection holding no anchor
// that other aliases repeat.
func (b *planner) copyable(st site) bool {
	m := &merger{s: b.s, lines: b.lines()}
	if !st.def {
		for _, u := range b.anchors.uses[st.node.Alias] {
			if u.alias == st.node {
				return m.blockValue(u)
			}
		}
		return false
	}
	n := st.node
	if n.Style&yaml.FlowStyle != 0 || len(n.Content) == 0 || b.anchors.nestedAnchor(n) || b.s.Format != YAML {
		return false
	}
	for _, u := range b.anchors.uses[n] {
		if !m.blockValue(u) {
			return false
		}
	}
	off := m.offset(n.Line, n.Column)
	return strings.HasPrefix(string(m.s.Data[off:]), "&"+n.Anchor)
}

func (b *planner) lines() []int {
	if b.lineIndex == nil {
		b.lineIndex = lineStarts(b.s.Data)
	}
	return b.lineIndex
}

func kindName(key string) string {
	switch key {
	case "parameters":
		return "list"
	default:
		return "mapping"
	}
}

// deref follows a YAML alias to the node it repeats.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; i < 8 && n != nil && n.Kind == yaml.AliasNode; i++ {
		n = n.Alias
	}
	return n
}

// sharedCopies renders the edits made on copies: each alias site replaced
// by a copy holding its edits, and each anchor taken off an edited node
// moved to a copy of the original at its first alias outside the plan.
func (m *merger) sharedCopies(x *anchorIndex, aliasSites, defSites []*yaml.Node, copies map[*yaml.Node][]Edit) ([]insertion, error) {
	var ins []insertion
	for _, a := range aliasSites {
		in, err := m.aliasCopy(x, a, copies[a], "")
		if err != nil {
			return nil, err
		}
		ins = append(ins, in)
	}
	for _, d := range defSites {
		off := m.offset(d.Line, d.Column)
		end := off + 1 + len(d.Anchor)
		if off > 0 && m.s.Data[off-1] == ' ' {
			off-- // `responses: &std` becomes `responses:`
		}
		ins = append(ins, insertion{off: off, end: end})
		for _, u := range x.uses[d] {
			if copies[u.alias] != nil {
				continue // a planned operation: it has its own copy
			}
			in, err := m.aliasCopy(x, u.alias, nil, d.Anchor)
			if err != nil {
				return nil, err
			}
			ins = append(ins, in)
			break
		}
	}
	return ins, nil
}

// aliasCopy replaces the alias with a block copy of the value it repeats
// (anchors inside left out, aliases inside kept unless an edit goes
// through them), carrying the edits and, when anchor is set, that anchor.
// `key: *std  # c` becomes `key: &std  # c` (or `key: # c`) and the
// copy's lines follow, indented one step under the key.
func (m *merger) aliasCopy(x *anchorIndex, alias *yaml.Node, edits []Edit, anchor string) (insertion, error) {
	var use anchorUse
	for _, u := range x.uses[alias.Alias] {
		if u.alias == alias {
			use = u
		}
	}
	if use.alias == nil || !m.blockValue(use) {
		return insertion{}, fmt.Errorf("%s:%d:%d: cannot write out the YAML alias *%s", m.s.Path, alias.Line, alias.Column, alias.Value)
	}
	cp := copyNode(alias.Alias)
	cp.Style &^= yaml.FlowStyle
	for _, e := range edits {
		n := cp
		for _, k := range e.Target[e.site.depth:] {
			i := mapIndex(n, k)
			if i < 0 {
				return insertion{}, fmt.Errorf("openapi: cannot add to %s in the copy of *%s", jsonPath(e.Target), alias.Value)
			}
			if n.Content[i].Kind == yaml.AliasNode {
				n.Content[i] = copyNode(n.Content[i].Alias)
			}
			n = n.Content[i]
		}
		if e.Key != "" {
			n.Content = append(n.Content, yamlNode(e.Key), yamlNode(e.Value))
		} else {
			n.Content = append(n.Content, yamlNode(e.Value))
		}
	}
	off := m.offset(alias.Line, alias.Column)
	start := off
	for start > 0 && (m.s.Data[start-1] == ' ' || m.s.Data[start-1] == '\t') {
		start--
	}
	rest := m.restOfLine(off + 1 + len(alias.Value))
	end := off + 1 + len(alias.Value) + len(rest)
	var b bytes.Buffer
	if anchor != "" {
		b.WriteString(" &" + anchor)
	}
	if c := strings.TrimSpace(string(rest)); c != "" {
		b.WriteString(" " + c)
	}
	indent := strings.Repeat(" ", use.key.Column-1+m.unit)
	text := bytes.TrimRight(encodeNode(cp, m.unit), "\n")
	for _, l := range bytes.Split(text, []byte("\n")) {
		b.WriteByte('\n')
		if len(l) > 0 {
			b.WriteString(indent)
			b.Write(l)
		}
	}
	return insertion{off: start, end: end, text: b.Bytes()}, nil
}

// copyNode copies n deeply, without anchors; aliases stay aliases.
func copyNode(n *yaml.Node) *yaml.Node {
	c := *n
	c.Anchor = ""
	if n.Kind == yaml.AliasNode {
		return &c
	}
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, e := range n.Content {
		c.Content[i] = copyNode(e)
	}
	return &c
}

func mapIndex(m *yaml.Node, key string) int {
	if m == nil || m.Kind != yaml.MappingNode {
		return -1
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i + 1
		}
	}
	return -1
}

func encodeNode(n *yaml.Node, unit int) []byte {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(unit)
	if err := enc.Encode(n); err != nil {
		panic(err)
	}
	enc.Close()
	return b.Bytes()
}
