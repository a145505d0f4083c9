package verify

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/golden"
)

// drawnKey matches the keys a dry run draws at random: the gate keys
// (40 characters) and the key one past max_key_length.
var drawnKey = regexp.MustCompile(`\b[a-z0-9]{40}\b|\b[a-z0-9]{256}\b`)

// TestDryRunGolden: the dry run of every gate, for a plan against a base
// URL and for plans whose server verify starts (the gates that kill it or
// fail its external calls list their requests only then), with an
// sf-string contract and a short replay window so key-form and
// after-window list theirs. The random keys print as KEY.
func TestDryRunGolden(t *testing.T) {
	sf := payouts(t)
	sf.Idempotency.HeaderValue = contract.HeaderSFString
	sf.Idempotency.Fingerprint = contract.FingerprintNone
	sfPlan := referencePlan(t, sf, []string{"./server", "--addr", "{addr}"})
	sfPlan.ReplayWindow = 2 * time.Second
	sfPlan.Crash.Delays = []time.Duration{300 * time.Millisecond}
	sfPlan.OtherPrincipal = nil
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"base-url", Options{Contract: payouts(t), Plan: fakePlan(t, "http://127.0.0.1:8080", "concurrency: 4\n")}},
		{"server", Options{Contract: payouts(t), Plan: referencePlan(t, payouts(t), []string{"./server", "--addr", "{addr}"})}},
		{"server-sf-string", Options{Contract: sf, Plan: sfPlan}},
		{"only", Options{Contract: payouts(t), Plan: fakePlan(t, "http://127.0.0.1:8080", ""), Only: []string{GateReplay, GateScope}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := drawnKey.ReplaceAllString(strings.Join(DryRun(tc.o), "\n")+"\n", "KEY")
			golden.Check(t, filepath.Join("testdata", "dryrun", tc.name+".golden"), []byte(got))
		})
	}
}
