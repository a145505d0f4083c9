package openapi

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/retryspec/retryspec/internal/testenv"
)

// The scale target: on the largest real spec (Stripe's, 4 MB), the merged
// output and drift each take under 2 s and 500 MB. Run with
// go test -bench . -benchmem -run '^$' ./openapi; the peak-heap metric is
// the live heap high-water mark sampled after each step.

// fieldSpecs lists the whole real specs in ../shared/data/specs, for the
// benchmarks here only (unit tests read testdata/realspecs); without them the caller is
// skipped with one visible line (benchmark logs always print).
func fieldSpecs(b *testing.B) map[string]string {
	b.Helper()
	dir := filepath.Join(testenv.RepoRoot(b), "..", "shared", "data", "specs")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("FIELD DATA ABSENT: %s is missing; this measurement needs the real specs", dir)
	}
	return specsIn(b, dir)
}

// BenchmarkFieldRealSpecs is the field measurement behind the two tests
// above: the same checks on the whole real specs, with their real counts.
// go test -run '^$' -bench FieldRealSpecs ./openapi
func BenchmarkFieldRealSpecs(b *testing.B) {
	specs := fieldSpecs(b)
	for i := 0; i < b.N; i++ {
		for name, path := range specs {
			checkRealMerge(b, name, path, settings[name].fieldHeadersReused)
			checkRealDrift(b, path, settings[name].fieldOps)
		}
	}
}

func stripe(b *testing.B) string {
	b.Helper()
	path, ok := fieldSpecs(b)["stripe-openapi"]
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

// BenchmarkRedoclyLintStripe times `redocly lint` on the same file, for
// comparison in the same run (.ci/install-openapi installs it). maxrss-MB
// is the linter process's peak resident memory.
func BenchmarkRedoclyLintStripe(b *testing.B) {
	path := stripe(b)
	redocly := testenv.LookPath(b, "redocly")
	var cpu time.Duration
	var rss int64
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(redocly, "lint", "--format", "json", "--max-problems", "1", path)
		cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
		_ = cmd.Run() // exit 1: the spec has lint errors
		if cmd.ProcessState == nil {
			b.Fatal("redocly did not run")
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = max(rss, ru.Maxrss)
		}
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(rss)/1024, "maxrss-MB")
}
