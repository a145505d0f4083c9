package main

import (
	"fmt"
	"math"
	"time"
)

// Point is one size of a cost curve with what was measured there.
type Point struct {
	X      float64 // endpoints, or MB of corpus
	Result *Result
}

// Curve is one tool's cost against input size.
type Curve struct {
	ID     string // file name of the plot: "check-endpoints"
	Title  string
	XLabel string
	XUnit  string
	Points []Point
	// FlatMemory asks for memory that does not grow with the input (the
	// copy linter streams).
	FlatMemory bool
}

// Growth thresholds. A segment's elasticity is log(y2/y1)/log(x2/x1): 1 is
// linear, below 1 is better than linear (fixed start-up cost dominating),
// above 1 grows faster than the input. Some noise is allowed; a steep
// segment is flagged only when the time it adds is above the noise floor.
const (
	cliffElasticity = 1.3
	noiseFloor      = 50 * time.Millisecond
	// memory is flat when the largest input needs at most this factor of
	// the smallest input's peak, plus a fixed allowance.
	flatMemFactor = 1.5
	flatMemSlack  = 32 << 20
)

// Cliff is a segment of a curve that grows faster than linear.
type Cliff struct {
	X1, X2     float64
	Y1, Y2     time.Duration
	Elasticity float64
}

func (c Cliff) String() string {
	return fmt.Sprintf("%s -> %s: input x%.3g, time x%.3g (elasticity %.2f)",
		fmtNum(c.X1), fmtNum(c.X2), c.X2/c.X1, float64(c.Y2)/float64(c.Y1), c.Elasticity)
}

// Cliffs finds the segments of ys over xs (ascending) that grow faster than
// linear beyond the noise floor.
func Cliffs(xs []float64, ys []time.Duration) []Cliff {
	var out []Cliff
	for i := 0; i+1 < len(xs); i++ {
		x1, x2, y1, y2 := xs[i], xs[i+1], ys[i], ys[i+1]
		if x1 <= 0 || x2 <= x1 || y1 <= 0 || y2 <= 0 {
			continue
		}
		e := math.Log(float64(y2)/float64(y1)) / math.Log(x2/x1)
		// The excess is the time above what linear growth from y1 predicts.
		excess := float64(y2) - float64(y1)*(x2/x1)
		if e > cliffElasticity && excess > float64(noiseFloor) {
			out = append(out, Cliff{X1: x1, X2: x2, Y1: y1, Y2: y2, Elasticity: e})
		}
	}
	return out
}

// Elasticity over the whole curve, first point to last.
func Elasticity(xs []float64, ys []time.Duration) float64 {
	n := len(xs)
	if n < 2 || xs[0] <= 0 || ys[0] <= 0 || ys[n-1] <= 0 || xs[n-1] <= xs[0] {
		return math.NaN()
	}
	return math.Log(float64(ys[n-1])/float64(ys[0])) / math.Log(xs[n-1]/xs[0])
}

// MemoryFlat tells whether peak memory at the largest input stays within
// flatMemFactor of the smallest one (plus flatMemSlack).
func MemoryFlat(rss []int64) bool {
	if len(rss) < 2 {
		return true
	}
	lo, hi := rss[0], rss[len(rss)-1]
	return float64(hi) <= float64(lo)*flatMemFactor+flatMemSlack
}

// measured returns the points of c that hold figures.
func (c *Curve) measured() (xs []float64, wall, cpu []time.Duration, rss []int64) {
	for _, p := range c.Points {
		if p.Result != nil && p.Result.OK() {
			xs = append(xs, p.X)
			wall = append(wall, p.Result.Summary.Wall)
			cpu = append(cpu, p.Result.Summary.CPU)
			rss = append(rss, p.Result.Summary.MaxRSS)
		}
	}
	return
}

// Verdict is the one-line reading of a curve.
func (c *Curve) Verdict() string {
	xs, _, cpu, rss := c.measured()
	if len(xs) < 2 {
		return "not enough points measured"
	}
	var v string
	if cl := Cliffs(xs, cpu); len(cl) > 0 {
		v = "CLIFF in CPU time: " + cl[0].String()
		for _, x := range cl[1:] {
			v += "; " + x.String()
		}
	} else {
		v = fmt.Sprintf("linear or better (CPU time elasticity %.2f from first to last point; 1.00 is linear)", Elasticity(xs, cpu))
	}
	if c.FlatMemory {
		if MemoryFlat(rss) {
			v += fmt.Sprintf("; memory flat (%.0f MB -> %.0f MB)", mb(rss[0]), mb(rss[len(rss)-1]))
		} else {
			v += fmt.Sprintf("; MEMORY GROWS (%.0f MB -> %.0f MB)", mb(rss[0]), mb(rss[len(rss)-1]))
		}
	}
	return v
}

func mb(b int64) float64 { return float64(b) / 1e6 }

func fmtNum(x float64) string {
	if x == math.Trunc(x) {
		return commas(int64(x))
	}
	return fmt.Sprintf("%.3g", x)
}

func commas(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
