package openapi

import "fmt"

// Parsing a spec into yaml.v3's node tree costs about 1.8 µs of CPU and
// 210 bytes per node, whatever the nodes hold: the 8.3 MB spec of 90,000
// small components in the hostile suite is 1.26 million nodes, and
// refusing it after the parse (checkSpecSize) cost 2.3 s and 279 MB. So
// the bytes are measured first, in one pass with constant memory, and a
// spec that would build far more nodes than checkSpecSize lets through
// is refused before any tree exists.
//
// MaxPrescanNodes leaves room above MaxSpecValues for the estimate's
// error (exact on the five real specs of ../shared/data, see
// BenchmarkPrescan): a spec between the two limits is parsed, about 0.9 s
// and 110 MB at most, and then refused by checkSpecSize with its exact
// position.
//
// MaxNesting bounds how deep values nest in the text. kin-openapi
// validates a schema by recursion whose cost grows with the square of its
// depth: a schema of `items` nested 1,000 deep took 1.3 s of CPU, 2,000
// deep 4.9 s, 9,000 deep (a 60 KB spec) 93 s and 1.5 GB, all within
// yaml.v3's own limit of 10,000 levels. Depth is counted as the
// indentation column (an upper bound on block nesting, at one column a
// level at least) plus the compact `- ` items on the line plus the open
// brackets. The real specs indent 48 columns at most (Stripe); 512 costs
// 0.34 s.
const (
	MaxPrescanNodes = MaxSpecValues + MaxSpecValues/4
	MaxNesting      = 512
)

// prescanSpec counts the nodes the YAML parser would build from data
// (every scalar, mapping, sequence and alias; see countNodes) and refuses
// the spec once the count passes MaxPrescanNodes or a flow collection
// nests deeper than MaxFlowDepth.
func prescanSpec(path string, data []byte) *LoadError {
	r := countNodes(data, MaxPrescanNodes, MaxNesting)
	if r.stop < 0 {
		return nil
	}
	line, col := offsetLineCol(data, r.stop)
	if r.deep {
		return &LoadError{File: path, Line: line, Column: col,
			Message: fmt.Sprintf("values nest more than %d levels deep, counting indentation columns and brackets (limit: %d levels; real specs nest a few dozen)", MaxNesting, MaxNesting),
			Fix:     "flatten the nesting: move inner schemas to components/schemas and point at them with $ref"}
	}
	return &LoadError{File: path, Line: line, Column: col,
		Message: fmt.Sprintf("the spec holds more than %d values (scalars, mappings and lists) by this point, more than retryspec parses within its bounds of 2 s of CPU and 200 MB (limit: %d values, counted before parsing; Stripe's spec holds 173,893)",
			MaxPrescanNodes, MaxPrescanNodes),
		Fix: "pass a spec that holds only the API the contract describes (e.g. `redocly split`, or remove unused components with `redocly bundle --remove-unused-components`)"}
}

// nodeCount is countNodes' answer: the estimate, and where counting
// stopped at a limit (the byte offset, -1 when it did not).
type nodeCount struct {
	nodes int
	stop  int
	deep  bool
}

