package verify

import (
	"fmt"
	"time"

	"github.com/retryspec/retryspec/contract"
)

// This file holds the gates for what real idempotency libraries get wrong
// beyond the definitional ones: a key reused after its replay window, a
// key whose first attempt failed in the handler, and a key in the wrong
// form.

// maxWindowWait is the longest replay window the after-window gate waits out.
const maxWindowWait = 5 * time.Minute

// windowMargin is what the after-window gate waits beyond the window, for
// the server's clock and its claim time.
const windowMargin = time.Second

// replayWindow is the window the server under test runs: the plan's test
// window, else the contract's, and where it is stated.
func (r *runner) replayWindow() (time.Duration, string) {
	if r.plan.ReplayWindow > 0 {
		return r.plan.ReplayWindow, fmt.Sprintf("the plan's replay_window (%s)", r.plan.ReplayWindow)
	}
	w := r.c.Idempotency.ReplayWindow
	return w.D, fmt.Sprintf("the contract's replay_window (%s)", w.Text)
}

// pastWindow says why a gate that repeats a completed key cannot judge
// the repeat, or "": the repeat came after the key's window, so the
// server may rightly treat it as a new request (a short test window on a
// slow machine).
func (r *runner) pastWindow(originalSent time.Time) string {
	w, from := r.replayWindow()
	if w <= 0 || time.Since(originalSent) < w {
		return ""
	}
	return fmt.Sprintf("cannot tell: the repeat came %s after the original, past %s, so the server may rightly treat it as a new request; state a longer replay_window in the plan (the server's test window) or run verify/after-window alone with --only",
		time.Since(originalSent).Round(time.Millisecond), from)
}

func (r *runner) skipAfterWindow(Operation) string {
	w, from := r.replayWindow()
	if w <= 0 {
		return "the contract states no replay_window"
	}
	if w > maxWindowWait {
		return fmt.Sprintf("%s is longer than the %s verify waits to reuse a key after its window; start the server with a short test window (a test contract with replay_window: 10s, or the server's own setting) and state it in the plan as replay_window: 10s", from, maxWindowWait)
	}
	return ""
}

func (r *runner) gateAfterWindow(op Operation) (string, *failure) {
	w, from := r.replayWindow()
	if dl, ok := r.ctx.Deadline(); ok && time.Until(dl) < w+windowMargin+r.plan.RequestTimeout {
		return fmt.Sprintf("%s is longer than this run has left of its --timeout (%s); raise --timeout", from, time.Until(dl).Round(time.Second)), nil
	}
	key := newKey(r.keyLen(op))
	first, before, ok, f := r.completed(op, key)
	if f != nil {
		return "", f
	}
	// The window runs from the claim, which is before the answer: waiting
	// it out from now is past it.
	r.cur.repro = append(r.cur.repro, fmt.Sprintf("# wait %s (%s and a margin), then reuse the key:", w+windowMargin, from))
	select {
	case <-time.After(w + windowMargin):
	case <-r.ctx.Done():
		return "", &failure{msg: "interrupted", err: r.ctx.Err()}
	}
	r.resetStub()
	// A client reusing a key after the window sends a new request: with
	// first_sent, a new first-sent time (the old one is past its window,
	// and verify/too-old judges that answer).
	r.fills.stampFirstSent(key, time.Now())
	again := r.send(r.opRequest(op, key, op.Body, primary), false)
	if again.Err != nil {
		return "", &failure{msg: again.Describe(), err: errUnresponsive}
	}
	after, _, f := r.settledCount(op, key, primary)
	if f != nil {
		return "", f
	}
	r.observe(before, after, ok, " the reuse after the window")
	if r.c.Idempotency.AfterWindow == contract.AfterWindowError {
		return r.expiredKey(again, before, after, ok, w)
	}
	return r.windowNewRequest(first, again, before, after, ok, w)
}

