package main

import (
	"sort"
	"time"
)

// Sample is one timed run of one tool.
type Sample struct {
	Wall   time.Duration
	CPU    time.Duration // user + system, the process and the children it waited for
	MaxRSS int64         // peak resident set, bytes
	Exit   int
}

// Summary is the median of each measure over a tool's samples. Medians
// are taken per measure, so Wall, CPU and MaxRSS may come from different
// runs; with alternating runs the median is robust to one run that a
// neighbour on the shared machine slowed down.
type Summary struct {
	N      int
	Wall   time.Duration
	CPU    time.Duration
	MaxRSS int64
}

// median of xs; the mean of the two middle values for an even count.
// It does not reorder xs.
func median[T int64 | time.Duration | float64](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := append([]T(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Summarize takes the per-measure medians of samples.
func Summarize(samples []Sample) Summary {
	walls := make([]time.Duration, len(samples))
	cpus := make([]time.Duration, len(samples))
	rss := make([]int64, len(samples))
	for i, s := range samples {
		walls[i], cpus[i], rss[i] = s.Wall, s.CPU, s.MaxRSS
	}
	return Summary{N: len(samples), Wall: median(walls), CPU: median(cpus), MaxRSS: median(rss)}
}

// ratio is peer/ours: above 1 means ours is that many times faster (or
// smaller). Zero when either side is missing.
func ratio[T int64 | time.Duration](peer, ours T) float64 {
	if peer <= 0 || ours <= 0 {
		return 0
	}
	return float64(peer) / float64(ours)
}
