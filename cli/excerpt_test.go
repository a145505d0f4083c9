package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCopyClipsAHugeLine: `copy` on a 1 MB single-line HTML page (a
// minified build) prints one finding in a few hundred bytes; the whole
// line under it printed 1.5 MB.
func TestCopyClipsAHugeLine(t *testing.T) {
	filler := strings.Repeat("<span>lorem ipsum dolor</span> ", 1_000_000/31/2)
	page := "<html><body><p>" + filler + "</p><p>We guarantee exactly-once delivery.</p><p>" + filler + "</p></body></html>"
	path := filepath.Join(t.TempDir(), "index.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "copy", path)
	if code != ExitFindings {
		t.Fatalf("exit %d, want 1 for the claim; stderr %s", code, errOut)
	}
	if !strings.Contains(out, "exactly-once delivery") || strings.Count(out, "\n") > 8 {
		t.Errorf("want one finding with an excerpt of the claim:\n%.2000s", out)
	}
	t.Logf("%d bytes printed for one finding on a %d-byte line", len(out), len(page))
	if len(out) > 2000 {
		t.Errorf("%d bytes printed for one finding on a %d-byte line, want under 2000:\n%.600s", len(out), len(page), out)
	}
}
