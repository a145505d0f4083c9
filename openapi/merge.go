package openapi

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Merged returns the spec with the plan's edits applied by inserting text:
// every byte of the input stays where it was, so key order, comments,
// quoting and formatting of everything untouched are kept, and a line diff
// of input against output shows only added lines. (The one exception is a
// collection written inline, `{}` or `[a, b]` in YAML or on one line in
// JSON: a member can only go inside its line.)
//
// YAML members are appended at the end of their block; JSON members are
// inserted first in their object or array, which needs no comma on any
// existing line.
//
// The other exception is a value operations share through a YAML anchor:
// the planned operation gets its own copy, which changes the line that
// holds the alias or the anchor (anchors.go).
func Merged(s *Spec, p *Plan) ([]byte, error) {
	m := &merger{s: s, lines: lineStarts(s.Data)}
	m.unit = m.indentUnit()
	var ins []insertion
	copies := map[*yaml.Node][]Edit{}
	var aliasSites, defSites []*yaml.Node
	defSeen := map[*yaml.Node]bool{}
	for i, e := range p.Edits {
		if e.site != nil && !e.site.def {
			if copies[e.site.node] == nil {
				aliasSites = append(aliasSites, e.site.node)
			}
			copies[e.site.node] = append(copies[e.site.node], e)
			continue
		}
		if e.site != nil && !defSeen[e.site.node] {
			defSeen[e.site.node] = true
			defSites = append(defSites, e.site.node)
		}
		in, err := m.insertion(e)
		if err != nil {
			return nil, err
		}
		in.depth, in.seq = len(e.Target), i
		ins = append(ins, in)
	}
	if len(aliasSites)+len(defSites) > 0 {
		shared, err := m.sharedCopies(newAnchorIndex(s.Root), aliasSites, defSites, copies)
		if err != nil {
			return nil, err
		}
		ins = append(ins, shared...)
	}
	// Inner collections first where two insertions meet at one offset: a
	// block that ends where its parent ends gets its members before the
	// parent's, or they would land inside the parent's new member.
	sort.SliceStable(ins, func(i, j int) bool {
		a, b := ins[i], ins[j]
		if a.off != b.off {
			return a.off < b.off
		}
		if a.depth != b.depth {
			return a.depth > b.depth
		}
		return a.seq < b.seq
	})
	var out bytes.Buffer
	out.Grow(len(s.Data) + len(ins)*512)
	last := 0
	for _, in := range ins {
		out.Write(s.Data[last:in.off])
		text := in.text
		if s.CRLF {
			text = bytes.ReplaceAll(text, []byte("\n"), []byte("\r\n"))
		}
		out.Write(text)
		last = max(in.off, in.end)
	}
	out.Write(s.Data[last:])
	return out.Bytes(), nil
}

type insertion struct {
	off   int
	depth int
	seq   int
	text  []byte
	// end, past off, makes the insertion replace data[off:end].
	end int
}

type merger struct {
	s     *Spec
	lines []int // byte offset of the start of each line (0-based index)
	unit  int   // indentation step of the file
}

// lineStarts finds the lines as yaml.v3 numbers them: it breaks lines at
// a lone \r and at NEL, LS and PS too, and a position computed on \n
// alone would put an addition into the wrong operation.
func lineStarts(data []byte) []int {
	starts := make([]int, 1, bytes.Count(data, []byte("\n"))+1)
	for i := 0; i < len(data); i++ {
		if w := lineBreak(data, i); w > 0 {
			i += w - 1
			if i+1 < len(data) {
				starts = append(starts, i+1)
			}
		}
	}
	return starts
}

// lineBreak returns the length of the line break at i, 0 if none.
func lineBreak(data []byte, i int) int {
	switch data[i] {
	case '\n':
		return 1
	case '\r':
		if i+1 < len(data) && data[i+1] == '\n' {
			return 2
		}
		return 1
	case 0xC2:
		if i+1 < len(data) && data[i+1] == 0x85 {
			return 2
		}
	case 0xE2:
		if i+2 < len(data) && data[i+1] == 0x80 && (data[i+2] == 0xA8 || data[i+2] == 0xA9) {
			return 3
		}
	}
	return 0
}

