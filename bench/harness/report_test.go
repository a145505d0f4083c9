package main

import (
	"strings"
	"testing"
	"time"
)

func okResult(name string, wall time.Duration) *Result {
	return &Result{Tool: Tool{Name: name}, Status: StatusOK, Samples: []Sample{{Wall: wall, CPU: wall, MaxRSS: 10e6}},
		Summary: Summary{N: 1, Wall: wall, CPU: wall, MaxRSS: 10e6}}
}

// A command this build lacks gets no figure anywhere: not in its row, not
// in a ratio, not in the targets.
func TestReportNotAvailableHasNoFigures(t *testing.T) {
	b := &bench{cfg: config{reps: 5, curveReps: 5}}
	b.sections = []*Section{{
		ID: "openapi", Title: "OpenAPI", Ceiling: -1,
		Results: []*Result{
			{Tool: Tool{Name: "retryspec check --openapi"}, Status: StatusUnavailable, Note: "retryspec: unknown flag: --openapi"},
			{Tool: Tool{Name: "retryspec openapi --merged"}, Status: StatusFailed, Note: "exit 2: boom | pipe"},
			okResult("redocly lint", 2*time.Second),
			okResult("spectral lint", 10*time.Second),
		},
		Pairs: [][2]int{{0, 2}, {0, 3}, {1, 2}, {1, 3}},
	}}
	md := b.markdown(nil)
	for _, want := range []string{
		"| retryspec check --openapi | 0 | - | - | - | not available in this build: retryspec: unknown flag: --openapi |",
		"| retryspec openapi --merged | 0 | - | - | - | failed: exit 2: boom \\| pipe |",
		"| retryspec check --openapi vs redocly lint | not measured: retryspec check --openapi not available in this build | | |",
		"| check --openapi faster than redocly lint | not measured: retryspec check --openapi not available in this build | - |",
		"| redocly lint | 1 | 2.00 s | 2.00 s | 10.0 MB | ok |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestReportVoidAndTargets(t *testing.T) {
	b := &bench{cfg: config{reps: 5, curveReps: 5}}
	b.sections = []*Section{{
		ID: "copy", Title: "copy", Ceiling: 2, Bytes: 100e6,
		Results: []*Result{okResult("retryspec copy", time.Second), okResult("vale", 30*time.Second), okResult("cat (ceiling)", 500*time.Millisecond)},
		Pairs:   [][2]int{{0, 1}},
		Void:    "Vale missed copy/exactly-once x1",
	}}
	md := b.markdown(nil)
	for _, want := range []string{
		"**Comparison void**: Vale missed copy/exactly-once x1.",
		"| retryspec copy vs vale | 30.00x (void) |",
		"| copy: at least 20x Vale's throughput | comparison void (see above) | - |",
		"retryspec copy at 100 MB/s is 50.0% of it",
		"| copy: at least 30% of the cat ceiling | 50.0% of cat | met |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	b.sections[0].Void = ""
	b.sections[0].Results[1] = okResult("vale", 10*time.Second)
	if md := b.markdown(nil); !strings.Contains(md, "| copy: at least 20x Vale's throughput | wall 1.00 s vs 10.0 s: 10.00x; CPU 1.00 s vs 10.0 s: 10.00x | missed: 10.00x short of 20x |") {
		t.Errorf("missed target not reported:\n%s", md)
	}
}
