package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
)

// TestReferenceServerIssue32 runs every gate against examples/payouts/server
// started with --contract on the Square example (the key in the JSON body,
// per-endpoint max lengths) and the Azure email example (a first-sent
// window, a result header), each with the test settings shortLockContract
// gives the payouts one (a 3s lock, a 15s replay window, waived), so the
// crash and after-window gates run in seconds. verify and the server read
// one contract file; every gate passes or skips with a reason, and the
// gates of issue 32's fields run.
func TestReferenceServerIssue32(t *testing.T) {
	bin := referenceServer(t)
	for _, tc := range []struct {
		example string
		shorten []string
		ops     string
		mustRun []string
	}{
		{"square-payments", []string{"replay_window: 24h", "replay_window: " + testWindow}, `  "POST /v2/payments":
    body: {"source_id": "cnon:card-nonce-ok", "amount_money": {"amount": 1000, "currency": "USD"}}
    effects: {request: "GET /effects?idempotency_key={key}", count: /count}
`, []string{GateMissingKey, GateKeyTooLong, GateConcurrency, GateReplay, GateMismatch, GateScope, GateFailedAttempt, GateRestartReplay, GateCrashRecovery, GateAfterWindow}},
		{"azure-email", []string{"replay_window: 5m ", "replay_window: " + testWindow + " ", "window: 5m ", "window: " + testWindow + " ",
			"duration: 5m", "duration: " + testWindow, "max_elapsed: 2m", "max_elapsed: 10s"}, `  "POST /emails:send":
    body: {"senderAddress": "a@example.com", "content": {"subject": "Welcome"}}
    mismatch_body: {"senderAddress": "a@example.com", "content": {"subject": "Goodbye"}}
    effects: {request: "GET /effects?idempotency_key={key}", count: /count}
`, []string{GateMissingKey, GateKeyTooLong, GateConcurrency, GateReplay, GateMismatch, GateScope, GateTooOld, GateResultHeader, GateRestartReplay, GateCrashRecovery, GateAfterWindow}},
	} {
		t.Run(tc.example, func(t *testing.T) {
			t.Parallel()
			c, file := testContract(t, tc.example, tc.shorten)
			cmd := []string{bin, "--addr", "{addr}", "--store", "sqlite:" + filepath.Join(t.TempDir(), "api.db"), "--contract", file, "--jobs-every", "0"}
			src := fmt.Sprintf("headers:\n  Authorization: Bearer acct_a\nother_principal:\n  Authorization: Bearer acct_b\nsettle: 50ms\ncrash: {sweep: 1}\nserver:\n  command: [%s]\n  ready: \"GET /healthz\"\noperations:\n%s", quoteAll(cmd), tc.ops)
			plan, err := ParsePlan("plan.yaml", []byte(src), c, env(nil))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), Options{Contract: c, Plan: plan, Env: os.Environ()})
			if err != nil {
				t.Fatal(err)
			}
			noneFailed(t, res, tc.mustRun)
		})
	}
}

// testContract writes examples/NAME's contract with the payouts test
// settings (a 3s lock_timeout, max_duration 2500ms, a 2s attempt timeout) and the replacements
// in shorten, and a lint waiver for the windows shorter than the retry
// chain, to a file verify and the server both read.
func testContract(t *testing.T, name string, shorten []string) (*contract.Contract, string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "examples", name, "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(raw)
	for i := 0; i+1 < len(shorten); i += 2 {
		if !strings.Contains(src, shorten[i]) {
			t.Fatalf("examples/%s/retryspec.yaml no longer says %q", name, shorten[i])
		}
		src = strings.ReplaceAll(src, shorten[i], shorten[i+1])
	}
	src = strings.ReplaceAll(strings.ReplaceAll(src, "lock_timeout: 2m", "lock_timeout: 3s"), "max_duration: 30s", "max_duration: 2500ms")
	// The lock must outlast the attempt timeout (p99 x factor 2.5): 2s.
	src = regexp.MustCompile(`p99: \S+`).ReplaceAllString(src, "p99: 800ms")
	src += "lint:\n  waive:\n    - rule: window/shorter-than-retry-chain\n      because: \"a test contract: verify/after-window waits past the window, so it is seconds long\"\n"
	file := filepath.Join(t.TempDir(), "retryspec.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := contract.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	return c, file
}

func quoteAll(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = fmt.Sprintf("%q", a)
	}
	return strings.Join(out, ", ")
}
