package rules

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// FuzzRun: every contract that loads can be linted without a panic, and
// every finding points at a line of the file with a rule from the catalog.
func FuzzRun(f *testing.F) {
	f.Add(contract.Starter(contract.StarterOptions{}))
	for _, r := range Catalog() {
		if r.Scope == ScopeContract {
			if data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "rules", filepath.FromSlash(r.ID), "bad.yaml")); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := contract.Parse("retryspec.yaml", data)
		if err != nil {
			return
		}
		lines := bytes.Count(c.Source, []byte("\n")) + 1
		for _, fd := range Run(c) {
			if _, ok := ByID(fd.Rule); !ok {
				t.Fatalf("finding for unknown rule %q", fd.Rule)
			}
			if fd.Line < 1 || fd.Line > lines || fd.Column < 1 || fd.Message == "" || fd.Severity == 0 {
				t.Fatalf("bad finding %+v (file has %d lines)", fd, lines)
			}
		}
	})
}
