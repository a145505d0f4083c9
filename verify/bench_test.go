package verify

import (
	"context"
	"testing"
)

// BenchmarkConcurrencySpread measures the concurrency gate's release
// spread (first to last request start) at N = 64 against the in-process
// fake, reported as spread-ms (target: under 5 ms on the project machine).
func BenchmarkConcurrencySpread(b *testing.B) {
	f := &fakeAPI{keys: map[string]*fakeKey{}, count: map[string]int{}}
	srv := newBenchServer(b, f)
	c := payouts(b)
	var total float64
	for b.Loop() {
		p := benchPlan(b, srv)
		res, err := Run(context.Background(), Options{Contract: c, Plan: p, Only: []string{GateConcurrency}, Concurrency: 64})
		if err != nil || res.Gates[0].SpreadMS == nil || res.Gates[0].Result != "passed" {
			b.Fatalf("%v %+v", err, res)
		}
		total += *res.Gates[0].SpreadMS
	}
	b.ReportMetric(total/float64(b.N), "spread-ms")
}
