package hostiletest

import "testing"

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
