package client_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/verify/client"
)

// verifyClientCache is where .ci/install-verifyclient puts the SDKs.
func verifyClientCache() string {
	if d := os.Getenv("RETRYSPEC_VERIFYCLIENT_CACHE"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "retryspec", "verifyclient")
}

// TestFieldStripeNode runs Stripe's official Node SDK (npm stripe, pinned by
// .ci/install-verifyclient), pointed at the fault server through its host,
// port and protocol settings, against a contract stating what the SDK
// documents and does (testdata/field/stripe.yaml says where each value
// comes from). The verdicts are the SDK's, and pinned here:
//   - it keeps one key per call, retries 5xx, resets and timeouts, stops at
//     three attempts and waits inside its equal-jitter envelope;
//   - it retries every 409, so a 409 whose code is not the in-flight one
//     (here: the code outside error.code) is retried too: client/in-flight
//     fails;
//   - it reads no Retry-After, retries no 429 and has no cautious status:
//     those gates are skipped with the reason.
//
// The jitter verdict is logged, not pinned: the SDK's first wait is its
// 0.5 s floor every time, so only the second waits are random and a
// saturated machine can hide them (the gate itself is proven by
// TestBrokenClientFailsItsGates and TestJudges).
func TestFieldStripeNode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Stripe's Node SDK through every fault scenario")
	}
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Missing(t, "node (the field suite runs Stripe's Node SDK)")
	}
	modules := filepath.Join(verifyClientCache(), "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "stripe", "package.json")); err != nil {
		testenv.Missing(t, "npm package stripe in "+modules+" (run .ci/install-verifyclient)")
	}
	c, err := contract.Load(filepath.Join("testdata", "field", "stripe.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	prog, err := os.ReadFile(filepath.Join("testdata", "field", "stripe.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stripe.mjs"), prog, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	res := verifyClient(t, client.Options{Contract: c, Command: []string{"node", "stripe.mjs"}, Dir: dir, Runs: 5})
	want := map[string]string{
		"client/same-key": "passed", "client/retries-transient": "passed", "client/backoff": "passed",
		"client/retry-after": "skipped", "client/no-retry-client-error": "passed", "client/cautious-status": "skipped",
		"client/in-flight": "failed", "client/no-retry-mismatch": "passed", "client/connection-reset": "passed",
		"client/attempt-timeout": "passed", "client/max-attempts": "passed", "client/max-elapsed": "skipped",
	}
	for id, g := range results(t, res) {
		if w, ok := want[id]; ok && g.Result != w {
			t.Errorf("%s %s, want %s: %s", id, g.Result, w, g.Reason)
		}
	}
}
