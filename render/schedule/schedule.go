// Package schedule computes the worked retry schedule of a contract: for
// each attempt, the backoff envelope min(cap, base * multiplier^n), the
// jitter band the wait is drawn from, and the cumulative worst case. The
// Retrying page's table and the SVG chart both read it, so the two can
// never disagree.
package schedule

import (
	"math"
	"time"

	"github.com/retryspec/retryspec/contract"
)

// Step is one attempt of the retry loop. Attempt 1 is the first request and
// has no wait before it.
type Step struct {
	Attempt int
	// Exponent is n in base * multiplier^n for the wait before this attempt.
	Exponent int
	// Envelope is the upper bound of the wait before this attempt.
	Envelope time.Duration
	// Capped is true when the cap, not the exponential, set Envelope.
	Capped bool
	// JitterLow and JitterHigh bound the wait the jitter strategy draws.
	JitterLow, JitterHigh time.Duration
	// CumulativeWait is the worst-case sum of waits up to this attempt.
	CumulativeWait time.Duration
	// WorstElapsed adds every attempt's timeout so far to CumulativeWait:
	// the longest the loop can have run when this attempt gives up.
	WorstElapsed time.Duration
	// PastMaxElapsed is true when WorstElapsed exceeds max_elapsed: the
	// elapsed bound, not the attempt count, may end the loop here.
	PastMaxElapsed bool
}

// maxSteps bounds the table; contracts with more attempts are flagged by
// retry/too-many-attempts, and a page of a hundred rows helps nobody.
const maxSteps = 20

// Compute returns one step per attempt, up to max_attempts (at most 20).
func Compute(r contract.Retry) []Step {
	n := r.MaxAttempts
	if n < 1 {
		n = 1
	}
	if n > maxSteps {
		n = maxSteps
	}
	base := r.Backoff.Base.D
	capD := r.Backoff.Cap.D
	mult := r.Backoff.Multiplier
	if mult <= 0 {
		mult = 1
	}
	timeout := r.AttemptTimeout.Value().D
	steps := make([]Step, 0, n)
	var cum, elapsed time.Duration
	for a := 1; a <= n; a++ {
		s := Step{Attempt: a}
		if a > 1 {
			s.Exponent = a - 2
			s.Envelope, s.Capped = envelope(base, capD, mult, s.Exponent)
			s.JitterLow, s.JitterHigh = band(r.Backoff.Jitter, base, s.Envelope)
			cum += s.Envelope
			elapsed += s.Envelope
		}
		elapsed += timeout
		s.CumulativeWait = cum
		s.WorstElapsed = elapsed
		s.PastMaxElapsed = !r.MaxElapsed.IsZero() && elapsed > r.MaxElapsed.D
		steps = append(steps, s)
	}
	return steps
}

// envelope is min(cap, base * mult^n), computed in float so a large n
// saturates at the cap instead of overflowing.
func envelope(base, capD time.Duration, mult float64, n int) (time.Duration, bool) {
	v := float64(base) * math.Pow(mult, float64(n))
	if capD > 0 && (v >= float64(capD) || math.IsInf(v, 0) || math.IsNaN(v)) {
		return capD, v > float64(capD)
	}
	if v > float64(math.MaxInt64/2) {
		return time.Duration(math.MaxInt64 / 2), false
	}
	return time.Duration(math.Round(v)), false
}

// band is the interval a strategy draws the wait from, given the envelope.
func band(jitter contract.Jitter, base, env time.Duration) (lo, hi time.Duration) {
	switch jitter {
	case "full":
		return 0, env
	case "equal":
		return env / 2, env
	case "decorrelated":
		// random(base, prev*3), capped: never below base.
		return min(base, env), env
	default: // none
		return env, env
	}
}
