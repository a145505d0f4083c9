//go:build unix

package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// TestOutputsNeverReplaceNonRegularFiles (issue 28): `openapi --overlay`
// and `--merged` and `init --force` write to a character device (a
// symlink to /dev/null here, so the real node is only opened) and to a
// FIFO as a stream, and refuse a folder with exit 2, leaving each as it was.
func TestOutputsNeverReplaceNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	contractPath := filepath.Join("..", "openapi", "testdata", "contract.yaml")
	spec := filepath.Join("..", "openapi", "testdata", "small.yaml")
	null := filepath.Join(dir, "null")
	if err := os.Symlink("/dev/null", null); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--overlay", "--merged"} {
		if code, _, errs := runCLI(t, "openapi", "-c", contractPath, "--spec", spec, flag, null); code != 0 {
			t.Errorf("openapi %s to a device: exit %d\n%s", flag, code, errs)
		}
		if st, err := os.Lstat(null); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("openapi %s replaced the symlink to /dev/null: %v", flag, err)
		}
	}
	if st, _ := os.Stat("/dev/null"); st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatal("/dev/null is no longer a character device")
	}

	folder := filepath.Join(dir, "out")
	os.Mkdir(folder, 0o755)
	code, _, errs := runCLI(t, "openapi", "-c", contractPath, "--spec", spec, "--merged", folder)
	if code != ExitInput || !strings.Contains(errs, "is a folder, not a regular file") {
		t.Errorf("openapi --merged to a folder: exit %d, want 2 with a clear message\n%s", code, errs)
	}
	if st, _ := os.Lstat(folder); !st.IsDir() {
		t.Error("the folder was replaced")
	}

	fifo := filepath.Join(dir, "contract.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("SKIPPED: cannot make a FIFO here: %v", err)
	}
	got := testenv.ReadAllLater(fifo)
	if code, _, errs := runCLI(t, "init", "--force", "-c", fifo); code != 0 {
		t.Fatalf("init --force to a FIFO: exit %d\n%s", code, errs)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("init --force replaced the FIFO: %v", err)
	}
	if s := <-got; !strings.Contains(s, "idempotency:") {
		t.Errorf("the FIFO's reader did not get a contract:\n%.300s", s)
	}
}
