package main

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// Panel is one measure plotted against the curve's x values.
type Panel struct {
	Label string // "wall time (s)"
	Ys    []float64
}

const (
	panelW, panelH = 320, 220
	marginL        = 56
	marginR        = 16
	marginT        = 40
	marginB        = 44
)

// PlotSVG draws each panel as a log-log line plot side by side. On log-log
// axes linear growth is a line of slope 1 and a cliff is a visible bend,
// whatever the decade. The output depends only on the inputs.
func PlotSVG(title, xlabel string, xs []float64, panels []Panel) []byte {
	w := len(panels)*(panelW+marginL+marginR) + 8
	h := panelH + marginT + marginB
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%d" y="16" font-size="13" font-weight="bold">%s</text>`+"\n", 8, html.EscapeString(title))
	for i, p := range panels {
		ox := 8 + i*(panelW+marginL+marginR) + marginL
		drawPanel(&b, ox, marginT, xlabel, xs, p)
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// decades is the log10 range [lo, hi] covering vs, at least one decade wide.
func decades(vs []float64) (lo, hi int) {
	lo, hi = math.MaxInt32, math.MinInt32
	for _, v := range vs {
		if v <= 0 {
			continue
		}
		l := math.Log10(v)
		lo = min(lo, int(math.Floor(l)))
		hi = max(hi, int(math.Ceil(l)))
	}
	if lo > hi {
		return 0, 1
	}
	if hi == lo {
		hi++
	}
	return lo, hi
}

func drawPanel(b *strings.Builder, ox, oy int, xlabel string, xs []float64, p Panel) {
	xlo, xhi := decades(xs)
	ylo, yhi := decades(p.Ys)
	px := func(x float64) float64 {
		return float64(ox) + (math.Log10(x)-float64(xlo))/float64(xhi-xlo)*panelW
	}
	py := func(y float64) float64 {
		return float64(oy+panelH) - (math.Log10(y)-float64(ylo))/float64(yhi-ylo)*panelH
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", ox, oy-8, html.EscapeString(p.Label))
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>`+"\n", ox, oy, panelW, panelH)
	for d := xlo; d <= xhi; d++ {
		x := px(math.Pow(10, float64(d)))
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", x, oy, x, oy+panelH)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x, oy+panelH+14, tick(d))
	}
	for d := ylo; d <= yhi; d++ {
		y := py(math.Pow(10, float64(d)))
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", ox, y, ox+panelW, y)
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", ox-4, y+4, tick(d))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", ox+panelW/2, oy+panelH+32, html.EscapeString(xlabel))
	var pts []string
	for i, x := range xs {
		if i >= len(p.Ys) || x <= 0 || p.Ys[i] <= 0 {
			continue
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(x), py(p.Ys[i])))
	}
	if len(pts) > 1 {
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="#1f5fbf" stroke-width="2"/>`+"\n", strings.Join(pts, " "))
	}
	for _, pt := range pts {
		xy := strings.SplitN(pt, ",", 2)
		fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3" fill="#1f5fbf"/>`+"\n", xy[0], xy[1])
	}
}

// tick labels the decade 10^d without exponent notation.
func tick(d int) string {
	v := math.Pow(10, float64(d))
	if d >= 3 {
		return commas(int64(v))
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
