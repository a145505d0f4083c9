package main

import (
	"strings"
	"testing"
	"time"
)

func ms(vs ...float64) []time.Duration {
	out := make([]time.Duration, len(vs))
	for i, v := range vs {
		out[i] = time.Duration(v * float64(time.Millisecond))
	}
	return out
}

func TestCliffs(t *testing.T) {
	xs := []float64{100, 1000, 10000, 50000}
	tests := []struct {
		name  string
		ys    []time.Duration
		cliff bool
	}{
		{"linear", ms(10, 100, 1000, 5000), false},
		{"start-up cost dominates: better than linear", ms(20, 22, 60, 250), false},
		{"noise on tiny times is not a cliff", ms(2, 3, 9, 60), false},
		{"quadratic", ms(10, 100, 10000, 250000), true},
		{"one bad segment", ms(10, 100, 1000, 40000), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Cliffs(xs, tt.ys)
			if (len(got) > 0) != tt.cliff {
				t.Errorf("Cliffs = %v, want cliff %v", got, tt.cliff)
			}
		})
	}
	got := Cliffs(xs, ms(10, 100, 1000, 40000))
	if len(got) != 1 || got[0].X1 != 10000 || got[0].X2 != 50000 {
		t.Fatalf("want the 10,000 -> 50,000 segment, got %v", got)
	}
	if s := got[0].String(); !strings.Contains(s, "10,000 -> 50,000") || !strings.Contains(s, "time x40") {
		t.Errorf("cliff text %q", s)
	}
}

func TestElasticity(t *testing.T) {
	e := Elasticity([]float64{1, 10, 100}, ms(5, 50, 500))
	if e < 0.999 || e > 1.001 {
		t.Errorf("linear elasticity = %v, want 1", e)
	}
}

func TestMemoryFlat(t *testing.T) {
	if !MemoryFlat([]int64{40 << 20, 45 << 20, 52 << 20}) {
		t.Error("40 -> 52 MB should be flat")
	}
	if MemoryFlat([]int64{40 << 20, 120 << 20, 400 << 20}) {
		t.Error("40 -> 400 MB should not be flat")
	}
}

func TestVerdict(t *testing.T) {
	res := func(wall time.Duration, rss int64) *Result {
		return &Result{Status: StatusOK, Samples: []Sample{{Wall: wall}}, Summary: Summary{N: 1, Wall: wall, CPU: wall, MaxRSS: rss}}
	}
	c := &Curve{FlatMemory: true, Points: []Point{
		{10, res(100*time.Millisecond, 30<<20)},
		{100, res(time.Second, 31<<20)},
		{400, res(30*time.Second, 300<<20)},
		{800, &Result{Status: StatusFailed, Note: "timed out"}},
	}}
	v := c.Verdict()
	if !strings.HasPrefix(v, "CLIFF in CPU time: 100 -> 400") || !strings.Contains(v, "MEMORY GROWS") {
		t.Errorf("verdict %q", v)
	}
	c = &Curve{Points: []Point{{10, res(time.Second, 1)}, {100, &Result{Status: StatusUnavailable}}}}
	if v := c.Verdict(); v != "not enough points measured" {
		t.Errorf("verdict %q", v)
	}
}

func TestPickValeSize(t *testing.T) {
	sec := time.Second
	tests := []struct {
		name  string
		sizes []float64
		walls []time.Duration
		max   float64
		want  float64
	}{
		{"start-up cost does not count per MB", []float64{0.2, 1}, []time.Duration{700 * time.Millisecond, 1100 * time.Millisecond}, 100, 100},
		{"slow per MB", []float64{0.2, 1}, []time.Duration{1 * sec, 5 * sec}, 100, 10},
		{"one probe: all of it per MB", []float64{0.2}, []time.Duration{sec}, 100, 10},
		{"nothing fits: the probe size", []float64{0.2}, []time.Duration{time.Minute}, 100, 0.2},
		{"never above the full corpus", []float64{0.2, 1}, []time.Duration{sec, sec + time.Millisecond}, 5, 5},
		{"noisy probes (second faster) fall back to per MB", []float64{0.2, 1}, []time.Duration{2 * sec, 1500 * time.Millisecond}, 100, 20},
	}
	for _, tt := range tests {
		m := fitVale(tt.sizes, tt.walls)
		if got := pickValeSize(m, time.Minute, tt.max); got != tt.want {
			t.Errorf("%s: pickValeSize = %v (model %+v), want %v", tt.name, got, m, tt.want)
		}
	}
}
