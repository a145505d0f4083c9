package copylint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzIncludeContainment: whatever docs.copy.include pattern a contract
// holds, every file handed on to be read resolves, symlinks followed,
// inside the tree; the files of outside/ (a claim with a marker) are never
// handed on. The fixture holds symlinks into and out of the tree, to
// files and folders, dangling and looping.
func FuzzIncludeContainment(f *testing.F) {
	for _, s := range []string{"*.md", "**/*.md", "link/*.md", "s.md", "docs", "docs/**", "../outside/*.md",
		"in/*.md", "docs/{up,in}/**/*.md", "loop/*.md", "**", "*/*/*.md", "docs/up/outside/*.md"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		if len(pattern) > 100 || strings.ContainsAny(pattern, "\x00\\") || !filepath.IsLocal(filepath.FromSlash(pattern)) {
			return // the contract loader refuses these (validLocalPath)
		}
		root := t.TempDir()
		tree, outside := filepath.Join(root, "tree"), filepath.Join(root, "outside")
		for name, data := range map[string]string{
			"tree/docs/a.md":      "fine",
			"tree/docs/sub/b.mdx": "fine",
			"outside/secret.md":   "OUTSIDE",
			"outside/deep/s.md":   "OUTSIDE",
		} {
			p := filepath.Join(root, filepath.FromSlash(name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(data), 0o644)
		}
		for link, target := range map[string]string{
			"link":          "../outside",
			"s.md":          "../outside/secret.md",
			"abs.md":        filepath.Join(outside, "secret.md"),
			"in":            "docs",
			"docs/up":       "../..",
			"docs/inner.md": "a.md",
			"dangling.md":   "nope.md",
			"loop":          "loop",
		} {
			os.Symlink(target, filepath.Join(tree, filepath.FromSlash(link)))
		}
		rtree, _ := filepath.EvalSymlinks(tree)
		var emitted []string
		expandPaths(context.Background(), []string{filepath.Join(tree, filepath.FromSlash(pattern))}, tree,
			func(p string) { emitted = append(emitted, p) }, func(string, string) {})
		for _, p := range emitted {
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				t.Fatalf("pattern %q handed on %q, which does not resolve: %v", pattern, p, err)
			}
			rel, err := filepath.Rel(rtree, real)
			if err != nil || !filepath.IsLocal(rel) {
				t.Fatalf("pattern %q handed on %q, which resolves to %q, outside the tree", pattern, p, real)
			}
		}
	})
}