// expiredKey judges a key reused after the window under after_window: error.
func (r *runner) expiredKey(again Response, before, after int, ok bool, w time.Duration) (string, *failure) {
	want := r.c.Idempotency.Conflicts.Expired
	fix := "compare the key's first use with replay_window on every lookup and answer " + conflictText(want) + " once it is older, before any work"
	if !r.matches(again, want) {
		return "", failf("idempotency.after_window", fix, "a key reused %s after its first use (window %s) got %s; with after_window: error the contract promises %s", w+windowMargin, w, again.Describe(), conflictText(want))
	}
	if ext := r.externalCalls(); ext != "" {
		return "", failf("idempotency.after_window", fix, "the expired key was refused but made external calls (%s)", ext)
	}
	if ok && after != before {
		return "", failf("idempotency.after_window", fix, "the expired key was refused but still caused %d effect(s)", after-before)
	}
	r.cur.res.Reason = "answered " + conflictText(want) + " after the window"
	return "", nil
}

// windowNewRequest judges a key reused after the window under
// after_window: new-request: the request runs again, as a new one.
func (r *runner) windowNewRequest(first, again Response, before, after int, ok bool, w time.Duration) (string, *failure) {
	fix := "compare the key's first use with replay_window on every lookup; once it is older, forget the stored response and run the request as a new one (or change the contract to after_window: error)"
	h := r.c.Idempotency.ReplayHeader
	replayed := h != "" && again.headerOr(h) != "" && again.headerOr(h) != "false"
	if again.Status/100 != 2 {
		return "", failf("idempotency.after_window", fix, "a key reused %s after its first use (window %s) got %s; with after_window: new-request the contract treats it as a new request, which succeeds as the first did", w+windowMargin, w, again.Describe())
	}
	switch {
	case ok && after == before:
		return "", failf("idempotency.after_window", fix, "a key reused %s after its first use (window %s) made no new effect (count %d -> %d) and got %s: the server still replays the key after its window; the contract says after_window: new-request", w+windowMargin, w, before, after, again.Describe())
	case ok && after != before+1:
		return "", failf("idempotency.after_window", fix, "a key reused after its window made %d effects, not one (count %d -> %d)", after-before, before, after)
	case !ok && replayed:
		return "", failf("idempotency.after_window", fix, "a key reused %s after its first use (window %s) was answered as a replay (%s: %s); the contract says after_window: new-request", w+windowMargin, w, h, again.headerOr(h))
	case !ok && h == "" && again.SameBody(first):
		return "cannot tell: the reuse got the first response's bytes and the contract names no replay_header, so a replay looks like a new request; add effects to the plan for this operation", nil
	}
	r.cur.res.Reason = "treated as a new request after the window"
	if ok {
		r.cur.res.Reason += ": one new effect"
	}
	return "", nil
}

// gateFailedAttempt makes the handler fail on a key's first attempt, by
// failing the endpoint's first external call at the stub, then retries the
// key: the contract's Stores(status), the middleware's rule too, says
// whether the failure is replayed or the request runs again.
func (r *runner) skipFailedAttempt(op Operation) string {
	if skip := r.restartSkip(op); skip != "" {
		return "verify makes the handler fail by failing an external call at its stub, which only a server verify starts calls: " + skip
	}
	if len(op.Endpoint.ExternalCalls) == 0 {
		return "the endpoint has no external_calls, so verify has no call to fail to make its handler fail"
	}
	return ""
}

