package copylint

import (
	"path/filepath"
	"testing"
)

// TestIgnorerAbs checks the per-folder shortcut of ignorer.abs against
// filepath.Abs and filepath.Dir on the paths a walk, a glob or a user
// gives, clean or not.
func TestIgnorerAbs(t *testing.T) {
	g := newIgnorer()
	for _, p := range []string{"a/b", "a//b", "./a", "../x/y", "/x", "/", "a/./b", "a/../b", "a/", "a/.", "a/..",
		"x", "/a/b/c.md", "docs/guide/page.md", "docs/guide/other.md", "./docs/x.md", "../../up.md", "//a//b", ".", ".."} {
		for i := 0; i < 2; i++ { // the second time from the folder cache
			abs, dir, err := g.abs(p)
			want, werr := filepath.Abs(p)
			if err != nil || werr != nil {
				t.Fatalf("abs(%q): %v, %v", p, err, werr)
			}
			if abs != want || dir != filepath.Dir(want) {
				t.Errorf("abs(%q) = %q, %q; want %q, %q", p, abs, dir, want, filepath.Dir(want))
			}
		}
	}
}
