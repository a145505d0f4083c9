package contract

import "testing"

// TestValidLocalPath: docs.out and docs.copy.include stay inside the
// contract's folder, whatever a pull request writes there.
func TestValidLocalPath(t *testing.T) {
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{"site", true},
		{"docs/site", true},
		{"marketing/**/*.md", true},
		{"./docs/*.mdx", true},
		{"a/../b", true},
		{"..", false},
		{"../site", false},
		{"/tmp/site", false},
		{"/etc/*", false},
		{"**/../../outside/*.md", false},
		{"docs/../../x", false},
		{`..\..\x`, false},
		{"", false},
	} {
		if err := validLocalPath(tt.in); (err == nil) != tt.ok {
			t.Errorf("validLocalPath(%q) = %v, want ok=%v", tt.in, err, tt.ok)
		}
	}
}