func (r *runner) gateFailedAttempt(op Operation) (string, *failure) {
	call := op.Endpoint.ExternalCalls[0]
	key := newKey(r.keyLen(op))
	before, ok, f := r.count(op, key, primary)
	if f != nil {
		return "", f
	}
	r.stub.reset()
	r.stub.failNext(call)
	req := r.opRequest(op, key, op.Body, primary)
	r.cur.repro = append(r.cur.repro, fmt.Sprintf("# the stub answers %s with a 500 this once:", call))
	failed := r.send(req, false)
	r.stub.failNext("")
	if failed.Err != nil {
		return "", &failure{msg: failed.Describe(), err: errUnresponsive}
	}
	if r.stub.failures() == 0 {
		return "", failf(r.epPath(op, "external_calls"), "make the endpoint call each external service through RETRYSPEC_EXTERNAL_URL/<call name>",
			"the request (%s) never called %s at RETRYSPEC_EXTERNAL_URL/%s, so verify could not make it fail; the contract lists it in external_calls", failed.Describe(), call, call)
	}
	if failed.Status/100 == 2 {
		return fmt.Sprintf("the server retried the failed %s call within the request and succeeded (%d), so no attempt failed and there is nothing to judge", call, failed.Status), nil
	}
	// The count between the attempts judges nothing (a server may leave a
	// recovery point for the retry to resume); it says, in a failure, which
	// attempt made an extra effect.
	mid, _, f := r.settledCount(op, key, primary)
	if f != nil {
		return "", f
	}
	r.resetStub()
	again, conflicts, why, f := r.awaitOutcome(req, "# the stub answers again; the retry with the same key:")
	if f != nil {
		return "", f
	}
	waitedOut := why == outcomeTimedOut
	if again.Err != nil {
		return "", &failure{msg: again.Describe(), err: errUnresponsive}
	}
	after, _, f := r.settledCount(op, key, primary)
	if f != nil {
		return "", f
	}
	r.observe(before, after, ok, " the failed attempt and its retry")
	return r.judgeFailedAttempt(attempts{failed: failed, again: again, before: before, mid: mid, after: after, counted: ok, conflicts: conflicts, waitedOut: waitedOut})
}

// attempts is what the failed-attempt gate saw: the failed first attempt,
// the retry's answer, and the key's effect counts around them.
type attempts struct {
	failed, again Response
	// before, mid and after are the key's effect counts before the failed
	// attempt, between it and the retry, and after the retry.
	before, mid, after int
	counted            bool
	conflicts          int
	waitedOut          bool
}

// replayedFailure reports whether a retry is the failed attempt replayed
// although the contract does not store it (the replay header says so).
func (r *runner) replayedFailure(failed Response) func(Response) bool {
	h := r.c.Idempotency.ReplayHeader
	stored := r.c.Idempotency.Stores(failed.Status)
	return func(resp Response) bool {
		return !stored && h != "" && resp.headerOr(h) != "" && resp.headerOr(h) != "false"
	}
}

// judgeFailedAttempt is the failed-attempt gate's verdict: the contract's
// Stores(status), the middleware's rule too, says whether the failure is
// replayed or the request runs again.
func (r *runner) judgeFailedAttempt(a attempts) (string, *failure) {
	path, policy := r.storedRule()
	if r.c.Idempotency.Stores(a.failed.Status) {
		skip, f := r.storedFailure(a.failed, a.again, a.before, a.after, a.counted, path, policy)
		return skip, a.blameFailedAttempt(f)
	}
	h := r.c.Idempotency.ReplayHeader
	fix := "store no response for an attempt that failed with a status the contract does not store (" + policy + "; 408, 425, 429 and 503 never): release the key so the retry runs the request"
	switch {
	case r.replayedFailure(a.failed)(a.again):
		return "", failf(path, fix, "the first attempt failed with %d, which the contract does not store (%s), yet the retry got it replayed (%s: %s): the key is poisoned for the whole window", a.failed.Status, policy, h, a.again.headerOr(h))
	case a.again.Status/100 != 2:
		why := ""
		if a.waitedOut {
			why = fmt.Sprintf(" after retrying for lock_timeout + %s", crashMargin)
		}
		return "", failf(path, fix, "the first attempt failed with %d, which the contract does not store (%s), so a retry must run the request again; the retry got %s%s", a.failed.Status, policy, a.again.Describe(), why)
	case a.counted && a.after != a.before+1:
		return "", a.blameFailedAttempt(failf(path, fix, "the retry after a failed attempt completed, but the key made %d effects, not one (count %d -> %d)", a.after-a.before, a.before, a.after))
	}
	r.cur.res.Reason = fmt.Sprintf("the failure (%d) was not stored, as %s says; the retry ran the request and completed (%d in-flight answers waited out)", a.failed.Status, policy, a.conflicts)
	return "", nil
}

