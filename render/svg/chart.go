package svg

import (
	"fmt"
	"strings"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/render/schedule"
)

// Schedule draws the backoff schedule: on the left the wait before each
// retry (the jitter band up to the envelope min(cap, base*multiplier^n),
// with the cap), on the right the cumulative worst case per attempt against
// max_elapsed.
func Schedule(c *contract.Contract) []byte {
	r := c.Retry
	steps := schedule.Compute(r)
	const w, h = 760, 320
	const top, bottom = 56.0, 250.0
	var b strings.Builder
	open(&b, w, h, "schedule", c.API.Name+": retry schedule", scheduleDesc(c, steps))

	// Left panel: waits.
	lx0, lx1 := 60.0, 360.0
	text(&b, lx0, 24, "title", "", "Wait before each retry")
	text(&b, lx0, 42, "small", "", fmt.Sprintf("%s jitter; envelope min(%s, %s × %s^n)", r.Backoff.Jitter, dur(r.Backoff.Cap.D), dur(r.Backoff.Base.D), num(r.Backoff.Multiplier)))
	var maxEnv time.Duration
	for _, s := range steps {
		maxEnv = max(maxEnv, s.Envelope)
	}
	capShown := false
	for _, s := range steps {
		if s.Capped || s.Envelope == r.Backoff.Cap.D {
			capShown = true
		}
	}
	scaleL := niceCeil(maxEnv)
	yL := func(d time.Duration) float64 { return bottom - (bottom-top)*float64(d)/float64(scaleL)*0.9 }
	axes(&b, lx0, lx1, top, bottom, scaleL, yL)
	retries := steps[1:]
	if len(retries) == 0 {
		text(&b, (lx0+lx1)/2, (top+bottom)/2, "small", "middle", "max_attempts is 1: no retries")
	}
	slot := (lx1 - lx0) / float64(max(1, len(retries)))
	bw := min(48, slot*0.6)
	for i, s := range retries {
		cx := lx0 + slot*(float64(i)+0.5)
		y0, y1 := yL(s.JitterHigh), yL(s.JitterLow)
		fmt.Fprintf(&b, `<rect class="band" x="%s" y="%s" width="%s" height="%s"/>`+"\n", num(round1(cx-bw/2)), num(round1(y0)), num(round1(bw)), num(round1(max(1, y1-y0))))
		ye := yL(s.Envelope)
		fmt.Fprintf(&b, `<line class="env" x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(round1(cx-bw/2)), num(round1(ye)), num(round1(cx+bw/2)), num(round1(ye)))
		text(&b, cx, ye-6, "small", "middle", dur(s.Envelope))
		if len(retries) <= 12 || i%2 == 0 {
			text(&b, cx, bottom+16, "small", "middle", fmt.Sprintf("#%d", s.Attempt))
		}
	}
	if capShown {
		yc := yL(r.Backoff.Cap.D)
		fmt.Fprintf(&b, `<line class="limit" x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(lx0), num(round1(yc)), num(lx1), num(round1(yc)))
		text(&b, lx1, yc-4, "limitlabel", "end", "cap "+dur(r.Backoff.Cap.D))
	}
	text(&b, (lx0+lx1)/2, bottom+34, "small", "middle", "attempt")

	// Right panel: cumulative worst case against max_elapsed.
	rx0, rx1 := 450.0, 740.0
	text(&b, rx0, 24, "title", "", "Worst case elapsed")
	text(&b, rx0, 42, "small", "", fmt.Sprintf("waits plus %s per attempt, against max_elapsed", dur(r.AttemptTimeout.Value().D)))
	last := steps[len(steps)-1].WorstElapsed
	scaleR := niceCeil(max(last, r.MaxElapsed.D))
	yR := func(d time.Duration) float64 { return bottom - (bottom-top)*float64(d)/float64(scaleR)*0.9 }
	axes(&b, rx0, rx1, top, bottom, scaleR, yR)
	slotR := (rx1 - rx0) / float64(len(steps))
	bwR := min(40, slotR*0.6)
	for i, s := range steps {
		cx := rx0 + slotR*(float64(i)+0.5)
		y := yR(s.WorstElapsed)
		fmt.Fprintf(&b, `<rect class="total" x="%s" y="%s" width="%s" height="%s"/>`+"\n", num(round1(cx-bwR/2)), num(round1(y)), num(round1(bwR)), num(round1(max(1, bottom-y))))
		text(&b, cx, y-6, "small", "middle", dur(s.WorstElapsed))
		if len(steps) <= 12 || i%2 == 0 {
			text(&b, cx, bottom+16, "small", "middle", fmt.Sprintf("#%d", s.Attempt))
		}
	}
	if !r.MaxElapsed.IsZero() {
		ym := yR(r.MaxElapsed.D)
		fmt.Fprintf(&b, `<line class="limit" x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", num(rx0), num(round1(ym)), num(rx1), num(round1(ym)))
		text(&b, rx1, ym-4, "limitlabel", "end", "max_elapsed "+dur(r.MaxElapsed.D))
	}
	text(&b, (rx0+rx1)/2, bottom+34, "small", "middle", "attempt")
	text(&b, 60, h-12, "small", "", "Shaded: the range the wait is drawn from. Line: the envelope. Dashed: a limit from the contract.")
	b.WriteString("</svg>\n")
	return []byte(b.String())
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
