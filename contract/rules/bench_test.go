package rules

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// bigContract is the starter contract with n endpoints, in the shapes a
// real API has: keyed creates with external calls, reads, replaces.
func bigContract(n int) []byte {
	var b bytes.Buffer
	starter := contract.Starter(contract.StarterOptions{Answered: true})
	i := bytes.Index(starter, []byte("endpoints:\n"))
	j := bytes.Index(starter, []byte("\nretry:\n"))
	b.Write(starter[:i])
	b.WriteString("endpoints:\n")
	for k := 0; k < n; k++ {
		switch k % 3 {
		case 0:
			fmt.Fprintf(&b, "  - operation: POST /v1/r%d/items\n    effect: create\n    key: required\n    external_calls: [charge_card]\n    recovery_points: [started, card_charged]\n    max_duration: 30s\n    summary: Create an item of resource %d\n    example: {body: '{\"name\": \"item\"}'}\n", k, k)
		case 1:
			fmt.Fprintf(&b, "  - operation: GET /v1/r%d/items/{id}\n    effect: read\n    key: none\n", k)
		case 2:
			fmt.Fprintf(&b, "  - operation: PUT /v1/r%d/items/{id}\n    effect: replace\n    key: optional\n    external_calls: []\n", k)
		}
	}
	b.Write(starter[j:])
	return b.Bytes()
}

// BenchmarkCheck5000 loads and lints a 5,000-endpoint contract, the work
// of `retryspec check` minus printing. Budget: under 100 ms and 100 MB.
// Reports allocated MB and CPU milliseconds per run besides ns/op.
func BenchmarkCheck5000(b *testing.B) {
	src := bigContract(5000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := cpuTime()
	for b.Loop() {
		c, err := contract.Parse("retryspec.yaml", src)
		if err != nil {
			b.Fatal(err)
		}
		if fs := Run(c); len(fs) != 0 {
			b.Fatalf("unexpected findings: %v", fs[:1])
		}
	}
	cpu = cpuTime() - cpu
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MB-alloc/op")
	// CPU time (both cores, GC included) per run: unlike ns/op it does not
	// grow when other processes load the machine.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
