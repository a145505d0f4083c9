package copylint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

func TestProbeLocal(t *testing.T) {
	p := os.Getenv("PROBE")
	if p == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(p)
	ext := os.Getenv("PROBE_EXT")
	if ext == "" {
		ext = ".md"
	}
	var c *contract.Contract
	if os.Getenv("PROBE_C") != "" {
		c, _ = contract.Load(filepath.Join("..", "examples", "payouts", "retryspec.yaml"))
	}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		fs := LintSource(c, "x"+ext, []byte(line+"\n"))
		var rs []string
		for _, f := range fs {
			rs = append(rs, fmt.Sprintf("%s@%d-%d", f.Rule, f.Column, f.EndColumn))
		}
		fmt.Printf("%2d %-40s | %s\n", i+1, strings.Join(rs, ","), line)
	}
}
