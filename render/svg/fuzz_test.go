package svg

import (
	"encoding/xml"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzEsc: esc is the one escaper for contract text in SVG. For any
// contract text, the text in an element and in an attribute value, read
// back by an XML parser (SVG is XML), is the original, and nothing but the
// one element appears. Seeds: testdata/fuzz/FuzzEsc.
func FuzzEsc(f *testing.F) {
	for _, s := range []string{"Lumapay", `"><script>alert(1)</script>`, "a & b", "]]>", "<!--", "&amp;", "'", "\u00a0é🎉"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || !isXMLChar(r) }) >= 0 {
			return // the loader never lets these through
		}
		doc := `<svg xmlns="http://www.w3.org/2000/svg"><text aria-label="` + esc(s) + `">` + esc(s) + `</text></svg>`
		var v struct {
			Text struct {
				Label string `xml:"aria-label,attr"`
				Body  string `xml:",innerxml"`
				Chars string `xml:",chardata"`
			} `xml:"text"`
		}
		if err := xml.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("esc(%q) breaks the document: %v\n%s", s, err, doc)
		}
		if v.Text.Label != s || v.Text.Chars != s {
			t.Fatalf("esc(%q) reads back as attribute %q, text %q", s, v.Text.Label, v.Text.Chars)
		}
		if strings.Contains(v.Text.Body, "<") {
			t.Fatalf("esc(%q) makes markup: %s", s, v.Text.Body)
		}
	})
}

func isXMLChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}
