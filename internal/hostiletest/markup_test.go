package hostiletest

import (
	"bytes"
	"testing"
)

// TestLiveMarkup: the checker that scans built pages tells escaped text
// from markup, so the matrix's "no live markup" assertion can fail.
func TestLiveMarkup(t *testing.T) {
	for _, tt := range []struct {
		page string
		bad  bool
	}{
		{`<p>&lt;img src=x onerror=alert(1)&gt;</p>`, false},
		{`<p title="&lt;script&gt;alert(1)">x</p>`, false},
		{`<code>"&lt;/script&gt;&lt;script&gt;alert(2)"</code>`, false},
		{`<script>document.documentElement.className = "js"</script>`, false},
		{`<p><img src=x onerror=alert(1)></p>`, true},
		{`<p onclick="x()">a</p>`, true},
		{`<a href=" JavaScript:alert(1)">a</a>`, true},
		{`<script>alert(1)</script>`, true},
		{`<svg><script>fetch(document.cookie)</script></svg>`, true},
	} {
		if got := len(liveMarkup([]byte(tt.page))) > 0; got != tt.bad {
			t.Errorf("liveMarkup(%s) = %v, want %v", tt.page, liveMarkup([]byte(tt.page)), tt.bad)
		}
	}
}

// TestLiveMarkupInMarkdown: Markdown outputs are checked as a platform
// renders them, so raw HTML from the input is caught and escaped text is
// not.
func TestLiveMarkupInMarkdown(t *testing.T) {
	for md, bad := range map[string]bool{
		"x <img src=x onerror=alert(1)> y\n":     true,
		"x \\<img src=x onerror=alert(1)\\> y\n": false,
		"`<script>alert(1)</script>`\n":          false,
		"<script>alert(1)</script>\n":            true,
		"[a](javascript:alert(1))\n":             true,
	} {
		var page bytes.Buffer
		if err := markdownPlatform.Convert([]byte(md), &page); err != nil {
			t.Fatal(err)
		}
		if got := len(liveMarkup(page.Bytes())) > 0; got != bad {
			t.Errorf("%q renders as %q: live markup %v, want %v", md, page.String(), got, bad)
		}
	}
}