// line returns line n (1-based) without its line break.
func (m *merger) line(n int) []byte {
	if n < 1 || n > len(m.lines) {
		return nil
	}
	start := m.lines[n-1]
	end := len(m.s.Data)
	if n < len(m.lines) {
		end = m.lines[n]
	}
	for i := start; i < end; i++ {
		if lineBreak(m.s.Data, i) > 0 {
			return m.s.Data[start:i]
		}
	}
	return m.s.Data[start:end]
}

// offset converts yaml.v3's 1-based line and (character) column to a byte offset.
func (m *merger) offset(line, col int) int {
	l := m.line(line)
	off := m.lines[line-1]
	for i := range string(l) {
		if col <= 1 {
			return off + i
		}
		col--
	}
	return off + len(l)
}

// indentUnit guesses the file's indentation step from the root's first
// nested block mapping (2 in nearly every spec).
func (m *merger) indentUnit() int {
	for i := 1; i < len(m.s.Root.Content); i += 2 {
		v := m.s.Root.Content[i]
		if v.Kind == yaml.MappingNode && len(v.Content) > 0 && v.Content[0].Line > v.Line {
			if u := v.Content[0].Column - m.s.Root.Content[0].Column; u > 0 && u <= 8 {
				return u
			}
		}
	}
	return 2
}

func (m *merger) insertion(e Edit) (insertion, error) {
	n := e.node
	if n == nil || (n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode) {
		return insertion{}, fmt.Errorf("openapi: cannot add to %s: not a mapping or sequence", jsonPath(e.Target))
	}
	inline := n.Style&yaml.FlowStyle != 0 || len(n.Content) == 0
	if m.s.Format == JSON {
		inline = len(n.Content) == 0 || n.Content[0].Line == n.Line
	}
	if m.s.Format == JSON && len(n.Content) == 0 {
		if in, ok := m.jsonEmptyInsertion(e); ok {
			return in, nil
		}
	}
	if inline {
		return m.inlineInsertion(e)
	}
	if m.s.Format == JSON {
		return m.jsonInsertion(e)
	}
	return m.yamlInsertion(e)
}

// member is the value of an edit as it is added: {key: value} for a
// mapping, the value itself for a sequence.
func member(e Edit) any {
	if e.Key != "" {
		return Obj{{e.Key, e.Value}}
	}
	return []any{e.Value}
}

// inlineInsertion puts the member right after the opening bracket of a
// collection written on one line, in JSON syntax (valid flow YAML too).
func (m *merger) inlineInsertion(e Edit) (insertion, error) {
	n := e.node
	off := m.offset(n.Line, n.Column)
	if off >= len(m.s.Data) || (m.s.Data[off] != '{' && m.s.Data[off] != '[') {
		return insertion{}, fmt.Errorf("%s:%d:%d: cannot find the opening bracket of %s", m.s.Path, n.Line, n.Column, jsonPath(e.Target))
	}
	var text []byte
	if e.Key != "" {
		k, _ := marshalJSON(e.Key)
		v, _ := marshalJSON(e.Value)
		text = append(append(k, ": "...), v...)
	} else {
		text, _ = marshalJSON(e.Value)
	}
	if len(n.Content) > 0 {
		text = append(text, ", "...)
	}
	return insertion{off: off + 1, text: text}, nil
}

// jsonInsertion adds the member as the first of a multi-line JSON object
// or array, on new lines after the opening bracket's line, followed by a
// comma: no existing line changes.
func (m *merger) jsonInsertion(e Edit) (insertion, error) {
	n := e.node
	first := n.Content[0]
	indent := strings.Repeat(" ", first.Column-1)
	unit := strings.Repeat(" ", m.unit)
	var b bytes.Buffer
	b.WriteString(indent)
	if e.Key != "" {
		k, _ := marshalJSON(e.Key)
		b.Write(k)
		b.WriteString(": ")
	}
	b.Write(jsonIndent(e.Value, indent, unit))
	b.WriteString(",\n")
	if n.Line >= len(m.lines) {
		return insertion{}, fmt.Errorf("%s:%d: unexpected end of file", m.s.Path, n.Line)
	}
	return insertion{off: m.lines[n.Line], text: b.Bytes()}, nil
}

