package copylint

import "unicode/utf8"

// normText is one prose block in matching form: ASCII lower case, each run
// of white space one space, Unicode dashes "-", curly apostrophes "'", the
// mask's gone bytes dropped. off[i] is the source offset of text[i]; off has
// one extra entry, the end of the block.
type normText struct {
	text []byte
	off  []int
	// mask is the mask the text came from: its bytes keep the source's case.
	mask []byte
}

// normalize builds the matching form of mask[start:end]. With skipCode, the
// bytes inside code spans are dropped as well (each code span leaves one
// space, so the words around it do not fuse).
func normalize(mask []byte, start, end int, code []span, skipCode bool, n *normText) {
	n.text = n.text[:0]
	n.off = n.off[:0]
	n.mask = mask
	ci := 0
	space := true // drop leading space
	for i := start; i < end; {
		if skipCode {
			for ci < len(code) && code[ci].end <= i {
				ci++
			}
			if ci < len(code) && code[ci].start <= i {
				if !space {
					n.text = append(n.text, ' ')
					n.off = append(n.off, i)
					space = true
				}
				i = code[ci].end
				continue
			}
		}
		b := mask[i]
		switch {
		case b == gone:
			i++
			continue
		case b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\f' || b == '\v':
			if !space {
				n.text = append(n.text, ' ')
				n.off = append(n.off, i)
				space = true
			}
			i++
			continue
		case b < utf8.RuneSelf:
			if b >= 'A' && b <= 'Z' {
				b += 'a' - 'A'
			}
			n.text = append(n.text, b)
			n.off = append(n.off, i)
			space = false
			i++
			continue
		}
		r, size := utf8.DecodeRune(mask[i:end])
		var out byte
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2212':
			out = '-'
		case '\u2018', '\u2019', '\u02bc':
			out = '\''
		case '\u201c', '\u201d':
			out = '"'
		case '\u00a0', '\u2009', '\u202f', '\u2002', '\u2003':
			out = ' '
		case '\u00ad', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff':
			i += size // soft hyphen, zero-width: no width in prose
			continue
		}
		if out == ' ' {
			if !space {
				n.text = append(n.text, ' ')
				n.off = append(n.off, i)
				space = true
			}
		} else if out != 0 {
			n.text = append(n.text, out)
			n.off = append(n.off, i)
			space = false
		} else {
			// Any other non-ASCII rune is kept as is, byte for byte.
			for k := 0; k < size; k++ {
				n.text = append(n.text, mask[i+k])
				n.off = append(n.off, i+k)
			}
			space = false
		}
		i += size
	}
	if len(n.text) > 0 && n.text[len(n.text)-1] == ' ' {
		n.text = n.text[:len(n.text)-1]
		n.off = n.off[:len(n.off)-1]
	}
	n.off = append(n.off, end)
}

// sentences splits normalized text into sentences: at ". ", "! ", "? " and
// "; ", and not after common abbreviations (e.g., i.e., etc., vs.) or a
// single letter ("U.S."). A claim is matched within one sentence, so a
// denial in the next sentence does not excuse it.
func sentences(text []byte, out []span) []span {
	out = out[:0]
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '.' && c != '!' && c != '?' && c != ';' {
			continue
		}
		if i+1 < len(text) && text[i+1] != ' ' && text[i+1] != '"' && text[i+1] != ')' {
			continue
		}
		if c == '.' && isAbbrev(text[start:i]) {
			continue
		}
		out = append(out, span{start, i + 1})
		start = i + 1
		for start < len(text) && text[start] == ' ' {
			start++
		}
		i = start - 1
	}
	if start < len(text) {
		out = append(out, span{start, len(text)})
	}
	return out
}

func isAbbrev(before []byte) bool {
	j := len(before)
	for j > 0 && before[j-1] != ' ' && before[j-1] != '(' {
		j--
	}
	w := string(before[j:])
	switch w {
	case "e.g", "i.e", "etc", "vs", "cf", "approx", "incl", "fig", "dr", "mr", "ms", "inc", "ltd":
		return true
	}
	return len(w) == 1 && w[0] >= 'a' && w[0] <= 'z'
}
