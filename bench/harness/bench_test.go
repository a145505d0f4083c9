package main

import (
	"fmt"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// BenchmarkParseGeneratedContract times the contract loader on the
// contracts the check curve uses, so a regression in loading shows in
// `go test -bench` before it shows in bench/run.
func BenchmarkParseGeneratedContract(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		data := ContractYAML(SyntheticOps(n))
		b.Run(fmt.Sprintf("endpoints=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := contract.Parse("gen.yaml", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPlotSVG(b *testing.B) {
	xs := []float64{100, 1000, 5000, 10000, 50000}
	ys := []float64{0.01, 0.03, 0.1, 0.2, 1.1}
	for b.Loop() {
		PlotSVG("t", "x", xs, []Panel{{"a", ys}, {"b", ys}})
	}
}