// countNodes estimates how many nodes yaml.v3 builds from data without
// building them: a scanner that knows only enough YAML to tell structure
// from text. It skips comments, quoted scalars, block scalars (`|`, `>`)
// and the continuation lines of plain scalars, and counts
//
//   - every scalar (plain or quoted, key or value), block scalar and alias;
//   - every flow collection (`[`, `{`);
//   - a `:` or `-` that ends its line: the value or item on the next lines
//     is a block collection, or null, one node either way;
//   - a block mapping that opens on a line already holding something: the
//     document's first key, and a key right after `- ` or `? `;
//   - a flow value left empty (`{a: }`), a null node.
//
// What it does not model (a flow mapping implied by `[a: b]`, keys
// without values in `{a, b}`) undercounts by one node each; multi-line
// plain scalars inside brackets overcount by one a line. Anchors, tags
// and directives make no node. Aliases count one node each, as yaml.v3
// parses them: what they expand to is measured on the tree by
// checkSpecSize, whose walk is memoized per anchor.
//
// A stretch the scanner reads as text (a quoted or block scalar) that
// the parser reads as structure would undercount without bound, so the
// scanner follows the parser's rules for where those end: a quote closes
// at the first unescaped quote, a block scalar at the first non-blank
// line indented no deeper than the key or dash that introduced it. A
// document where the two disagree is not valid YAML: the parser stops
// with an error where the disagreement starts. FuzzPrescanCount checks
// the estimate against yaml.v3 on arbitrary input.
//
// It stops, with stop set, once the count passes maxNodes or values nest
// deeper than maxDepth (see MaxNesting). Memory is constant: a few
// integers.
func countNodes(data []byte, maxNodes, maxDepth int) nodeCount {
	s := scanState{data: data, n: len(data), lineStart: true, docStart: true, plainParent: -1, maxDepth: maxDepth}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		s.i = 3
	}
	for s.i < s.n {
		if s.nodes > maxNodes {
			return nodeCount{nodes: s.nodes, stop: min(s.i, s.n-1)}
		}
		if s.deep {
			return nodeCount{nodes: s.nodes, stop: min(s.i, s.n-1), deep: true}
		}
		s.step()
	}
	if s.nodes > maxNodes {
		return nodeCount{nodes: s.nodes, stop: max(s.n-1, 0)}
	}
	return nodeCount{nodes: s.nodes, stop: -1}
}

type scanState struct {
	data  []byte
	n, i  int
	nodes int
	flow  int // bracket depth
	// lineStart: the next byte starts a line (block context only).
	lineStart bool
	// lineOff is the offset where the current line starts.
	lineOff int
	// parent is the column of the innermost key or `-` seen on the current
	// line (its line indentation before any): a block scalar's content is
	// every line indented deeper.
	parent int
	// docStart: the next token is the document's root node.
	docStart bool
	// opens: the scalar being read is a key that opens a block mapping
	// (the first of the document, or right after `- ` or `? `).
	opens, keyOpens bool
	// keyCol is the column where the last scalar started.
	keyCol int
	// plainParent is, when the last token of the previous non-blank line
	// was a plain scalar in block context, the column a continuation line
	// must be indented past; -1 otherwise.
	plainParent int
	// quoted: the last token was a quoted scalar (a JSON key: `"a":1`).
	quoted bool
	// first: nothing but indentation read yet on this line.
	first bool
	// depth is the current line's nesting bound: its indentation plus
	// its compact `- ` items; flowBase is depth where the outermost
	// bracket opened.
	depth, flowBase, maxDepth int
	deep                      bool
}

func (s *scanState) at(j int) byte {
	if j < s.n {
		return s.data[j]
	}
	return 0
}

// blank says whether the byte at j ends a token: white space, a line
// break or the end of the input.
func (s *scanState) blank(j int) bool {
	c := s.at(j)
	return c == 0 || c == ' ' || c == '\t' || s.brk(j) > 0
}

// brk returns the length of the line break at j, 0 if there is none.
// yaml.v3 breaks lines at \n, \r\n, a lone \r, and NEL, LS and PS
// (U+0085, U+2028, U+2029), so the scanner does too: a spec whose lines
// end in lone \r would otherwise read as one line, and a `#` or a `|` on
// it would hide the rest of the document from the count.
func (s *scanState) brk(j int) int {
	if j < 0 || j >= s.n {
		return 0
	}
	switch s.data[j] {
	case '\n':
		return 1
	case '\r':
		if s.at(j+1) == '\n' {
			return 2
		}
		return 1
	case 0xC2:
		if s.at(j+1) == 0x85 {
			return 2
		}
	case 0xE2:
		if s.at(j+1) == 0x80 && (s.at(j+2) == 0xA8 || s.at(j+2) == 0xA9) {
			return 3
		}
	}
	return 0
}

func (s *scanState) toEOL() {
	for s.i < s.n && s.brk(s.i) == 0 {
		s.i++
	}
}

// restEmpty says whether the line holds nothing but white space, a
// comment, or an anchor or tag (of the node on the lines below) from j on.
func (s *scanState) restEmpty(j int) bool {
	for ; j < s.n; j++ {
		if s.brk(j) > 0 {
			return true
		}
		switch s.data[j] {
		case ' ', '\t':
		case '#':
			return true
		case '&', '!':
			for j+1 < s.n && !s.blank(j+1) {
				j++
			}
		default:
			return false
		}
	}
	return true
}

