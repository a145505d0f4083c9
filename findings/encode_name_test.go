package findings

import (
	"strings"
	"testing"
)

// TestFileNamesCannotForgeLines: a file name with a line break (and a
// workflow command after it) stays on its finding's line in text output,
// and inside one escaped property in GitHub output.
func TestFileNamesCannotForgeLines(t *testing.T) {
	name := "docs/x\n::warning::pwned.md"
	for _, format := range []string{"text", "github"} {
		var b strings.Builder
		r := Report{Tool: "retryspec", Findings: []Finding{{Rule: "copy/exactly-once", Severity: Error, Message: "m", File: name, Line: 1, Column: 1}}}
		if err := Encode(&b, format, r); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "::warning::") {
				t.Errorf("%s: the file name forged a line: %q", format, line)
			}
		}
	}
	if got := displayName("docs/launch post.md"); got != "docs/launch post.md" {
		t.Errorf("a printable name was quoted: %s", got)
	}
}
