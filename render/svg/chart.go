package svg

import (
	"fmt"
	"strings"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/render/schedule"
)

// Chart size: each chart is drawn at the width the page shows it (two side
// by side in a desktop column, stacked on a phone), so 12 px text stays
// 12 px; see the site's .figures rule.
const chartW, chartH = 340, 300

// Schedule draws the wait before each retry: the jitter band up to the
// envelope min(cap, base*multiplier^n), with the cap when it binds.
func Schedule(c *contract.Contract) []byte {
	r := c.Retry
	steps := schedule.Compute(r)
	const top, bottom = 64.0, 236.0
	var b strings.Builder
	open(&b, chartW, chartH, "schedule", c.API.Name+": wait before each retry", scheduleDesc(c, steps))
	x0, x1 := 52.0, 326.0
	text(&b, 12, 22, "title", "", "Wait before each retry")
	text(&b, 12, 42, "small", "", fmt.Sprintf("%s jitter; envelope min(%s, %s × %s^n)", r.Backoff.Jitter, dur(r.Backoff.Cap.D), dur(r.Backoff.Base.D), num(r.Backoff.Multiplier)))
	var maxEnv time.Duration
	capShown := false
	for _, s := range steps {
		maxEnv = max(maxEnv, s.Envelope)
		if s.Capped || (s.Attempt > 1 && s.Envelope == r.Backoff.Cap.D) {
			capShown = true
		}
	}
	scale := niceCeil(maxEnv)
	y := func(d time.Duration) float64 { return bottom - (bottom-top)*float64(d)/float64(scale)*0.92 }
	axes(&b, x0, x1, top, bottom, scale, y)
	retries := steps[1:]
	if len(retries) == 0 {
		text(&b, (x0+x1)/2, (top+bottom)/2, "small", "middle", "max_attempts is 1: no retries")
	}
	slot := (x1 - x0) / float64(max(1, len(retries)))
	bw := min(44, slot*0.6)
	every := labelEvery(len(retries), slot)
	for i, s := range retries {
		cx := x0 + slot*(float64(i)+0.5)
		y0, y1 := y(s.JitterHigh), y(s.JitterLow)
		fmt.Fprintf(&b, `<rect class="band" x="%s" y="%s" width="%s" height="%s"/>`+"\n", num(round1(cx-bw/2)), num(round1(y0)), num(round1(bw)), num(round1(max(1, y1-y0))))
		ye := y(s.Envelope)
		fmt.Fprintf(&b, `<line class="env" x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(round1(cx-bw/2)), num(round1(ye)), num(round1(cx+bw/2)), num(round1(ye)))
		if i%every == 0 {
			text(&b, cx, ye-6, "small", "middle", dur(s.Envelope))
			text(&b, cx, bottom+18, "small", "middle", fmt.Sprintf("#%d", s.Attempt))
		}
	}
	if capShown {
		yc := y(r.Backoff.Cap.D)
		fmt.Fprintf(&b, `<line class="limit" x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(x0), num(round1(yc)), num(x1), num(round1(yc)))
		text(&b, x1, yc-20, "limitlabel", "end", "cap "+dur(r.Backoff.Cap.D))
	}
	text(&b, (x0+x1)/2, bottom+38, "small", "middle", "attempt")
	text(&b, 12, chartH-12, "small", "", "Shaded: range of the random wait. Line: envelope.")
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// Elapsed draws the worst-case elapsed time at the end of each attempt
// (waits plus per-attempt timeouts). The axis is scaled to that data: the
// contract's max_elapsed is drawn as a line only when it falls on the
// scale, and stated in words when it is far above it, so a nine-second
// schedule is not squeezed against a one-minute axis.
func Elapsed(c *contract.Contract) []byte {
	r := c.Retry
	steps := schedule.Compute(r)
	const top, bottom = 64.0, 236.0
	var b strings.Builder
	open(&b, chartW, chartH, "elapsed", c.API.Name+": worst-case elapsed time", scheduleDesc(c, steps))
	x0, x1 := 52.0, 326.0
	text(&b, 12, 22, "title", "", "Worst-case elapsed time")
	text(&b, 12, 42, "small", "", fmt.Sprintf("longest waits plus %s per attempt", dur(r.AttemptTimeout.Value().D)))
	last := steps[len(steps)-1].WorstElapsed
	scale := niceCeil(last)
	limitOnScale := !r.MaxElapsed.IsZero() && r.MaxElapsed.D <= scale*4/3
	if limitOnScale {
		scale = niceCeil(max(last, r.MaxElapsed.D))
	}
	y := func(d time.Duration) float64 { return bottom - (bottom-top)*float64(d)/float64(scale)*0.92 }
	axes(&b, x0, x1, top, bottom, scale, y)
	slot := (x1 - x0) / float64(len(steps))
	bw := min(40, slot*0.6)
	every := labelEvery(len(steps), slot)
	for i, s := range steps {
		cx := x0 + slot*(float64(i)+0.5)
		yy := min(y(s.WorstElapsed), bottom-1)
		fmt.Fprintf(&b, `<rect class="total" x="%s" y="%s" width="%s" height="%s"/>`+"\n", num(round1(cx-bw/2)), num(round1(yy)), num(round1(bw)), num(round1(max(1, bottom-yy))))
		if i%every == 0 || i == len(steps)-1 {
			text(&b, cx, yy-6, "small", "middle", dur(s.WorstElapsed))
			text(&b, cx, bottom+18, "small", "middle", fmt.Sprintf("#%d", s.Attempt))
		}
	}
	switch {
	case limitOnScale:
		ym := y(r.MaxElapsed.D)
		fmt.Fprintf(&b, `<line class="limit" x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(x0), num(round1(ym)), num(x1), num(round1(ym)))
		text(&b, x1, ym-6, "limitlabel", "end", "max_elapsed "+dur(r.MaxElapsed.D))
		text(&b, 12, chartH-12, "small", "", "Dashed: the contract's max_elapsed bound.")
	case !r.MaxElapsed.IsZero():
		text(&b, 12, chartH-12, "small", "", fmt.Sprintf("max_elapsed %s is well above this scale.", dur(r.MaxElapsed.D)))
	}
	text(&b, (x0+x1)/2, bottom+38, "small", "middle", "attempt")
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// labelEvery thins the value labels so two 12 px labels never overlap: one
// label per slot needs about 40 px.
func labelEvery(n int, slot float64) int {
	if n == 0 || slot >= 40 {
		return 1
	}
	return int(40/slot) + 1
}

// niceCeil rounds d up to a multiple of a 1-2-5 step that divides into
// three grid intervals, so the axis reads 0s, 10s, 20s, 30s, not 1s333ms.
func niceCeil(d time.Duration) time.Duration {
	if d <= 0 {
		return 3 * time.Second
	}
	for step := time.Millisecond; ; step *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if s := step * m; 3*s >= d {
				return 3 * s
			}
		}
	}
}

// axes draws the baseline and three labelled grid lines.
func axes(b *strings.Builder, x0, x1, top, bottom float64, scale time.Duration, y func(time.Duration) float64) {
	for i := 0; i <= 3; i++ {
		d := (scale * time.Duration(i) / 3).Round(time.Millisecond)
		yy := y(d)
		fmt.Fprintf(b, `<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(x0), num(round1(yy)), num(x1), num(round1(yy)))
		text(b, x0-6, yy+4, "small", "end", dur(d))
	}
}

func scheduleDesc(c *contract.Contract, steps []schedule.Step) string {
	r := c.Retry
	var parts []string
	for _, s := range steps[1:] {
		parts = append(parts, fmt.Sprintf("attempt %d waits up to %s (cumulative worst case %s, elapsed at most %s)", s.Attempt, dur(s.Envelope), dur(s.CumulativeWait), dur(s.WorstElapsed)))
	}
	d := fmt.Sprintf("%s jitter with base %s, multiplier %s and cap %s; %d attempts in all; max_elapsed %s. ",
		r.Backoff.Jitter, dur(r.Backoff.Base.D), num(r.Backoff.Multiplier), dur(r.Backoff.Cap.D), r.MaxAttempts, dur(r.MaxElapsed.D))
	if len(parts) == 0 {
		return d + "No retries."
	}
	return d + strings.Join(parts, "; ") + "."
}
