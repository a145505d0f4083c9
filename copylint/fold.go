package copylint

import (
	"bytes"
	"encoding/binary"
	"html"
	"sort"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mtibben/confusables"
	"golang.org/x/text/unicode/norm"
)

// Evasions: text a human reads as "exactly-once" that is not those bytes.
// A character reference (e&#120;actly), an invisible format character
// (soft hyphen, zero-width space, a bidirectional override), a look-alike
// from another script (Cyrillic "а", full-width "ｅ", mathematical bold
// letters) or text written backwards after U+202E. The normaliser undoes
// each one before matching; the offsets of the normalized text still point
// at the source bytes, so findings land where the reader sees the claim.
//
// The cost stays off the common path: the prefilter looks for anchor words
// in the source bytes, which an evasion hides, so a file is first checked
// for anything that could hide a word (mayHide). Only such a file is matched
// the slow way: every block normalized, then searched for anchors.

// rlo is RIGHT-TO-LEFT OVERRIDE: what follows is shown reversed up to the
// next POP DIRECTIONAL FORMATTING (pdf) or the end of the paragraph.
const (
	rlo = '\u202e'
	pdf = '\u202c'
)

// foldCache holds foldRune's answers: the Unicode tables behind it are too
// slow to ask for every letter of a Cyrillic page.
var foldCache sync.Map // rune -> string ("" keeps the rune, "\x00" drops it)

// foldRune is how the normaliser reads a non-ASCII rune that is not one of
// the punctuation marks it maps itself: drop is true for a format
// character (Unicode Cf: soft hyphen, zero-width and bidirectional marks),
// ascii is the lower-case ASCII a reader takes it for when it is a
// look-alike (NFKC compatibility forms such as full-width and mathematical
// letters, then the Unicode TR39 confusables table for other scripts'
// letters), and both are zero when the rune is kept as it is. A Latin
// letter with a diacritic ("é") is a letter of its own language, not a
// disguise, and is kept.
func foldRune(r rune) (ascii string, drop bool) {
	if v, ok := foldCache.Load(r); ok {
		s := v.(string)
		return s, s == "\x00"
	}
	s := foldRuneSlow(r)
	foldCache.Store(r, s)
	return s, s == "\x00"
}

func foldRuneSlow(r rune) string {
	if unicode.Is(unicode.Cf, r) {
		return "\x00"
	}
	if !unicode.IsLetter(r) && !unicode.IsNumber(r) {
		return ""
	}
	lowerASCII := func(s string) string {
		var b []byte
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c >= 'A' && c <= 'Z':
				b = append(b, c+'a'-'A')
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
				b = append(b, c)
			default:
				return ""
			}
		}
		return string(b)
	}
	if k := norm.NFKC.String(string(r)); k != string(r) {
		if a := lowerASCII(k); a != "" {
			return a
		}
	}
	// An accented Latin letter decomposes into a base letter and marks:
	// keep it. A Latin letter without marks that the confusables table
	// maps to ASCII (dotless i, Latin alpha) and other scripts' letters
	// are look-alikes.
	d := norm.NFD.String(string(r))
	if unicode.Is(unicode.Latin, r) && d != string(r) {
		return ""
	}
	sk := confusables.Skeleton(string(r))
	var base []rune
	for _, c := range sk {
		if !unicode.Is(unicode.Mn, c) {
			base = append(base, c)
		}
	}
	if len(base) == 1 {
		return lowerASCII(string(base))
	}
	return ""
}

// hidesWord reports whether r can hide or disguise a letter of a word.
func hidesWord(r rune) bool {
	switch r {
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2212', '\u2018', '\u2019', '\u02bc',
		'\u201c', '\u201d', '\u00a0', '\u2009', '\u202f', '\u2002', '\u2003', '\u2026', '\u2022',
		'\u00a9', '\u00ae', '\u2122', '\u00b7', '\u2192':
		return false
	}
	a, drop := foldRune(r)
	return drop || a != ""
}

// hidingAt appends to out the offsets in src of anything that can hide an
// anchor word from a byte search: a character reference that stands for a
// letter or a format character (outside plain text, where it is not
// decoded), a format character, or a look-alike letter. Plain ASCII prose,
// the common case, costs one comparison per byte. A byte-order mark at the
// start of the file hides nothing.
func hidingAt(src []byte, f format, out []int) []int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i := 0; i < len(src); i++ {
		// Eight bytes at a time while they are ASCII and hold no '&'.
		for i+8 <= len(src) {
			x := binary.LittleEndian.Uint64(src[i:])
			y := x ^ (ones * '&')
			if x&highs != 0 || (y-ones)&^y&highs != 0 {
				break
			}
			i += 8
		}
		if i >= len(src) {
			break
		}
		b := src[i]
		if b < utf8.RuneSelf {
			if b == '&' && f != formatText {
				if r, _, ok := entityAt(src, i, len(src)); ok && r != "" {
					c, _ := utf8.DecodeRuneInString(r)
					if c < utf8.RuneSelf && isAlnum(byte(c)) || c >= utf8.RuneSelf && hidesWord(c) {
						out = append(out, i)
					}
				}
			}
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if hidesWord(r) && !(i == 0 && r == '\ufeff') {
			out = append(out, i)
		}
		i += size - 1
	}
	if f != formatText {
		n := len(out)
		out = markupInWord(src, f, out)
		if len(out) > n && n > 0 {
			sort.Ints(out)
		}
	}
	return out
}

