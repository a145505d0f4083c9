package suite

import (
	"time"

	"github.com/retryspec/retryspec/contract"
)

// Delays of the test contract: the contract's own policy (statuses, codes,
// attempts, jitter strategy, header) with the clock scaled down so the whole
// suite runs in seconds. The snippet code is the same template output a
// real contract gets; only these figures differ.
const (
	TestBase = 50 * time.Millisecond
	TestCap  = 400 * time.Millisecond
	// The deadline and attempt timeout leave room for a cold runtime (a
	// JVM loading its HTTP client) on a busy two-core machine.
	TestMaxElapsed     = 12 * time.Second
	TestAttemptTimeout = 5 * time.Second
	// TestRetryAfter is the short Retry-After (in seconds) the fault server
	// sends, to wait out; the long one is LongRetryAfter (7 s here).
	TestRetryAfter = 1
)

// TestContract returns a copy of c with the delays scaled down.
func TestContract(c *contract.Contract) *contract.Contract {
	t := *c
	r := c.Retry
	r.Backoff.Base = contract.Dur(TestBase)
	r.Backoff.Cap = contract.Dur(TestCap)
	r.MaxElapsed = contract.Dur(TestMaxElapsed)
	if !r.AttemptTimeout.Bare.IsZero() || r.AttemptTimeout.Factor <= 0 {
		r.AttemptTimeout = contract.AttemptTimeout{Bare: contract.Dur(TestAttemptTimeout)}
	} else {
		r.AttemptTimeout.P99 = contract.Dur(time.Duration(float64(TestAttemptTimeout) / r.AttemptTimeout.Factor))
	}
	t.Retry = r
	return &t
}
