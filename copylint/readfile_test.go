//go:build unix

package copylint

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadFileMatchesReadFileOS: readFile (on Linux, raw system calls)
// gives the same bytes and the same skip reasons as the portable
// readFileOS, whatever the path names: a file, an empty file, one too
// large, a folder, a FIFO, a missing file and a file without read access.
func TestReadFileMatchesReadFileOS(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	paths := map[string]string{
		"file":    write("a.md", "Retries are safe with a key.\n", 0o644),
		"empty":   write("empty.md", "", 0o644),
		"large":   write("large.md", strings.Repeat("x", MaxFileSize+1), 0o644),
		"folder":  dir,
		"missing": filepath.Join(dir, "no-such.md"),
	}
	if os.Geteuid() != 0 { // root reads any file
		paths["unreadable"] = write("locked.md", "secret\n", 0o000)
	}
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		paths["fifo"] = fifo
	}
	type result struct {
		Data string
		Err  string
	}
	do := func(read func(string, []byte) ([]byte, error), p string) result {
		b, err := read(p, make([]byte, 0, 8))
		r := result{Data: string(b)}
		if err != nil {
			r.Err = err.Error()
		}
		return r
	}
	for name, p := range paths {
		t.Run(name, func(t *testing.T) {
			if name == "fifo" {
				// os.Open of a FIFO waits for a writer; readFile opens
				// it without waiting. Both must skip it.
				got := do(readFile, p)
				if got.Err != "not a regular file" {
					t.Errorf("readFile(FIFO) = %+v, want the skip %q", got, "not a regular file")
				}
				return
			}
			want, got := do(readFileOS, p), do(readFile, p)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("readFile differs from readFileOS (-readFileOS +readFile):\n%s", diff)
			}
			if name == "file" && got.Data == "" {
				t.Error("readFile read nothing from a file with text")
			}
		})
	}
}
