//go:build unix

package atomicwrite

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// TestDevicesAndPipesAreStreamed (issue 28): a character device (reached
// here through a symlink to /dev/null, so the real one is only opened,
// never at risk) and a FIFO are written in place, never replaced by a
// regular file; a symlink to a regular file keeps the link.
func TestDevicesAndPipesAreStreamed(t *testing.T) {
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	if err := os.Symlink("/dev/null", null); err != nil {
		t.Fatal(err)
	}
	if err := File(null, []byte("discarded\n"), 0o644); err != nil {
		t.Fatalf("writing to a character device: %v", err)
	}
	if st, err := os.Lstat(null); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the symlink to /dev/null was replaced: %v %v", st.Mode(), err)
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a character device: %v %v", st.Mode(), err)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("SKIPPED: cannot make a FIFO here: %v", err)
	}
	got := testenv.ReadAllLater(fifo)
	if err := File(fifo, []byte("through the pipe\n"), 0o644); err != nil {
		t.Fatalf("writing to a FIFO: %v", err)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", st.Mode(), err) // its reader waits on, unanswered
	}
	if s := <-got; s != "through the pipe\n" {
		t.Errorf("the reader of the FIFO got %q", s)
	}

	real := filepath.Join(dir, "real.yaml")
	link := filepath.Join(dir, "link.yaml")
	os.WriteFile(real, []byte("old"), 0o644)
	os.Symlink("real.yaml", link)
	if err := File(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("the file the link names holds %q, want new", b)
	}
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a regular file")
	}
}

// TestOtherKindsRefused: a folder, a socket and a dangling symlink are
// refused with a *NotRegularError and left as they were.
func TestOtherKindsRefused(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "folder")
	os.Mkdir(folder, 0o755)
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("SKIPPED: cannot make a socket here: %v", err)
	}
	defer ln.Close()
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "missing", "x"), dangling)
	for _, p := range []string{folder, sock, dangling} {
		before, _ := os.Lstat(p)
		err := File(p, []byte("x"), 0o644)
		var nr *NotRegularError
		if !errors.As(err, &nr) {
			t.Errorf("%s: err %v, want a *NotRegularError", filepath.Base(p), err)
			continue
		}
		if after, _ := os.Lstat(p); after.Mode() != before.Mode() {
			t.Errorf("%s: replaced (%v, was %v)", filepath.Base(p), after.Mode(), before.Mode())
		}
		t.Log(err)
	}
}