// markupInWord appends the offsets of empty or inline markup between two
// letters of one word ("e<span></span>xactly", "e<!-- -->xactly", in MDX
// "e{/* */}xactly"): the raw bytes then hold no anchor word, but the
// reader, and the raw pass that drops markup, see one. A run of tags counts
// as one piece of markup.
func markupInWord(src []byte, f format, out []int) []int {
	next := nextOfTwo{a: '<', b: '{', atA: -1, atB: -1}
	for i := 0; i < len(src); {
		at := next.from(src, i)
		if at < 0 {
			break
		}
		if at == 0 || !isLetter(src[at-1]) {
			i = at + 1
			continue
		}
		j := at
		for j < len(src) && (src[j] == '<' || src[j] == '{' && (f == formatMDX || f == formatMarkdown && mdxCommentAt(src, j))) {
			end := markupEnd(src, j)
			if end < 0 {
				break
			}
			j = end
		}
		// <br> is white space between words (brAsSpace), not a disguise.
		br := len(src) >= at+3 && src[at+1]|0x20 == 'b' && src[at+2]|0x20 == 'r'
		if j > at && j < len(src) && isLetter(src[j]) && !br {
			out = append(out, at)
		}
		i = max(j, at+1)
	}
	return out
}

// markupEnd is the offset just past the tag, comment or MDX expression at
// src[i], or -1.
func markupEnd(src []byte, i int) int {
	var close []byte
	switch {
	case bytes.HasPrefix(src[i:], []byte("<!--")):
		close = []byte("-->")
	case src[i] == '<':
		close = []byte(">")
	default:
		close = []byte("}")
	}
	k := bytes.Index(src[i+1:], close)
	if k < 0 || k > 200 {
		return -1
	}
	return i + 1 + k + len(close)
}

// mdxCommentAt reports whether an MDX comment ("{/* */}") starts at
// src[i]. Sites that read .md files as MDX (Docusaurus 2 among them) show
// none of it, so inside a word of a Markdown file it is a disguise too.
func mdxCommentAt(src []byte, i int) bool {
	return bytes.HasPrefix(src[i:], []byte("{/*"))
}

// blankWordComments blanks, in the mask m of a Markdown file src, each MDX
// comment that sits between two letters of one word ("e{/* */}xactly"),
// as the MDX front-end does: an evasion must not survive the file's
// extension.
func blankWordComments(m, src []byte) {
	for i := 0; ; {
		k := bytes.Index(src[i:], []byte("{/*"))
		if k < 0 {
			return
		}
		at := i + k
		end := markupEnd(src, at) // the end markupInWord found
		if end > 0 && at > 0 && isLetter(src[at-1]) && end < len(src) && isLetter(src[end]) && m[at-1] != gone && m[end] != gone {
			blank(m, at, end)
		}
		i = at + 1
	}
}

func isLetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// hiddenIn reports whether one of the sorted offsets lies in [start, end).
func hiddenIn(offs []int, start, end int) bool {
	i := sort.SearchInts(offs, start)
	return i < len(offs) && offs[i] < end
}

// entityAt reads a character reference at src[i] ('&'): its decoded text
// and the offset just past its ';'. ok is false when there is none.
func entityAt(src []byte, i, end int) (decoded string, next int, ok bool) {
	j := i + 1
	for j < end && j-i < 40 && (isAlnum(src[j]) || src[j] == '#') {
		j++
	}
	if j >= end || src[j] != ';' || j == i+1 {
		return "", 0, false
	}
	ref := string(src[i : j+1])
	d := html.UnescapeString(ref)
	if d == ref {
		return "", 0, false
	}
	return d, j + 1, true
}

// brAsSpace turns each <br> tag's first mask byte into a space: a line
// break between two words is white space, not a join
// ("exactly-once<br>delivery").
func brAsSpace(m, src []byte) {
	for from := 0; ; {
		i := bytes.IndexByte(src[from:], '<')
		if i < 0 {
			return
		}
		i += from
		from = i + 1
		if i+3 < len(src) && (src[i+1]|0x20) == 'b' && (src[i+2]|0x20) == 'r' &&
			(src[i+3] == '>' || src[i+3] == '/' || src[i+3] == ' ' || src[i+3] == '\t' || src[i+3] == '\n') {
			if m[i] == gone {
				m[i] = ' '
			}
		}
	}
}

// nextOfTwo finds the next of two bytes in a text, as bytes.IndexAny
// would, with one vectorised search per byte kept until it is passed:
// IndexAny builds its set and reads byte by byte on every call, and
// markupInWord calls it once per tag of a page.
type nextOfTwo struct {
	a, b     byte
	atA, atB int // the next a and b at or after the last start; -1 before the first search, len(src) for none
}

// from is the offset of the first a or b at or after i, -1 for none.
func (n *nextOfTwo) from(src []byte, i int) int {
	n.atA = nextByte(src, i, n.a, n.atA)
	n.atB = nextByte(src, i, n.b, n.atB)
	if at := min(n.atA, n.atB); at < len(src) {
		return at
	}
	return -1
}

// nextByte is the offset of the first c at or after i, given the last
// answer was; len(src) for none.
func nextByte(src []byte, i int, c byte, was int) int {
	if was >= i {
		return was
	}
	if k := bytes.IndexByte(src[i:], c); k >= 0 {
		return i + k
	}
	return len(src)
}
