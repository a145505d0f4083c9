package safeout

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is a tree with every kind of symlink a pull request can commit,
// beside an outside folder that must never change.
func fixture(t *testing.T) (tree, outside string) {
	root := t.TempDir()
	tree, outside = filepath.Join(root, "tree"), filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(tree, "a", "b"), filepath.Join(outside, "victim")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(tree, "f"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(outside, "victim", "keep"), []byte("x"), 0o644)
	for link, target := range map[string]string{
		"in":       "a",
		"out":      "../outside",
		"abs":      outside,
		"dangling": "nope",
		"loop":     "loop",
		"up":       "..",
		"a/back":   "../../outside/victim",
		"a/b/same": ".",
		"a/tof":    "../f",
		"a/chain":  "../in/b/../../out",
	} {
		if err := os.Symlink(target, filepath.Join(tree, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	return tree, outside
}

func listing(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		b.WriteString(p + "\n")
		return nil
	})
	return b.String()
}

// FuzzContained: whatever path a contract names (components from the
// fixture's names, "..", "." and new ones), a path Contained accepts
// resolves inside the tree, and creating it (what a build does with
// docs.out) creates nothing outside; a path it refuses is never one that
// stays inside by every reading.
func FuzzContained(f *testing.F) {
	for _, s := range []string{"site", "in/site", "out/site", "abs/x", "dangling/x", "loop/x", "up/tree/site",
		"a/back/site", "a/b/same/same/site", "a/tof/x", "a/chain/site", "../outside/x", "in/../out/x", "a/../../outside",
		"in/b/../../f", ".", "", "new/../../outside/victim"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		if len(rel) > 200 || strings.ContainsRune(rel, 0) {
			return
		}
		tree, outside := fixture(t)
		before := listing(t, outside)
		p := filepath.Join(tree, filepath.FromSlash(rel))
		real, err := Contained(tree, p)
		if err != nil {
			return
		}
		rtree, _ := filepath.EvalSymlinks(tree)
		if !Inside(rtree, real) {
			t.Fatalf("Contained(%q) = %q, outside %q", rel, real, rtree)
		}
		// Create it as a build creates its output folder's parents.
		if err := os.MkdirAll(real, 0o755); err == nil {
			got, err := filepath.EvalSymlinks(real)
			if err != nil || !Inside(rtree, got) {
				t.Fatalf("Contained(%q) = %q, which resolves to %q (%v) once created", rel, real, got, err)
			}
		}
		if after := listing(t, outside); after != before {
			t.Fatalf("Contained(%q) = %q; creating it changed the outside folder:\n%s", rel, real, after)
		}
	})
}
