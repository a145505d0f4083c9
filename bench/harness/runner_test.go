package main

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

func TestScheduleAlternates(t *testing.T) {
	got := Schedule(2, 1, 3)
	want := []Step{
		{0, true}, {1, true},
		{0, false}, {1, false},
		{0, false}, {1, false},
		{0, false}, {1, false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Schedule(2, 1, 3) = %v, want %v", got, want)
	}
	if n := len(Schedule(4, 1, 5)); n != 24 {
		t.Errorf("Schedule(4, 1, 5) has %d steps, want 24", n)
	}
}

// fakeExec replays scripted outcomes per tool and records the run order.
type fakeExec struct {
	order   []string
	outcome map[string]func(run int) (Sample, string, error)
	runs    map[string]int
}

func (f *fakeExec) exec(ctx context.Context, t Tool) (Sample, string, error) {
	f.order = append(f.order, t.Name)
	n := f.runs[t.Name]
	f.runs[t.Name]++
	return f.outcome[t.Name](n)
}

func ok(wall time.Duration) func(int) (Sample, string, error) {
	return func(run int) (Sample, string, error) {
		return Sample{Wall: wall + time.Duration(run)*time.Millisecond, CPU: wall, MaxRSS: 1 << 20}, "", nil
	}
}

func TestMeasure(t *testing.T) {
	f := &fakeExec{runs: map[string]int{}, outcome: map[string]func(int) (Sample, string, error){
		"a": ok(100 * time.Millisecond),
		"b": ok(time.Second),
		"missing": func(int) (Sample, string, error) {
			return Sample{Exit: 2}, "retryspec: copy is not implemented yet\n", nil
		},
		"flag":   func(int) (Sample, string, error) { return Sample{Exit: 2}, "retryspec: unknown flag: --merged\n", nil },
		"broken": func(int) (Sample, string, error) { return Sample{Exit: 2}, "retryspec: spec.yaml:3:1: bad\n", nil },
		"crash":  func(int) (Sample, string, error) { return Sample{}, "", errors.New("exec: no such file") },
		"flaky": func(run int) (Sample, string, error) {
			if run == 2 {
				return Sample{Exit: 139}, "segfault", nil
			}
			return Sample{Wall: time.Second}, "", nil
		},
	}}
	r := &Runner{Timeout: time.Minute, exec: f.exec}
	tools := []Tool{
		{Name: "a", Argv: []string{"a"}, Ours: true},
		{Name: "b", Argv: []string{"b"}},
		{Name: "missing", Argv: []string{"m"}, Ours: true},
		{Name: "flag", Argv: []string{"f"}, Ours: true},
		{Name: "broken", Argv: []string{"x"}, Ours: true},
		{Name: "crash", Argv: []string{"c"}},
		{Name: "flaky", Argv: []string{"y"}},
		{Name: "not installed", Argv: []string{""}},
	}
	res := r.Measure(tools, 1, 3)

	wantOrder := []string{
		"a", "b", "missing", "flag", "broken", "crash", "flaky", // warm-up
		"a", "b", "flaky",
		"a", "b", "flaky",
		"a", "b",
	}
	if !reflect.DeepEqual(f.order, wantOrder) {
		t.Errorf("run order = %v\nwant %v", f.order, wantOrder)
	}
	wantStatus := []Status{StatusOK, StatusOK, StatusUnavailable, StatusUnavailable, StatusFailed, StatusFailed, StatusFailed, StatusMissing}
	for i, w := range wantStatus {
		if res[i].Status != w {
			t.Errorf("%s: status %q (%s), want %q", tools[i].Name, res[i].Status, res[i].Note, w)
		}
		if w != StatusOK && (len(res[i].Samples) != 0 || res[i].Summary != (Summary{})) {
			t.Errorf("%s: %s but carries figures %+v", tools[i].Name, w, res[i].Summary)
		}
	}
	if n := len(res[0].Samples); n != 3 {
		t.Errorf("a: %d timed samples, want 3 (the warm-up is not timed)", n)
	}
	// Runs 1..3 are timed: 101, 102, 103 ms; the median is 102 ms.
	if got := res[0].Summary.Wall; got != 102*time.Millisecond {
		t.Errorf("a: median wall %v, want 102ms", got)
	}
	if res[4].Note != "exit 2: retryspec: spec.yaml:3:1: bad" {
		t.Errorf("broken: note %q", res[4].Note)
	}
}

func TestNotImplemented(t *testing.T) {
	tests := []struct {
		exit   int
		stderr string
		want   bool
	}{
		{2, "retryspec: build is not implemented yet", true},
		{2, "retryspec: unknown flag: --export-vale\nRun 'retryspec copy --help'", true},
		{2, "retryspec: unknown shorthand flag: 'c' in -c", true},
		{2, "Error: unknown command \"copy\" for \"retryspec\"", true},
		{2, "retryspec: retryspec.yaml:4:3: unknown key", false},
		{1, "not implemented yet", false},
	}
	for _, tt := range tests {
		if got := notImplemented(tt.exit, tt.stderr); got != tt.want {
			t.Errorf("notImplemented(%d, %q) = %v, want %v", tt.exit, tt.stderr, got, tt.want)
		}
	}
}

func TestRunProcessMeasures(t *testing.T) {
	// A real child: sh burns a little CPU; rusage must see it.
	s, _, err := runProcess(context.Background(), Tool{Argv: []string{"/bin/sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; exit 1"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Exit != 1 || s.Wall <= 0 || s.CPU <= 0 || s.MaxRSS <= 0 {
		t.Errorf("runProcess = %+v: want exit 1 and positive wall, CPU and RSS", s)
	}
}

func TestMeasureTimeout(t *testing.T) {
	r := NewRunner(200*time.Millisecond, nil)
	res := r.Measure([]Tool{{Name: "sleep", Argv: []string{"/bin/sleep", "10"}}}, 0, 1)
	if res[0].Status != StatusFailed || res[0].Note != "timed out after 200ms" {
		t.Errorf("status %q note %q, want failed: timed out", res[0].Status, res[0].Note)
	}
}

func TestMeasureFallback(t *testing.T) {
	f := &fakeExec{runs: map[string]int{}, outcome: map[string]func(int) (Sample, string, error){
		"full":   func(int) (Sample, string, error) { return Sample{Exit: 2}, "retryspec: unknown flag: --openapi\n", nil },
		"narrow": ok(time.Second),
		"peer":   ok(2 * time.Second),
	}}
	r := &Runner{Timeout: time.Minute, exec: f.exec}
	narrow := Tool{Name: "narrow", Argv: []string{"n"}, Ours: true}
	tools := []Tool{{Name: "full", Argv: []string{"f"}, Ours: true, Fallback: &narrow}, {Name: "peer", Argv: []string{"p"}}}
	res := r.Measure(tools, 1, 2)
	want := []string{"full", "narrow", "peer", "narrow", "peer", "narrow", "peer"}
	if !reflect.DeepEqual(f.order, want) {
		t.Errorf("order %v, want %v", f.order, want)
	}
	if !res[0].OK() || res[0].Tool.Name != "narrow" || len(res[0].Samples) != 2 {
		t.Errorf("fallback result %+v", res[0])
	}
	if res[0].Note == "" || !res[0].Fallback {
		t.Error("a fallback result must say the full command was not available")
	}
	if tools[0].Name != "full" {
		t.Error("Measure changed the caller's tools")
	}
}
