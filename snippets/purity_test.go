package snippets

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// TestGenerationIsPure keeps the generator free of processes, sockets and
// the runner: rendering is contract in, text out.
func TestGenerationIsPure(t *testing.T) {
	goBin := testenv.LookPath(t, "go")
	out, err := exec.Command(goBin, "list", "-deps", "github.com/retryspec/retryspec/snippets").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch dep {
		case "os/exec", "net", "net/http", "github.com/retryspec/retryspec/snippets/run",
			"github.com/retryspec/retryspec/snippets/faultserver", "github.com/spf13/cobra":
			t.Errorf("package snippets depends on %s", dep)
		}
	}
}