// flowNext returns the first byte from j on that is not white space, a
// line break or a comment.
func (s *scanState) flowNext(j int) byte {
	for j < s.n {
		if w := s.brk(j); w > 0 {
			j += w
			continue
		}
		switch s.data[j] {
		case ' ', '\t':
			j++
		case '#':
			for j < s.n && s.brk(j) == 0 {
				j++
			}
		default:
			return s.data[j]
		}
	}
	return 0
}

func (s *scanState) step() {
	if s.flow == 0 && s.lineStart {
		s.startLine()
		return
	}
	if w := s.brk(s.i); w > 0 {
		s.i += w
		if s.flow == 0 {
			s.lineStart = true
		}
		return
	}
	c := s.data[s.i]
	switch {
	case c == ' ' || c == '\t':
		s.i++
	case c == '#' && (s.i == 0 || s.blank(s.i-1)):
		s.toEOL()
	case c == '-' && s.flow == 0 && s.blank(s.i+1):
		opens := s.opens
		s.token()
		if opens || s.opens {
			s.nodes++ // a sequence opening on this line: `- - a`, or the root
		}
		s.parent = s.i - s.lineOff
		s.nest(1)
		s.i++
		if s.restEmpty(s.i) {
			s.nodes++ // the item is a block collection below, or null
		}
		s.opens = true
	case c == '?' && s.blank(s.i+1):
		opens := s.opens
		s.token()
		if s.flow == 0 && (opens || s.opens) {
			s.nodes++ // the block mapping this explicit key opens
		}
		s.opens = false
		if s.flow == 0 {
			s.parent = s.i - s.lineOff
		}
		s.i++
	case c == ':' && (s.blank(s.i+1) || (s.flow > 0 && (s.quoted || isFlowEnd(s.at(s.i+1))))):
		s.valueIndicator()
	case c == '[' || c == '{':
		s.token()
		s.nodes++
		if s.flow == 0 {
			s.flowBase = s.depth + 1
		}
		s.flow++
		if s.flowBase+s.flow > s.maxDepth {
			s.deep = true
		}
		s.i++
	case c == ']' || c == '}':
		if s.flow > 0 {
			s.flow--
		}
		s.i++
		s.quoted = false
	case c == ',' && s.flow > 0:
		s.i++
		s.quoted = false
	case c == '"' || c == '\'':
		s.scalarStart()
		s.skipQuoted(c)
		s.quoted = true
	case (c == '|' || c == '>') && s.flow == 0:
		s.token()
		s.nodes++
		s.blockScalar()
	case c == '&' || c == '!':
		// An anchor or a tag: part of the next node, not a node.
		for s.i < s.n && !s.blank(s.i) && !(s.flow > 0 && isFlowEnd(s.data[s.i])) {
			s.i++
		}
	case c == '*':
		s.token()
		s.nodes++
		for s.i < s.n && !s.blank(s.i) && !(s.flow > 0 && isFlowEnd(s.data[s.i])) {
			s.i++
		}
	default:
		s.scalarStart()
		s.skipPlain()
	}
}

func isFlowEnd(c byte) bool {
	return c == ',' || c == ']' || c == '}' || c == '[' || c == '{'
}

// token notes that a node (or an indicator that starts one) begins here:
// the document's root is no longer pending.
func (s *scanState) token() {
	if s.docStart {
		s.docStart = false
		s.opens = s.flow == 0
	}
	s.quoted = false
	s.plainParent = -1
	s.first = false
}

// scalarStart counts a scalar and remembers whether, as a key, it opens
// a block mapping.
func (s *scanState) scalarStart() {
	docStart := s.docStart
	s.token()
	s.keyOpens = s.opens && (docStart || s.flow == 0)
	s.opens = false
	s.keyCol = s.i - s.lineOff
	s.nodes++
}

