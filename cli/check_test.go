package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/cli"
	"github.com/retryspec/retryspec/internal/testenv"
)

// TestCheckColour: colour only on a terminal, and never with NO_COLOR set
// or a dumb terminal; other formats never carry escapes.
func TestCheckColour(t *testing.T) {
	bad := filepath.Join(testenv.RepoRoot(t), "testdata", "rules", "retry", "no-jitter", "bad.yaml")
	tests := []struct {
		name   string
		tty    bool
		env    []string
		format string
		color  bool
	}{
		{"terminal", true, nil, "text", true},
		{"pipe", false, nil, "text", false},
		{"NO_COLOR", true, []string{"NO_COLOR=1"}, "text", false},
		{"dumb terminal", true, []string{"TERM=dumb"}, "text", false},
		{"json on a terminal", true, nil, "json", false},
		{"github on a terminal", true, nil, "github", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sys, out, errOut := cli.TestIO(tt.env...)
			sys.OutIsTTY, sys.ErrIsTTY = tt.tty, tt.tty
			if code := cli.Main([]string{"check", "-c", bad, "--format", tt.format}, sys); code != cli.ExitFindings {
				t.Fatalf("exit %d, want 1; stderr %s", code, errOut.String())
			}
			if got := strings.Contains(out.String(), "\x1b["); got != tt.color {
				t.Errorf("colour = %v, want %v:\n%s", got, tt.color, out.String())
			}
		})
	}
}
