package copylint

import "bytes"

// A document is the prose view of one file: mask has the length of the
// source, with every non-prose byte blanked (newlines kept), and
// blocks are the byte ranges of the prose blocks in source order. code holds
// the ranges of inline code inside blocks: they are prose for the
// contract-aware rule (header names and error codes live in backticks) and
// not for the phrase rules unless docs.copy.lint_code is set.
type document struct {
	mask   []byte
	blocks []span
	code   []span
	// skipped are code blocks left out of the prose: a suppression marker
	// shown in a code example is not a suppression.
	skipped []span
}

// span is a half-open byte range [start, end) in the source.
type span struct{ start, end int }

// gone marks a mask byte that is not prose and has no width: markup between
// two halves of a word ("**exactly**-once", "don&rsquo;t") must not split it.
// Newlines and real spaces stay word gaps.
const gone = 0

// blankMask returns a mask of src with everything blanked.
func blankMask(src []byte) []byte {
	m := make([]byte, len(src))
	for i, b := range src {
		if b == '\n' {
			m[i] = '\n'
		}
	}
	return m
}

// blank blanks m[start:end], keeping newlines.
func blank(m []byte, start, end int) {
	for i := start; i < end && i < len(m); i++ {
		if m[i] != '\n' {
			m[i] = gone
		}
	}
}

// copyText copies prose src[start:end] into the mask, decoding character
// references: the text a reference stands for is written at its '&' (it is
// never longer than the reference) and the rest of the reference is gone.
// So "e&#120;actly" reads "exactly" and "&shy;" is a soft hyphen, which the
// normaliser drops; offsets still point into the source.
func copyText(m, src []byte, start, end int) {
	for i := start; i < end; i++ {
		b := src[i]
		if b != '&' {
			m[i] = b
			continue
		}
		d, next, ok := entityAt(src, i, end)
		if !ok {
			m[i] = b
			continue
		}
		n := copy(m[i:next], d)
		if n < len(d) {
			// Cannot happen for HTML's references (the longest expansion
			// is shorter than the shortest reference); never write a cut
			// rune.
			n = 0
			m[i] = ' '
			n = 1
		}
		for k := i + n; k < next; k++ {
			m[k] = gone
		}
		i = next - 1
	}
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// textDocument treats the whole file as prose; blocks are paragraphs
// separated by blank lines.
func textDocument(src []byte) *document {
	d := &document{mask: append([]byte(nil), src...)}
	d.blocks = paragraphs(src, 0, len(src))
	return d
}

// paragraphs splits src[start:end] at blank lines (lines holding only
// spaces, tabs or a carriage return) into blocks.
func paragraphs(src []byte, start, end int) []span {
	var out []span
	blockStart := -1
	lineStart := start
	for lineStart < end {
		lineEnd := lineStart
		for lineEnd < end && src[lineEnd] != '\n' {
			lineEnd++
		}
		isBlank := true
		for _, b := range src[lineStart:lineEnd] {
			if b != ' ' && b != '\t' && b != '\r' {
				isBlank = false
				break
			}
		}
		if isBlank {
			if blockStart >= 0 {
				out = append(out, span{blockStart, lineStart})
				blockStart = -1
			}
		} else if blockStart < 0 {
			blockStart = lineStart
		}
		lineStart = lineEnd + 1
	}
	if blockStart >= 0 {
		out = append(out, span{blockStart, end})
	}
	return out
}

// The raw mask is the cheap over-approximation of a marked-up file's
// prose that decides whether the file needs parsing: the source with tags
// (<...> on one line) and the emphasis and code marks * and ` dropped, in
// blocks split at blank lines and list, table, heading and quote lines.
//
// rawMaskRange fills m[start:end] with the raw mask of src[start:end].
// Tags are dropped only when they close on their line, so a range of whole
// lines is self-contained.
func rawMaskRange(m, src []byte, start, end int) {
	copy(m[start:end], src[start:end])
	if bytes.IndexByte(src[start:end], '&') >= 0 {
		copyText(m, src, start, end) // character references, as in prose
	}
	for i := start; i < end; i++ {
		switch m[i] {
		case '*', '`':
			m[i] = gone
		case '<':
			j := i + 1
			if j < end && (m[j] == '/' || m[j] == '!' || isAlnum(m[j])) {
				for j < end && j-i < 500 && m[j] != '>' && m[j] != '\n' {
					j++
				}
				if j < end && m[j] == '>' {
					blank(m, i, j+1)
					i = j
				}
			}
		}
	}
}

// rawBlocks splits src at blank lines and before every line that starts a
// table row, list item, heading or quote, so a table or a long list is
// many short blocks rather than one endless sentence.
func rawBlocks(src []byte) []span {
	var out []span
	start := -1
	for ls := 0; ls < len(src); {
		le := ls
		for le < len(src) && src[le] != '\n' {
			le++
		}
		i := ls
		for i < le && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		blankLine := i == le || (i == le-1 && src[i] == '\r')
		starter := !blankLine && (src[i] == '|' || src[i] == '#' || src[i] == '>' || src[i] == '-' || src[i] == '*' || src[i] == '+' || src[i] == '<' ||
			(src[i] >= '0' && src[i] <= '9' && i+1 < le && (src[i+1] == '.' || src[i+1] == ')')))
		if start >= 0 && (blankLine || starter) {
			out = append(out, span{start, ls})
			start = -1
		}
		if !blankLine && start < 0 {
			start = ls
		}
		ls = le + 1
	}
	if start >= 0 {
		out = append(out, span{start, len(src)})
	}
	return out
}
