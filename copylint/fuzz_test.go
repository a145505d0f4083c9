package copylint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
)

// One fuzz target per copy format, each seeded from testdata/fuzz/<Target>
// and from the matching files of the hostile corpus (testdata/hostile at
// the repository root). Each holds that LintSource, with and without a
// contract, neither panics nor hangs, points every finding at a real
// line and column of the file, keeps messages to one line, and answers
// the same twice.

func FuzzCopyMarkdown(f *testing.F) { fuzzFormat(f, "copy.md", ".md") }
func FuzzCopyMDX(f *testing.F)      { fuzzFormat(f, "copy.mdx", ".mdx") }
func FuzzCopyHTML(f *testing.F)     { fuzzFormat(f, "copy.html", ".html") }
func FuzzCopyText(f *testing.F)     { fuzzFormat(f, "copy.txt", ".txt") }

func fuzzFormat(f *testing.F, name, ext string) {
	for _, s := range []string{
		"We guarantee exactly-once delivery.",
		"Retry on any error, every 2 seconds.",
		"<!-- retryspec-disable-next-line copy/exactly-once -- quoting a competitor -->\nexactly once",
		"Keys are kept for 24 hours in the `Idempotency-Key` header, an IETF standard.",
	} {
		f.Add([]byte(s))
	}
	hostile, _ := filepath.Glob(filepath.Join("..", "testdata", "hostile", "copy-*"+ext))
	for _, p := range hostile {
		if data, err := os.ReadFile(p); err == nil && len(data) < 1<<20 {
			f.Add(data)
		}
	}
	c, err := contract.Load(filepath.Join("..", "examples", "payouts", "retryspec.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testenv.Watchdog(testenv.HangCPU, func() string {
			return fmt.Sprintf("LintSource(%s) hangs on %d bytes starting %.300q", name, len(data), data)
		})()
		lines := strings.Split(string(data), "\n")
		for _, ctr := range []*contract.Contract{nil, c} {
			first := LintSource(ctr, name, data)
			for _, fd := range first {
				if !strings.HasPrefix(fd.Rule, "copy/") {
					t.Fatalf("finding for rule %q", fd.Rule)
				}
				if fd.File != name {
					t.Fatalf("finding names file %q, want %q", fd.File, name)
				}
				if fd.Line < 1 || fd.Line > len(lines) {
					t.Fatalf("%s: line %d outside 1..%d", fd.Rule, fd.Line, len(lines))
				}
				if n := len(lines[fd.Line-1]); fd.Column < 1 || fd.Column > n+1 {
					t.Fatalf("%s: column %d outside line %d of %d bytes", fd.Rule, fd.Column, fd.Line, n)
				}
				if fd.Message == "" || strings.ContainsAny(fd.Message, "\n\r") {
					t.Fatalf("%s: message %q is not one line", fd.Rule, fd.Message)
				}
			}
			if again := LintSource(ctr, name, data); !cmp.Equal(first, again) {
				t.Fatalf("two runs differ:\n%s", cmp.Diff(first, again))
			}
		}
	})
}
