package copylint

// mdxDocument builds the prose view of an MDX file: Markdown, minus the ESM
// lines (import/export statements) and JSX expressions in braces. JSX
// elements themselves are parsed by goldmark as HTML and only their text
// children are prose.
func mdxDocument(src []byte, lintCode bool) *document {
	parseSrc := append([]byte(nil), src...)
	blankESM(parseSrc)
	d := markdownFrom(src, parseSrc, lintCode)
	for _, b := range d.blocks {
		blankBraces(d.mask, b.start, b.end)
	}
	return d
}

// blankESM blanks top-level import and export statements, each up to the
// next blank line (a statement may span lines), outside fenced code.
func blankESM(src []byte) {
	fence := byte(0)
	inESM := false
	for lineStart := 0; lineStart < len(src); {
		lineEnd := lineStart
		for lineEnd < len(src) && src[lineEnd] != '\n' {
			lineEnd++
		}
		line := src[lineStart:lineEnd]
		trimmed := string(line)
		switch {
		case fence != 0:
			if len(trimmed) >= 3 && trimmed[0] == fence && trimmed[1] == fence && trimmed[2] == fence {
				fence = 0
			}
		case len(trimmed) >= 3 && (trimmed[:3] == "```" || trimmed[:3] == "~~~"):
			fence = trimmed[0]
			inESM = false
		case hasWordPrefix(trimmed, "import") || hasWordPrefix(trimmed, "export"):
			inESM = true
		case isBlankLine(line):
			inESM = false
		}
		if inESM {
			blankSpaces(src, lineStart, lineEnd)
		}
		lineStart = lineEnd + 1
	}
}

func hasWordPrefix(s, w string) bool {
	return len(s) > len(w) && s[:len(w)] == w && (s[len(w)] == ' ' || s[len(w)] == '{' || s[len(w)] == '*')
}

func isBlankLine(line []byte) bool {
	for _, b := range line {
		if b != ' ' && b != '\t' && b != '\r' {
			return false
		}
	}
	return true
}

// blankBraces blanks {expressions} (and {/* comments */}) in m[start:end],
// nesting included.
func blankBraces(m []byte, start, end int) {
	depth, open := 0, -1
	for i := start; i < end; i++ {
		switch m[i] {
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth > 0 {
				depth--
				if depth == 0 {
					blank(m, open, i+1)
				}
			}
		}
	}
}