// jsonEmptyInsertion fills an empty JSON object or array whose closing
// bracket is on a later line (GitHub writes "parameters": [ blank ]) with
// one member on new lines, without a comma.
func (m *merger) jsonEmptyInsertion(e Edit) (insertion, bool) {
	n := e.node
	open := m.offset(n.Line, n.Column)
	i := open + 1
	for i < len(m.s.Data) && (m.s.Data[i] == ' ' || m.s.Data[i] == '\t' || m.s.Data[i] == '\r' || m.s.Data[i] == '\n') {
		i++
	}
	if i >= len(m.s.Data) || !bytes.Contains(m.s.Data[open:i], []byte("\n")) || n.Line >= len(m.lines) {
		return insertion{}, false
	}
	l := m.line(n.Line)
	indent := string(l[:len(l)-len(bytes.TrimLeft(l, " "))]) + strings.Repeat(" ", m.unit)
	var b bytes.Buffer
	b.WriteString(indent)
	if e.Key != "" {
		k, _ := marshalJSON(e.Key)
		b.Write(k)
		b.WriteString(": ")
	}
	b.Write(jsonIndent(e.Value, indent, strings.Repeat(" ", m.unit)))
	b.WriteString("\n")
	return insertion{off: m.lines[n.Line], text: b.Bytes()}, true
}

// yamlInsertion appends the member at the end of a block collection, at
// the indentation of its existing members.
func (m *merger) yamlInsertion(e Edit) (insertion, error) {
	n := e.node
	first := n.Content[0]
	col := first.Column // keys of a mapping
	if n.Kind == yaml.SequenceNode {
		col = m.dashColumn(first)
	}
	end := m.blockEnd(n, col)
	var text []byte
	indent := strings.Repeat(" ", col-1)
	for _, l := range bytes.SplitAfter(yamlText(member(e), m.unit), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		text = append(text, indent...)
		text = append(text, l...)
	}
	var off int
	if end >= len(m.lines) {
		off = len(m.s.Data)
		if off > 0 && m.s.Data[off-1] != '\n' {
			text = append([]byte("\n"), text...)
		}
	} else {
		off = m.lines[end]
	}
	return insertion{off: off, text: text}, nil
}

// dashColumn finds the column of the "-" that starts a sequence item.
func (m *merger) dashColumn(item *yaml.Node) int {
	l := []rune(string(m.line(item.Line)))
	for i := item.Column - 2; i >= 0 && i < len(l); i-- {
		if l[i] == '-' {
			return i + 1
		}
	}
	return item.Column
}

// blockEnd returns the last line (1-based) of the block collection n whose
// members start at column col: from the last node inside it, every
// following line indented at least that far belongs to it (a member's
// multi-line scalar, a nested block, a comment), and the first line
// indented less, or a document marker, ends it. Blank lines neither extend
// nor end it.
func (m *merger) blockEnd(n *yaml.Node, col int) int {
	last := lastLine(n)
	end := last
	for l := last + 1; l <= len(m.lines); l++ {
		text := m.line(l)
		trimmed := bytes.TrimLeft(text, " ")
		if len(bytes.TrimSpace(trimmed)) == 0 {
			continue
		}
		if bytes.HasPrefix(text, []byte("---")) || bytes.HasPrefix(text, []byte("...")) {
			break
		}
		ind := len(text) - len(trimmed)
		if ind < col-1 {
			break
		}
		if n.Kind == yaml.SequenceNode && ind == col-1 && trimmed[0] != '#' && trimmed[0] != '-' {
			break
		}
		end = l
	}
	return end
}

// lastLine is the line of the last node inside n.
func lastLine(n *yaml.Node) int {
	for len(n.Content) > 0 {
		n = n.Content[len(n.Content)-1]
	}
	return n.Line
}
