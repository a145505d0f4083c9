//go:build unix

package site

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}

// TestRebuildKeepsUnchangedFiles builds twice into one folder: the second
// build's files are the same bytes, and an unchanged page is the first
// build's file (same inode), left with one link once the old folder is
// gone; a page edited by hand since is refused as before.
func TestRebuildKeepsUnchangedFiles(t *testing.T) {
	path := examples(t)["payouts"]
	out := filepath.Join(t.TempDir(), "out")
	build := func() error {
		_, err := Build(context.Background(), Options{Contract: path, Out: out, git: noHistory{}})
		return err
	}
	if err := build(); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, out)
	page := filepath.Join(out, "index.html")
	ino := inode(t, page)
	if err := build(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, snapshot(t, out)); diff != "" {
		t.Errorf("rebuild differs:\n%s", diff)
	}
	if got := inode(t, page); got != ino {
		t.Errorf("index.html is a new file (inode %d, was %d): the unchanged page was not reused", got, ino)
	}
	st, _ := os.Stat(page)
	if n := st.Sys().(*syscall.Stat_t).Nlink; n != 1 {
		t.Errorf("index.html has %d links after the rebuild, want 1", n)
	}
}

// TestReuseOnlyTheSameFile: the previous copy is linked only when it holds
// the very bytes, as a plain 0644 file no other name links to; otherwise
// nothing is left at the new path and the caller writes it.
func TestReuseOnlyTheSameFile(t *testing.T) {
	data := []byte("<p>page</p>\n")
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, prev string)
		want  bool
	}{
		{"same bytes", func(*testing.T, string) {}, true},
		{"other bytes", func(t *testing.T, prev string) { write(t, prev, []byte("<p>page</p>\nmore\n"), 0o644) }, false},
		{"shorter", func(t *testing.T, prev string) { write(t, prev, data[:4], 0o644) }, false},
		{"same length, other bytes", func(t *testing.T, prev string) { write(t, prev, []byte("<p>PAGE</p>\n"), 0o644) }, false},
		{"mode 0600", func(t *testing.T, prev string) { os.Chmod(prev, 0o600) }, false},
		{"linked elsewhere", func(t *testing.T, prev string) {
			if err := os.Link(prev, prev+".elsewhere"); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"missing", func(t *testing.T, prev string) { os.Remove(prev) }, false},
		{"a folder", func(t *testing.T, prev string) { os.Remove(prev); os.Mkdir(prev, 0o755) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			prev, dst := filepath.Join(dir, "prev.html"), filepath.Join(dir, "dst.html")
			write(t, prev, data, 0o644)
			tc.setup(t, prev)
			if got := reuse(prev, dst, data, new([]byte)); got != tc.want {
				t.Fatalf("reuse = %v, want %v", got, tc.want)
			}
			_, err := os.Lstat(dst)
			if tc.want && err != nil {
				t.Errorf("reused, but %v", err)
			}
			if !tc.want && !os.IsNotExist(err) {
				t.Errorf("not reused, yet dst is there (%v)", err)
			}
		})
	}
	// An empty file is a file like any other.
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a"), nil, 0o644)
	if !reuse(filepath.Join(dir, "a"), filepath.Join(dir, "b"), nil, new([]byte)) {
		t.Error("an empty file was not reused")
	}
}

func write(t *testing.T, p string, data []byte, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, data, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil { // whatever the umask
		t.Fatal(err)
	}
}
