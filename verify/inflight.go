package verify

import (
	"strconv"
	"time"

	"github.com/retryspec/retryspec/contract"
)

// inFlightAnswer is the answer the contract gives a request whose key is
// claimed and unfinished, as the concurrency gate accepts it: the in-flight
// conflict under in_flight.response: conflict, and under accepted the 202
// with the in-flight code, from contract.Reply (the one function behind the
// middleware's answer and the Idempotent requests page). ok is false when
// the contract names no such answer (block: a copy waits for the outcome).
func (r *runner) inFlightAnswer() (c contract.Conflict, ok bool) {
	in := r.c.Idempotency.InFlight
	if in == nil {
		return contract.Conflict{}, false
	}
	switch in.Response {
	case contract.InFlightConflict:
		return r.c.Idempotency.Conflicts.InFlight, true
	case contract.InFlightAccepted:
		rep := r.c.Reply(contract.ReplyInFlightAccepted)
		return contract.Conflict{Status: rep.Status, Code: rep.Code}, true
	}
	return contract.Conflict{}, false
}

// inFlight reports whether resp says the key is still in flight: the
// contract's in-flight answer, or the in-flight conflict, which a blocked
// copy also gets when its wait ends.
func (r *runner) inFlight(resp Response) bool {
	if r.c.Idempotency.InFlight == nil {
		return false
	}
	if want, ok := r.inFlightAnswer(); ok && r.matches(resp, want) {
		return true
	}
	return r.matches(resp, r.c.Idempotency.Conflicts.InFlight)
}

// awaitEnd is why awaitOutcome stopped.
type awaitEnd int

const (
	outcomeCompleted awaitEnd = iota // a 2xx that is not the in-flight 202
	outcomeRefused                   // another answer
	outcomeTimedOut                  // still in flight (or 429, 503) after awaitBound
)

// String is how a failure message names the end: "refused", "timed out".
func (e awaitEnd) String() string {
	return [...]string{outcomeCompleted: "completed", outcomeRefused: "refused", outcomeTimedOut: "timed out"}[e]
}

// awaitBound is how long awaitOutcome waits for a key in flight: the
// contract's lock_timeout, after which a sound server takes an abandoned
// claim over, and crashMargin beyond it.
func (r *runner) awaitBound() time.Duration {
	var lockTimeout time.Duration
	if r.c.Idempotency.InFlight != nil {
		lockTimeout = r.c.Idempotency.InFlight.LockTimeout.D
	}
	return lockTimeout + crashMargin
}

// awaitOutcome repeats req until it completes: a 2xx that is not the
// in-flight 202. It waits out the in-flight answers, 429 and 503
// (honouring Retry-After) for at most awaitBound, and returns the last
// answer, how many in-flight answers it waited out, and why it stopped
// short of a completion (outcomeRefused: another answer; outcomeTimedOut).
// label heads the reproduction of its first request.
func (r *runner) awaitOutcome(req Request, label string) (last Response, waits int, why awaitEnd, _ *failure) {
	deadline := time.Now().Add(r.awaitBound())
	delay := 50 * time.Millisecond
	for attempt := 0; ; attempt++ {
		last = r.do(req)
		r.cur.res.Requests++
		if attempt == 0 {
			r.cur.repro = append(r.cur.repro, label, r.red.String(req.Curl()))
		}
		inFlight := r.inFlight(last)
		if last.Err == nil && last.Status/100 == 2 && !inFlight {
			return last, waits, outcomeCompleted, nil
		}
		if last.Err == nil && !inFlight && last.Status != 429 && last.Status != 503 {
			return last, waits, outcomeRefused, nil
		}
		if inFlight {
			waits++
		}
		wait := delay
		if ra, err := strconv.Atoi(last.headerOr("Retry-After")); err == nil && ra >= 0 {
			wait = time.Duration(ra) * time.Second
		}
		delay = min(delay*2, time.Second)
		if remaining := time.Until(deadline); remaining <= 0 || attempt >= 10000 {
			return last, waits, outcomeTimedOut, nil
		} else if wait > remaining {
			wait = remaining
		}
		select {
		case <-time.After(wait):
		case <-r.ctx.Done():
			return last, waits, outcomeTimedOut, &failure{msg: "interrupted", err: r.ctx.Err()}
		}
	}
}
