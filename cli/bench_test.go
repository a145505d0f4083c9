package cli_test

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/retryspec/retryspec/cli"
	"github.com/retryspec/retryspec/internal/testenv"
)

// BenchmarkProcessCheck measures process start to exit of `retryspec check`
// on a typical contract (the payouts example), the way CI and editors run
// it. Budget: under 20 ms per run.
func BenchmarkProcessCheck(b *testing.B) {
	root := testenv.RepoRoot(b)
	bin := filepath.Join(b.TempDir(), "retryspec")
	build := exec.Command("go", "build", "-o", bin, "./cmd/retryspec")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	contract := filepath.Join(root, "examples", "payouts", "retryspec.yaml")
	var cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(bin, "check", "-c", contract)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("check: %v\n%s", err, out)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	// The child's CPU time does not grow with other load on the machine.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkInProcessCheck is the same run without process start: what the
// command itself costs, parsing, linting and printing included.
func BenchmarkInProcessCheck(b *testing.B) {
	contract := filepath.Join(testenv.RepoRoot(b), "examples", "payouts", "retryspec.yaml")
	sys, out, errOut := cli.TestIO()
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		if code := cli.Main([]string{"check", "-c", contract}, sys); code != 0 {
			b.Fatalf("exit %d: %s", code, errOut.String())
		}
	}
}
