package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder stands in for the test a check reports to, so the checks' own
// failures can be asserted. Methods it does not override are never called
// by this package.
type recorder struct {
	testing.TB
	failures int
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failures++ }
func (r *recorder) Fatalf(string, ...any) { r.failures++ }
func (r *recorder) Fatal(...any)          { r.failures++ }

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheck(t *testing.T) {
	t.Setenv("RETRYSPEC_UPDATE", "")
	if *update {
		t.Skip("runs without -update only")
	}
	path := filepath.Join(t.TempDir(), "a.golden")
	write(t, path, "same\n")
	for _, tt := range []struct {
		name, path, got string
		fails           bool
	}{
		{"equal", path, "same\n", false},
		{"different", path, "other\n", true},
		{"missing file", path + ".nope", "same\n", true},
	} {
		r := &recorder{}
		Check(r, tt.path, []byte(tt.got))
		if (r.failures > 0) != tt.fails {
			t.Errorf("%s: %d failures, want failing = %v", tt.name, r.failures, tt.fails)
		}
	}
}

func TestCheckDir(t *testing.T) {
	t.Setenv("RETRYSPEC_UPDATE", "")
	if *update {
		t.Skip("runs without -update only")
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.txt"), "a")
	write(t, filepath.Join(dir, "sub", "b.txt"), "b")
	for _, tt := range []struct {
		name  string
		got   map[string][]byte
		fails int
	}{
		{"equal", map[string][]byte{"a.txt": []byte("a"), "sub/b.txt": []byte("b")}, 0},
		{"different", map[string][]byte{"a.txt": []byte("A"), "sub/b.txt": []byte("b")}, 1},
		{"no longer produced", map[string][]byte{"a.txt": []byte("a")}, 1},
		{"new file", map[string][]byte{"a.txt": []byte("a"), "sub/b.txt": []byte("b"), "c.txt": nil}, 1},
	} {
		r := &recorder{}
		CheckDir(r, dir, tt.got)
		if r.failures != tt.fails {
			t.Errorf("%s: %d failures, want %d", tt.name, r.failures, tt.fails)
		}
	}
}

// TestUpdateRewrites: with RETRYSPEC_UPDATE=1 a check writes what it got,
// creating folders, and a directory is replaced by exactly the files given.
func TestUpdateRewrites(t *testing.T) {
	t.Setenv("RETRYSPEC_UPDATE", "1")
	if !Update() {
		t.Fatal("RETRYSPEC_UPDATE=1 does not turn on Update")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "new", "x.golden")
	Check(t, path, []byte("fresh\n"))
	if b, err := os.ReadFile(path); err != nil || string(b) != "fresh\n" {
		t.Fatalf("Check under update wrote %q, %v", b, err)
	}
	tree := filepath.Join(dir, "tree")
	write(t, filepath.Join(tree, "stale.txt"), "old")
	CheckDir(t, tree, map[string][]byte{"d/e.txt": []byte("e")})
	got := ReadDir(t, tree)
	if len(got) != 1 || string(got["d/e.txt"]) != "e" {
		t.Errorf("CheckDir under update left %v", got)
	}
}