// valueIndicator handles a `:` that separates a key from its value.
func (s *scanState) valueIndicator() {
	if s.flow == 0 && s.first {
		// The value of an explicit key (`? k` above): it may open a
		// block mapping on this line, as after `- `.
		s.first = false
		s.parent = s.i - s.lineOff
		s.i++
		if s.restEmpty(s.i) {
			s.nodes++
		}
		s.opens = true
		return
	}
	s.i++
	s.quoted = false
	s.plainParent = -1
	if s.flow > 0 {
		if c := s.flowNext(s.i); c == ',' || c == '}' || c == ']' {
			s.nodes++ // an empty value: null
		}
		return
	}
	if s.keyOpens {
		s.nodes++ // the block mapping this key opens
		s.keyOpens = false
	}
	s.parent = s.keyCol
	if s.restEmpty(s.i) {
		s.nodes++ // the value is a block collection below, or null
	}
}

// startLine reads a line's indentation in block context: blank and
// comment lines are skipped, document markers reset the root, and the
// continuation lines of a multi-line plain scalar are skipped whole.
func (s *scanState) startLine() {
	s.lineStart = false
	s.lineOff = s.i
	j := s.i
	for j < s.n && s.data[j] == ' ' {
		j++
	}
	col := j - s.i
	if s.restEmpty(j) {
		s.i = j
		s.toEOL()
		return
	}
	if col == 0 && (hasPrefixAt(s.data, j, "---") || hasPrefixAt(s.data, j, "...")) && s.blank(j+3) {
		s.docStart, s.plainParent = true, -1
		s.i = j + 3
		return
	}
	if col == 0 && s.data[j] == '%' {
		s.i = j
		s.toEOL()
		return
	}
	if s.plainParent >= 0 && col > s.plainParent {
		// A continuation of the plain scalar on the line above; a `: `
		// in it would be a parse error.
		s.i = j
		s.toEOL()
		return
	}
	s.plainParent = -1
	s.parent = col - 1
	s.depth = 0
	s.nest(col)
	s.first = true
	s.opens = false
	s.keyOpens = false
	s.i = j
}

// nest adds levels to the current line's nesting bound.
func (s *scanState) nest(levels int) {
	s.depth += levels
	if s.depth > s.maxDepth {
		s.deep = true
	}
}

func hasPrefixAt(data []byte, j int, p string) bool {
	return j+len(p) <= len(data) && string(data[j:j+len(p)]) == p
}

// skipQuoted skips a single- or double-quoted scalar, which may span
// lines; an unclosed one runs to the end (the parser refuses it).
func (s *scanState) skipQuoted(q byte) {
	s.i++
	for s.i < s.n {
		c := s.data[s.i]
		switch {
		case q == '"' && c == '\\':
			s.i += 2
			continue
		case c == q:
			if q == '\'' && s.at(s.i+1) == '\'' {
				s.i += 2
				continue
			}
			s.i++
			return
		}
		s.i++
	}
}

// skipPlain skips a plain scalar: to the end of the line in block
// context, or to a flow indicator in brackets, stopping before a `: `
// (a key's end) or a ` #` (a comment).
func (s *scanState) skipPlain() {
	for s.i < s.n {
		c := s.data[s.i]
		switch {
		case s.brk(s.i) > 0:
			if s.flow == 0 {
				s.plainParent = s.parent
				if s.keyOpens {
					// Not a key after all: `- item`.
					s.keyOpens = false
				}
			}
			return
		case c == ':' && (s.blank(s.i+1) || (s.flow > 0 && isFlowEnd(s.at(s.i+1)))):
			return
		case c == '#' && s.blank(s.i-1):
			return
		case s.flow > 0 && isFlowEnd(c):
			return
		}
		s.i++
	}
}

// blockScalar skips a `|` or `>` scalar: its header line, then every
// line that is blank or indented past the key or dash that introduced it.
func (s *scanState) blockScalar() {
	s.toEOL()
	for s.i < s.n {
		// s.i is at a line break.
		j := s.i + s.brk(s.i)
		k := j
		for k < s.n && s.data[k] == ' ' {
			k++
		}
		blankLine := k >= s.n || s.brk(k) > 0
		if !blankLine && k-j <= s.parent {
			break
		}
		s.i = j
		s.toEOL()
	}
}