// blameFailedAttempt adds to an effects failure what the count between
// the attempts showed: an effect the failed attempt left is its own work,
// not the retry's, and the fix differs.
func (a attempts) blameFailedAttempt(f *failure) *failure {
	if f == nil || !a.counted || a.mid == a.before {
		return f
	}
	f.msg += fmt.Sprintf("; %d of those effects were already there after the failed attempt, before any retry (count %d -> %d): the attempt that answered %d left its work in place, so either roll it back when answering a failure or resume it on the retry instead of running it again", a.mid-a.before, a.before, a.mid, a.failed.Status)
	return f
}

// storedRule is the contract value that says which answers are stored:
// its path, and how the report names it.
func (r *runner) storedRule() (path, text string) {
	id := r.c.Idempotency
	switch {
	case id.StoredOutcomes != "":
		return "idempotency.stored_outcomes", "stored_outcomes: " + string(id.StoredOutcomes)
	case id.StoredFailures != "":
		return "idempotency.stored_failures", "stored_failures: " + string(id.StoredFailures)
	}
	return "idempotency.stored_failures", "stored_failures left undecided, which stores every class"
}

// storedFailure judges the retry of a failure the contract stores: the
// stored failure again, with no new work.
func (r *runner) storedFailure(failed, again Response, before, after int, ok bool, path, policy string) (string, *failure) {
	fix := fmt.Sprintf("store the failed attempt's status and body (%s stores a %d) and replay them to every retry with the key, running nothing", policy, failed.Status)
	switch {
	case again.Status != failed.Status || !again.sameValue(failed):
		return "", failf(path, fix, "the first attempt failed with %d, which %s stores and replays, but the retry got %s", failed.Status, policy, again.Describe())
	case r.externalCalls() != "":
		return "", failf(path, fix, "the stored failure was replayed, but the retry made external calls again (%s): the handler ran again", r.externalCalls())
	case ok && after != before:
		return "", failf(path, fix, "the stored failure was replayed, but the key's effects moved (count %d -> %d)", before, after)
	}
	r.cur.res.Reason = fmt.Sprintf("the failure (%d) was replayed, as %s says", failed.Status, policy)
	return "", nil
}

// gateKeyForm sends a key that is not in the contract's header_value form
// (an sf-string key without its quotes): the contract's invalid-key answer,
// and no effect.
func (r *runner) skipKeyForm(Operation) string {
	if s := r.skipKeyFormGraphQL(); s != "" {
		return s
	}
	if r.c.Idempotency.InBody() {
		return "the key travels in the JSON body (" + r.c.Idempotency.KeyFieldPointer() + "), a JSON string, so header_value does not apply (a key too long is " + GateKeyTooLong + "'s)"
	}
	if r.c.Idempotency.HeaderValue != contract.HeaderSFString {
		// Any other value is plain, stated or by default (the loader refuses the rest).
		return fmt.Sprintf("the contract has header_value: %s, which takes the header's value as sent, so no key is in the wrong form (a key too long is %s's)", contract.HeaderPlain, GateKeyTooLong)
	}
	return ""
}

func (r *runner) gateKeyForm(op Operation) (string, *failure) {
	key := newKey(r.keyLen(op))
	req := r.opRequest(op, "", op.Body, primary)
	req.Headers = append(req.Headers, sentHeader{Name: r.c.Idempotency.Header, Value: key})
	c, f := r.sendCounted(op, key, req, " the unquoted key")
	if f != nil {
		return "", f
	}
	resp, before, after, ok := c.resp, c.before, c.after, c.ok
	want := r.c.Idempotency.Conflicts.InvalidKey
	fix := "parse the header as an RFC 8941 string and refuse a value that is not one with " + conflictText(want) + ", before claiming anything; never take the raw value as the key"
	if !r.matches(resp, want) {
		return "", failf("idempotency.header_value", fix, "a key sent without the quotes of header_value: sf-string (%s: %s) got %s; the contract promises %s", r.c.Idempotency.Header, key, resp.Describe(), conflictText(want))
	}
	if ok && after != before {
		return "", failf("idempotency.header_value", fix, "the unquoted key was refused but still caused %d effect(s)", after-before)
	}
	r.cur.res.Reason = "an unquoted key answered " + conflictText(want)
	return "", nil
}
