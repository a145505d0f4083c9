package render

import (
	"strconv"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// retryChoices is what the Retrying page's choices partial
// (templates/markdown/partials/retry-choices.md.tmpl) states: the jitter
// as a choice among four with the reason for the contract's pick, and the
// retry amplification in figures. Every figure is computed here from the
// contract, so the template only prints.
type retryChoices struct {
	Jitter []jitterOption
	// Picked is the contract's jitter; Reason says why it fits.
	Picked contract.Jitter
	Reason string

	Amplification amplification

	// TimeoutDefault: the contract states no attempt_timeout, so the page
	// shows contract.DefaultAttemptTimeout and says where it comes from.
	TimeoutDefault    bool
	TimeoutDefaultWhy string
}

// jitterOption is one row of the jitter table.
type jitterOption struct {
	Name    string
	Verdict string // "this contract's choice", "the alternative", "ruled out"
	Why     string
}

// amplification is how many calls one logical request can become.
type amplification struct {
	// Attempts per layer: the contract's max_attempts, the first included.
	Attempts int
	// Layers lists the calls one request can become when 1, 2 or 3 layers
	// of a call chain each retry this many times.
	Layers []layerRow
	// Fleet is retry.fleet (0 when not given); FleetCalls is the calls a
	// failing API receives when every instance retries one request fully.
	Fleet      int
	FleetCalls int
	// Budget figures, when a token bucket is set: retries one instance can
	// make from a full bucket before it stops retrying, and the fleet's.
	HasBudget        bool
	BudgetRetries    int
	FleetBudgetRetry int
	BudgetTransient  int
	BudgetCapacity   int
}

type layerRow struct {
	Layers int
	Calls  int
}

// maxShownCalls caps the figures: beyond it the table says "more than".
const maxShownCalls = 1_000_000_000

func newRetryChoices(c *contract.Contract) retryChoices {
	r := c.Retry
	b := r.Backoff
	out := retryChoices{Picked: b.Jitter}
	verdict := func(name contract.Jitter) string {
		switch {
		case name == b.Jitter && (name == contract.JitterFull || name == contract.JitterDecorrelated):
			return "this contract's choice"
		case name == contract.JitterFull || name == contract.JitterDecorrelated:
			return "the alternative"
		case name == b.Jitter:
			return "this contract's choice, though ruled out by the method"
		}
		return "ruled out"
	}
	out.Jitter = []jitterOption{
		{"full", verdict(contract.JitterFull), "Each wait drawn between zero and the envelope. The least total work for clients and the least load on the API; the default."},
		{"decorrelated", verdict(contract.JitterDecorrelated), "Each wait drawn between the base and three times the previous one. A shorter expected wait for more total work: worth it only when a tight deadline makes time to success matter more than load."},
		{"equal", verdict(contract.JitterEqual), "Half of each wait fixed, half random. More work than full jitter and slower to finish: it loses on both counts."},
		{"none", verdict(contract.JitterNone), "Every client waits exactly the envelope, so clients that failed together retry together and recreate the spike."},
	}
	switch b.Jitter {
	case contract.JitterFull:
		out.Reason = "Full jitter is the default pick: callers of this API are many and independent, so spreading their retries evenly over each interval matters more than the slightly longer wait it costs one caller."
	case contract.JitterDecorrelated:
		out.Reason = "Decorrelated jitter is picked for a tight deadline, where the shorter expected wait matters more than the extra load."
		if b.Because != "" {
			out.Reason += " The contract's reason: " + b.Because
		}
	default:
		out.Reason = "The method rules this jitter out; `retryspec check` reports it (retry/no-jitter). Use full jitter."
	}

	a := amplification{Attempts: r.MaxAttempts, Fleet: r.Fleet}
	calls := 1
	for k := 1; k <= 3; k++ {
		calls = mulCap(calls, r.MaxAttempts)
		a.Layers = append(a.Layers, layerRow{Layers: k, Calls: calls})
	}
	if r.Fleet > 0 {
		a.FleetCalls = mulCap(r.Fleet, r.MaxAttempts)
	}
	if bk := r.Budget; bk != nil && bk.TransientCost > 0 {
		a.HasBudget = true
		a.BudgetCapacity = bk.Capacity
		a.BudgetTransient = bk.TransientCost
		a.BudgetRetries = bk.Capacity / bk.TransientCost
		if r.Fleet > 0 {
			a.FleetBudgetRetry = mulCap(r.Fleet, a.BudgetRetries)
		}
	}
	out.Amplification = a
	if r.AttemptTimeoutDefaulted() {
		out.TimeoutDefault = true
		out.TimeoutDefaultWhy = "no measured p99 is stated, so the time allowed is the fallback of " + contract.FormatDuration(contract.DefaultAttemptTimeoutFallback)
		if !r.MaxElapsed.IsZero() {
			out.TimeoutDefaultWhy = "no measured p99 is stated, so each of the " + strconv.Itoa(r.MaxAttempts) + " attempts gets an equal share of the " + r.MaxElapsed.String() + " bound"
		}
	}
	return out
}

// mulCap multiplies without overflowing past maxShownCalls.
func mulCap(a, b int) int {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > maxShownCalls/b {
		return maxShownCalls
	}
	return a * b
}

// joinInts writes codes as "500, 503".
func joinInts(codes []int) string {
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, ", ")
}
