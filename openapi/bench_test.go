package openapi

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// The scale target: on the largest real spec (Stripe's, 4 MB), the merged
// output and drift each take under 2 s and 500 MB. Run with
// go test -bench . -benchmem -run '^$' ./openapi; the peak-heap metric is
// the live heap high-water mark sampled after each step.

func stripe(b *testing.B) string {
	b.Helper()
	path, ok := realSpecs(b)["stripe-openapi"]
	if !ok {
		b.Skip("no Stripe spec")
	}
	return path
}

func BenchmarkMergedStripe(b *testing.B) {
	path := stripe(b)
	s0, err := Load(path, LoadOptions{SkipValidation: true})
	if err != nil {
		b.Fatal(err)
	}
	c := contractFor(b, s0, 255, "required")
	s0 = nil
	runtime.GC()
	var peak uint64
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := Load(path, LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		peak = max(peak, heapInUse())
		out, err := Merged(s, NewPlan(c, s))
		if err != nil {
			b.Fatal(err)
		}
		peak = max(peak, heapInUse())
		b.SetBytes(int64(len(out)))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	// CPU time (all threads, GC included) is what the machine's load
	// does not inflate; ns/op is wall time.
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

func BenchmarkDriftStripe(b *testing.B) {
	path := stripe(b)
	s0, err := Load(path, LoadOptions{SkipValidation: true})
	if err != nil {
		b.Fatal(err)
	}
	c := contractFor(b, s0, 255, "required")
	c.Endpoints = c.Endpoints[:len(c.Endpoints)/2] // half unclassified
	s0 = nil
	runtime.GC()
	var peak uint64
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fs, err := Drift(c, path, DriftOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(fs) == 0 {
			b.Fatal("no drift found")
		}
		peak = max(peak, heapInUse())
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	// CPU time (all threads, GC included) is what the machine's load
	// does not inflate; ns/op is wall time.
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
