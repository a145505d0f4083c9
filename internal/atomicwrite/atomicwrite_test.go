package atomicwrite

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestDirReplacesAndKeepsOnFailure(t *testing.T) {
	parent := t.TempDir()
	dst := filepath.Join(parent, "site")
	write := func(name, data string) func(string) error {
		return func(tmp string) error { return os.WriteFile(filepath.Join(tmp, name), []byte(data), 0o644) }
	}
	if err := Dir(dst, write("a.html", "one")); err != nil {
		t.Fatal(err)
	}
	if err := Dir(dst, write("b.html", "two")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dst, "a.html")); !os.IsNotExist(err) {
		t.Errorf("a file of the previous output survived the swap: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "b.html")); string(b) != "two" {
		t.Errorf("b.html = %q", b)
	}
	boom := errors.New("boom")
	err := Dir(dst, func(tmp string) error {
		os.WriteFile(filepath.Join(tmp, "c.html"), []byte("half"), 0o644)
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "b.html")); string(b) != "two" {
		t.Errorf("a failed fill changed the output: b.html = %q", b)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 1 {
		t.Errorf("temporary folders left beside the output: %v", ents)
	}
	if err := os.WriteFile(filepath.Join(parent, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Dir(filepath.Join(parent, "file"), write("x", "y")); err == nil {
		t.Error("Dir replaced a regular file")
	}
}

func TestFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "overlay.yaml")
	for _, data := range []string{"first", "second"} {
		if err := File(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != data {
			t.Errorf("read %q, want %q", b, data)
		}
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}
