package safeout

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fillWith(files map[string]string) func(string) error {
	return func(tmp string) error {
		for name, data := range files {
			p := filepath.Join(tmp, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestReplaceDirOnlyReplacesItsOwnOutput(t *testing.T) {
	root := t.TempDir()
	dst := filepath.Join(root, "out")
	if err := ReplaceDir(dst, nil, fillWith(map[string]string{"a.html": "1", "sub/b.md": "2"})); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dst, ManifestName)); err != nil {
		t.Fatalf("no manifest: %v", err)
	}
	// Our own output, unchanged: replaced.
	if err := ReplaceDir(dst, nil, fillWith(map[string]string{"c.html": "3"})); err != nil {
		t.Fatalf("replacing our own output: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dst, "a.html")); !os.IsNotExist(err) {
		t.Errorf("a file of the previous output survived: %v", err)
	}
	refused := func(what string) {
		t.Helper()
		before, _ := os.ReadFile(filepath.Join(dst, "c.html"))
		err := ReplaceDir(dst, nil, fillWith(map[string]string{"d.html": "4"}))
		var no *NotOursError
		if !errors.As(err, &no) {
			t.Fatalf("%s: err = %v, want a refusal", what, err)
		}
		if after, _ := os.ReadFile(filepath.Join(dst, "c.html")); string(after) != string(before) {
			t.Errorf("%s: the refused run changed the folder", what)
		}
	}
	write(t, filepath.Join(dst, "notes.txt"), "mine")
	refused("a file someone else added")
	os.Remove(filepath.Join(dst, "notes.txt"))
	write(t, filepath.Join(dst, "c.html"), "edited")
	refused("an edited output file")
	write(t, filepath.Join(dst, "c.html"), "3")
	os.Symlink("/etc/passwd", filepath.Join(dst, "link"))
	refused("a symlink")
	os.Remove(filepath.Join(dst, "link"))
	if err := ReplaceDir(dst, nil, fillWith(nil)); err != nil {
		t.Errorf("restored output refused: %v", err)
	}

	// A folder without a manifest is not ours, unless legacy says so.
	src := filepath.Join(root, "src")
	write(t, filepath.Join(src, "main.go"), "package main")
	if err := ReplaceDir(src, nil, fillWith(nil)); err == nil {
		t.Error("replaced a folder with no manifest")
	}
	legacy := func(rel string, data []byte) bool { return string(data) == "package main" }
	if err := ReplaceDir(src, legacy, fillWith(nil)); err != nil {
		t.Errorf("legacy output refused: %v", err)
	}
	// Not a folder.
	write(t, filepath.Join(root, "file"), "x")
	if err := ReplaceDir(filepath.Join(root, "file"), nil, fillWith(nil)); err == nil {
		t.Error("replaced a regular file")
	}
}

func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "keep.txt"), "user")
	if err := WriteFiles(dir, []File{{Name: "a.py", Data: []byte("v1")}}); err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles(dir, []File{{Name: "a.py", Data: []byte("v2")}}); err != nil {
		t.Fatalf("rewriting our own file: %v", err)
	}
	write(t, filepath.Join(dir, "a.py"), "edited by hand")
	if err := WriteFiles(dir, []File{{Name: "a.py", Data: []byte("v3")}}); err == nil {
		t.Error("replaced a file edited by hand")
	}
	write(t, filepath.Join(dir, "b.py"), "user's own")
	if err := WriteFiles(dir, []File{{Name: "b.py", Data: []byte("gen")}}); err == nil {
		t.Error("replaced a file retryspec never wrote")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "keep.txt")); string(b) != "user" {
		t.Errorf("keep.txt = %q", b)
	}
	if err := WriteFiles(dir, []File{{Name: "../x", Data: nil}}); err == nil {
		t.Error("wrote outside the folder")
	}
}

func TestContained(t *testing.T) {
	root := t.TempDir()
	tree := filepath.Join(root, "tree")
	victim := filepath.Join(root, "victim")
	os.MkdirAll(filepath.Join(tree, "real"), 0o755)
	os.MkdirAll(victim, 0o755)
	os.Symlink("../victim", filepath.Join(tree, "out"))
	os.Symlink("real", filepath.Join(tree, "in"))
	os.Symlink("nowhere", filepath.Join(tree, "dangling"))
	for _, tt := range []struct {
		p  string
		ok bool
	}{
		{"site", true},
		{"real/site", true},
		{"in/site", true},
		{"in/new/deeper", true},
		{"out", false},
		{"out/site", false},
		{"out/new/deeper", false},
		{"dangling/site", false},
		{".", true},
	} {
		got, err := Contained(tree, filepath.Join(tree, tt.p))
		if (err == nil) != tt.ok {
			t.Errorf("Contained(%s) = %q, %v; want ok=%v", tt.p, got, err, tt.ok)
		}
	}
}
