package site

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// contract200 writes the example contract with 200 endpoints instead of
// its own, mixing keyed creates, reads and unkeyed actions.
func contract200(b testing.TB) string {
	b.Helper()
	src, err := os.ReadFile(examples(b)["payouts"])
	if err != nil {
		b.Fatal(err)
	}
	start := bytes.Index(src, []byte("endpoints:\n"))
	end := bytes.Index(src, []byte("retry:\n"))
	var eps bytes.Buffer
	eps.WriteString("endpoints:\n")
	for i := range 200 {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&eps, "  - operation: POST /v1/resource%d\n    effect: create\n    key: required\n    external_calls: []\n", i)
		case 1:
			fmt.Fprintf(&eps, "  - operation: GET /v1/resource%d/{id}\n    effect: read\n    key: none\n", i)
		case 2:
			fmt.Fprintf(&eps, "  - operation: PUT /v1/resource%d/{id}\n    effect: replace\n    key: optional\n    external_calls: []\n", i)
		case 3:
			fmt.Fprintf(&eps, "  - operation: POST /v1/resource%d/{id}/notify\n    effect: action\n    key: none\n    unsafe_to_retry: \"Notifying twice sends two messages.\"\n", i)
		}
	}
	out := append(append(append([]byte{}, src[:start]...), eps.Bytes()...), src[end:]...)
	p := filepath.Join(b.TempDir(), "retryspec.yaml")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkBuild200Endpoints is the whole build of a 200-endpoint contract:
// load, render Markdown, SVG and HTML, write and swap the folder.
// Target: under 300 ms and 150 MB on the project's 2-core machine.
func BenchmarkBuild200Endpoints(b *testing.B) {
	path := contract200(b)
	out := filepath.Join(b.TempDir(), "out")
	b.ReportAllocs()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := cpuTime()
	for b.Loop() {
		if _, err := Build(context.Background(), Options{Contract: path, Out: out}); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time is the cost apart from other load on a shared machine.
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.Sys)/(1<<20), "MB-sys")
}

func TestContract200Builds(t *testing.T) {
	path := contract200(t)
	out := filepath.Join(t.TempDir(), "out")
	res, err := Build(context.Background(), Options{Contract: path, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	files := res.Files
	idem := snapshot(t, out)["markdown/idempotency.md"]
	if n := bytes.Count(idem, []byte("| `POST /v1/resource")); n != 100 {
		t.Errorf("idempotency.md lists %d POST endpoints, want 100 (of %d files)", n, len(files))
	}
}

// BenchmarkBuildPayouts is the whole build of the payouts example, the
// size of a typical contract. Target: under 150 ms.
func BenchmarkBuildPayouts(b *testing.B) {
	path := examples(b)["payouts"]
	out := filepath.Join(b.TempDir(), "out")
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		if _, err := Build(context.Background(), Options{Contract: path, Out: out, git: noHistory{}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
