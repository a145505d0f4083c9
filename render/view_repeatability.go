package render

import "github.com/retryspec/retryspec/contract"

// repeatView is what the pages say about a window measured from the
// client's first-sent time and about the result header (issue 32): the
// figures come from the contract, the result values from
// contract.ResultValue, the one function the middleware and verify read.
type repeatView struct {
	// On: the contract measures a window from a first-sent time.
	On bool
	// FirstSentHeader is the header carrying the first-sent time, ""
	// without a first-sent window.
	FirstSentHeader string
	// FirstSentExample is the HTTP date the pages show in it.
	FirstSentExample string
	// Window is the first-sent window; zero without one.
	Window contract.Duration
	// TooOld is the answer to a request older than Window.
	TooOld contract.Conflict
	// ResultHeader names the result header, "" without one; Results holds
	// its value beside each answer, by conflict name, and Accepted and
	// Rejected its two values.
	ResultHeader       string
	Results            map[string]string
	Accepted, Rejected string
	// Uncoded: no conflict the server answers carries a code, so the
	// pages tell integrators to branch on the status.
	Uncoded bool
}

func newRepeatView(c *contract.Contract) repeatView {
	id := c.Idempotency
	v := repeatView{Uncoded: true}
	for _, cf := range c.AnsweredConflicts() {
		if cf.Code != "" {
			v.Uncoded = false
		}
	}
	if id.FirstSent.Set() {
		v.On, v.FirstSentHeader, v.Window, v.TooOld = true, id.FirstSent.Header, id.FirstSent.Window, id.Conflicts.TooOld
		if v.FirstSentHeader == "" {
			v.FirstSentHeader = "first-sent" // window/first-sent-without-header asks for the name
		}
		v.FirstSentExample = contract.FirstSentExample
	}
	if rh := id.ResultHeader; rh.Set() {
		v.ResultHeader, v.Accepted, v.Rejected = rh.Name, rh.Accepted, rh.Rejected
		v.Results = map[string]string{}
		for name, k := range map[string]contract.ReplyKind{
			"payload_mismatch": contract.ReplyPayloadMismatch, "in_flight": contract.ReplyInFlight, "in_flight_accepted": contract.ReplyInFlightAccepted, "missing_key": contract.ReplyMissingKey,
			"invalid_key": contract.ReplyInvalidKey, "expired": contract.ReplyExpired, "too_old": contract.ReplyTooOld,
		} {
			v.Results[name] = c.ResultValue(k)
		}
	}
	return v
}
