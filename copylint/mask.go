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
	// rows are the rows of the tables (Markdown and HTML), each under its
	// table's header: records.go reads a row as attributes and values.
	rows []tableRow
}

// tableRow is one data row of a table: the prose range of each cell, and
// of each cell of the table's header row (none when it has no header).
type tableRow struct {
	header, cells []span
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
// many short blocks rather than one endless sentence. The ranges in skip
// (rawFences, sorted; whole lines) are left out, as blank lines are. The
// blocks are appended to out.
func rawBlocks(src []byte, skip []span, out []span) []span {
	start := -1
	for ls := 0; ls < len(src); {
		if len(skip) > 0 && ls >= skip[0].start {
			if start >= 0 {
				out = append(out, span{start, ls})
				start = -1
			}
			ls = skip[0].end
			skip = skip[1:]
			continue
		}
		le := len(src)
		if k := bytes.IndexByte(src[ls:], '\n'); k >= 0 {
			le = ls + k
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

// rawFences returns the top-level fenced code blocks of a Markdown source,
// each as the byte range of its lines (opening fence to closing fence, or
// to the end), for the raw pass to leave out: a fenced code block is never
// prose unless code is linted (markdown.go skips it).
//
// It must never call prose code, or the raw pass would hide a finding, so
// it only knows the plain case and says nothing (nil) when unsure. An
// opening fence counts only at the very start of a line, where no list
// item or quote can hold it and no paragraph can continue lazily into it;
// not inside front matter, and not inside anything that may be an HTML
// block (from a line starting with '<' to its end condition, taken late).
// A file with a carriage return that is not part of a CRLF (a line break
// to goldmark, not to this scan) gets nil. The caller must not use the
// result for a file goldmark is not given (readsAsText).
func rawFences(src []byte) []span {
	if !bytes.Contains(src, []byte("```")) && !bytes.Contains(src, []byte("~~~")) {
		return nil
	}
	for i := bytes.IndexByte(src, '\r'); i >= 0; {
		if i+1 >= len(src) || src[i+1] != '\n' {
			return nil
		}
		j := bytes.IndexByte(src[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	fm := frontMatterEnd(src)
	var out []span
	var (
		inFence   bool
		fenceChar byte
		fenceLen  int
		fenceFrom int
		htmlEnd   string // "": not in an HTML block; "\n": until a blank line
	)
	for ls := fm; ls < len(src); {
		le := bytes.IndexByte(src[ls:], '\n')
		next := len(src)
		if le < 0 {
			le = len(src)
		} else {
			le += ls
			next = le + 1
		}
		line := bytes.TrimRight(src[ls:le], "\r")
		switch {
		case inFence:
			if closesFence(line, fenceChar, fenceLen) {
				out = append(out, span{fenceFrom, next})
				inFence = false
			}
		case htmlEnd == "\n":
			if len(bytes.TrimLeft(line, " \t")) == 0 {
				htmlEnd = ""
			}
		case htmlEnd != "":
			if containsFold(line, htmlEnd) {
				htmlEnd = ""
			}
		default:
			if c, n := opensFence(line); n > 0 {
				inFence, fenceChar, fenceLen, fenceFrom = true, c, n, ls
			} else if t := bytes.TrimLeft(line, " "); len(t) > 0 && len(line)-len(t) <= 3 {
				switch {
				case t[0] == '<':
					htmlEnd = htmlBlockEnd(t)
					if htmlEnd != "\n" && containsFold(t[1:], htmlEnd) {
						htmlEnd = ""
					}
				case t[0] == '[' && bytes.Contains(t, []byte("]:")):
					// A link reference definition: its title may run
					// over lines (never a blank one) and hold a fence.
					htmlEnd = "\n"
				}
			}
		}
		ls = next
	}
	if inFence {
		out = append(out, span{fenceFrom, len(src)})
	}
	return out
}

// readsAsText reports whether markdownDocument reads src as plain text,
// code included: goldmark is given the source with front matter blanked,
// and a deeply indented one is not given to it at all (markdownFrom).
func readsAsText(src []byte) bool {
	return deeplyIndentedAfter(src, frontMatterEnd(src))
}

// opensFence reports a fence at the very start of line: its character and
// length, or 0. A backtick fence's info string holds no backtick.
func opensFence(line []byte) (byte, int) {
	if len(line) < 3 || (line[0] != '`' && line[0] != '~') {
		return 0, 0
	}
	c := line[0]
	n := 0
	for n < len(line) && line[n] == c {
		n++
	}
	if n < 3 || c == '`' && bytes.IndexByte(line[n:], '`') >= 0 {
		return 0, 0
	}
	return c, n
}

// closesFence reports whether line closes a fence of n c's: up to three
// spaces, at least n c's, then only spaces and tabs.
func closesFence(line []byte, c byte, n int) bool {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	k := i
	for k < len(line) && line[k] == c {
		k++
	}
	return k-i >= n && len(bytes.TrimRight(line[k:], " \t")) == 0
}

// htmlBlockEnd is what ends an HTML block that starts with t (t[0] is '<'),
// taken as late as CommonMark allows: the end marker of the kinds that
// span blank lines, else a blank line ("\n").
func htmlBlockEnd(t []byte) string {
	switch {
	case bytes.HasPrefix(t, []byte("<!--")):
		return "-->"
	case bytes.HasPrefix(t, []byte("<?")):
		return "?>"
	case bytes.HasPrefix(t, []byte("<![CDATA[")):
		return "]]>"
	case bytes.HasPrefix(t, []byte("<!")):
		return ">"
	}
	for _, tag := range []string{"script", "pre", "style", "textarea"} {
		if len(t) > len(tag) && bytes.EqualFold(t[1:1+len(tag)], []byte(tag)) {
			return "</" + tag + ">"
		}
	}
	return "\n"
}

// containsFold reports whether s holds the ASCII string sub, ignoring case.
func containsFold(s []byte, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if bytes.EqualFold(s[i:i+len(sub)], []byte(sub)) {
			return true
		}
	}
	return false
}
