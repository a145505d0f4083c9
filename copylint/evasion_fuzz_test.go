package copylint

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEvasion (issue 13 item 3): the fuzzer picks, letter by letter, how
// "exactly-once" is disguised: a character reference (decimal, hex,
// named), a look-alike from another script, a full-width or mathematical
// letter, an invisible format character after it, the whole word written
// backwards after U+202E, and a <br> before the next word. Every such text
// reads "exactly-once delivery" to a human, so the claim must be found, in
// Markdown and HTML, on the line it is on.
func FuzzEvasion(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14})
	f.Add([]byte{0x80, 0x41, 0x22, 0x13, 0x35, 0x66, 0x77, 0x08, 0x99, 0x1a, 0x2b, 0x3c, 0x4d})
	f.Add([]byte("\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3"))
	f.Fuzz(func(t *testing.T, choice []byte) {
		word := disguise("exactly-once", choice)
		for _, ext := range []string{".md", ".html"} {
			body := "# Delivery\n\nLumapay guarantees " + word + " delivery for every transfer.\n"
			if ext == ".html" {
				body = "<h1>Delivery</h1>\n<p>Lumapay guarantees " + word + " delivery for every transfer.</p>\n"
			}
			found := false
			for _, fd := range LintSource(nil, "page"+ext, []byte(body)) {
				if fd.Rule == RuleExactlyOnce && fd.Line == 3-btoi(ext == ".html") {
					found = true
				}
			}
			if !found {
				t.Fatalf("evasion not found in %s: %q", ext, body)
			}
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Look-alikes a reader takes for the ASCII letter: Cyrillic, Greek,
// full-width and mathematical bold forms.
var lookAlikes = map[rune][]rune{
	'a': {'\u0430', '\uff41', '\U0001d41a', '\u0251'},
	'c': {'\u0441', '\uff43', '\U0001d41c', '\u03f2'},
	'e': {'\u0435', '\uff45', '\U0001d41e'},
	'l': {'\uff4c', '\U0001d425', '\u2113', '\u04c0'}, // TR39 reads small palochka (U+04CF) as i
	'n': {'\uff4e', '\U0001d427'},
	'o': {'\u043e', '\u03bf', '\uff4f', '\U0001d428'},
	't': {'\uff54', '\U0001d42d'},
	'x': {'\u0445', '\uff58', '\U0001d431'},
	'y': {'\u0443', '\uff59', '\U0001d432'},
	'-': {'\u2010', '\u2011', '\u2013'},
}

var invisibles = []string{"\u00ad", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "&shy;", "&ZeroWidthSpace;", "&#x200B;", "&#8203;"}

// disguise spells word by the fuzzer's choices; each letter takes one
// byte (its low 3 bits the spelling, the next 2 an invisible after it),
// and the byte after the last letter may reverse the word after U+202E.
func disguise(word string, choice []byte) string {
	at := func(i int) byte {
		if i < len(choice) {
			return choice[i]
		}
		return 0
	}
	var b strings.Builder
	for i, r := range word {
		c := at(i)
		switch c & 7 {
		case 1:
			fmt.Fprintf(&b, "&#%d;", r)
		case 2:
			fmt.Fprintf(&b, "&#x%x;", r)
		case 3:
			fmt.Fprintf(&b, "&#X%X;", r)
		case 4, 5, 6:
			if alts := lookAlikes[r]; len(alts) > 0 {
				b.WriteRune(alts[int(c>>5)%len(alts)])
			} else {
				b.WriteRune(r)
			}
		default:
			b.WriteRune(r)
		}
		if i < len(word)-1 && (c>>3)&3 == 3 {
			b.WriteString(invisibles[int(c>>5)%len(invisibles)])
		}
	}
	s := b.String()
	if at(len(word))&1 == 1 && !strings.Contains(s, "&") {
		// Shown reversed: store the runes backwards after the override.
		runes := []rune(s)
		for i, j := 0, len(runes)-1; i < j; i, j = i+1, j-1 {
			runes[i], runes[j] = runes[j], runes[i]
		}
		s = "\u202e" + string(runes) + "\u202c"
	}
	if !utf8.ValidString(s) {
		panic("disguise built invalid UTF-8")
	}
	return s
}
