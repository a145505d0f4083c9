package verify

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
)

// TestExamplePlan: the worked example of docs/verify.md loads, and its
// contract is the payouts contract but for lock_timeout, max_duration and
// replay_window (and its header comment and the waiver of the short
// window), so the two cannot drift apart.
func TestExamplePlan(t *testing.T) {
	dir := filepath.Join(testenv.RepoRoot(t), "examples", "payouts")
	c, err := contract.Load(filepath.Join(dir, "verify", "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPlan(filepath.Join(dir, "verify", "retryspec.verify.yaml"), c, env(nil)); err != nil {
		t.Fatal(err)
	}
	main, _ := os.ReadFile(filepath.Join(dir, "retryspec.yaml"))
	local, _ := os.ReadFile(filepath.Join(dir, "verify", "retryspec.yaml"))
	lock := regexp.MustCompile(`(?m)^ +(lock_timeout|max_duration|replay_window): .*$`)
	local = regexp.MustCompile(`(?m)\A(#.*\n)*`).ReplaceAll(local, nil)
	local = regexp.MustCompile(`(?s)\nlint:\n  waive:\n    - rule: window/shorter-than-retry-chain\n      because: [^\n]*\n\z`).ReplaceAll(local, []byte("\n"))
	if !bytes.Equal(lock.ReplaceAll(main, nil), lock.ReplaceAll(local, nil)) {
		t.Error("examples/payouts/verify/retryspec.yaml differs from examples/payouts/retryspec.yaml in more than lock_timeout, max_duration and replay_window: copy the change across")
	}
}
