package verify

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// BenchmarkConcurrencySpread measures the concurrency gate's release
// spread (first to last request start, the widest of the gate's three
// rounds) at N = 64 against the reference server in its own process: the
// median and the widest over the iterations (BENCHMARKS.md; reported,
// never asserted).
func BenchmarkConcurrencySpread(b *testing.B) {
	bin := referenceServer(b)
	c, file := shortLockContract(b)
	db := filepath.Join(b.TempDir(), "payouts.db")
	p := referencePlan(b, c, []string{bin, "--addr", "{addr}", "--store", "sqlite:" + db, "--contract", file, "--jobs-every", "0"})
	var spreads []float64
	for b.Loop() {
		res, err := Run(context.Background(), Options{Contract: c, Plan: p, Env: os.Environ(), Only: []string{GateConcurrency}, Concurrency: 64})
		if err != nil || res.Gates[0].SpreadMS == nil || res.Gates[0].Result != Passed {
			b.Fatalf("%v %+v", err, res)
		}
		spreads = append(spreads, *res.Gates[0].SpreadMS)
	}
	slices.Sort(spreads)
	b.ReportMetric(spreads[len(spreads)/2], "median-spread-ms")
	b.ReportMetric(spreads[len(spreads)-1], "max-spread-ms")
}

// BenchmarkReferenceServer is the full gate set against
// examples/payouts/server on SQLite with the test contract
// (shortLockContract: a short lock_timeout, so each crash trial waits
// seconds for the takeover, and a short replay_window, which
// verify/after-window waits past); BENCHMARKS.md has the figures.
func BenchmarkReferenceServer(b *testing.B) {
	bin := referenceServer(b)
	c, file := shortLockContract(b)
	var spread float64
	for b.Loop() {
		db := filepath.Join(b.TempDir(), "payouts.db")
		p := referencePlan(b, c, []string{bin, "--addr", "{addr}", "--store", "sqlite:" + db, "--contract", file, "--jobs-every", "0"})
		res, err := Run(context.Background(), Options{Contract: c, Plan: p, Env: os.Environ()})
		if err != nil || res.Failed() || res.Aborted != nil {
			b.Fatalf("%v %v", err, res)
		}
		for _, g := range res.Gates {
			if g.Result != Passed && !(g.Result == Skipped && slices.Contains(payoutsSkips, g.Gate)) {
				b.Fatalf("%s %s: %s", g.Gate, g.Result, g.Reason)
			}
			if g.SpreadMS != nil {
				spread = *g.SpreadMS
			}
		}
	}
	b.ReportMetric(spread, "spread-ms")
}
