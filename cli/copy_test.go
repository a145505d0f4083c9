package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/copylint"
)

// TestCopySkipsLargeFoundFiles: a file too large to be copy, found in a
// folder, is skipped with a notice that names it; the rest is linted.
func TestCopySkipsLargeFoundFiles(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "reference.md")
	if err := os.WriteFile(huge, []byte(strings.Repeat("generated line\n", copylint.MaxFileSize/15+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "post.md"), []byte("We offer exactly-once delivery.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "copy", "--format", "json", dir)
	if code != ExitFindings || !strings.Contains(out, "post.md") {
		t.Errorf("exit %d, stdout %q: want the claim in post.md found", code, out)
	}
	if !strings.Contains(errOut, "skipped "+strconv.Quote(huge)+": larger than 1 MiB") || !strings.Contains(errOut, "skipped 1") {
		t.Errorf("stderr %q lacks the notice naming %s", errOut, huge)
	}
}
