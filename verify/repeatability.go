package verify

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/retryspec/retryspec/contract"
)

// The gates of OASIS Repeatable Requests (issue 32): a request first sent
// longer ago than first_sent.window is refused and runs nothing
// (verify/too-old), and every keyed answer says in result_header whether
// the server took the request (verify/result-header).

// replyConflict is the status and code of the answer the contract gives
// with kind k (contract.Reply: the middleware's answer), for matches.
func (r *runner) replyConflict(k contract.ReplyKind) contract.Conflict {
	rp := r.c.Reply(k)
	return contract.Conflict{Status: rp.Status, Code: rp.Code}
}

func (r *runner) skipTooOld(Operation) string {
	fs := r.c.Idempotency.FirstSent
	switch {
	case !fs.Set():
		return "the contract measures no window from a first-sent time (idempotency.first_sent), so no request is too old"
	case fs.Header == "":
		return "the contract names no first_sent.header, so verify cannot state a first-sent time"
	}
	return ""
}

// tooOldMargin is how far past first_sent.window the too-old gate dates
// its request: well beyond the second an HTTP date rounds to, and beyond
// any skew a server allows for clocks that run ahead.
const tooOldMargin = time.Minute

// tooOldSent is the first-sent time the too-old gate states.
func (r *runner) tooOldSent() time.Time {
	return time.Now().Add(-r.c.Idempotency.FirstSent.Window.D - tooOldMargin)
}

func (r *runner) gateTooOld(op Operation) (string, *failure) {
	fs := r.c.Idempotency.FirstSent
	key := newKey(r.keyLen(op))
	r.fills.stampFirstSent(key, r.tooOldSent())
	r.resetStub()
	c, f := r.sendCounted(op, key, r.opRequest(op, key, op.Body, primary), " the request first sent too long ago")
	if f != nil {
		return "", f
	}
	resp, before, after, ok := c.resp, c.before, c.after, c.ok
	want := r.replyConflict(contract.ReplyTooOld)
	age := fs.Window.D + tooOldMargin
	fix := fmt.Sprintf("read %s before any work and answer %s when it is more than %s before the server's clock", fs.Header, conflictText(want), fs.Window)
	if !r.matches(resp, want) {
		msg := fmt.Sprintf("a request whose %s is %s old (window %s) got %s; the contract promises %s", fs.Header, age, fs.Window, resp.Describe(), conflictText(want))
		f := failf("idempotency.conflicts.too_old", fix, "%s", msg)
		if resp.Status/100 == 2 {
			f.msg = fmt.Sprintf("a request whose %s is %s old (window %s) was run (%s): a retry that outlived its window ran; the contract promises %s", fs.Header, age, fs.Window, resp.Describe(), conflictText(want))
		}
		return "", f
	}
	if ext := r.externalCalls(); ext != "" {
		return "", failf("idempotency.conflicts.too_old", fix, "the request first sent too long ago was refused but made external calls (%s)", ext)
	}
	if ok && after != before {
		return "", failf("idempotency.conflicts.too_old", fix, "the request first sent too long ago was refused (%d) but still caused %d effect(s)", resp.Status, after-before)
	}
	r.cur.res.Reason = fmt.Sprintf("a request first sent %s ago answered %s", age, conflictText(want))
	return "", nil
}

func (r *runner) skipResultHeader(Operation) string {
	if !r.c.Idempotency.ResultHeader.Set() {
		return "the contract names no result header (idempotency.result_header)"
	}
	return ""
}

// resultCheck is one answer the result-header gate reads.
type resultCheck struct {
	what string
	resp Response
	want string
}

// gateResultHeader sends a first request, its repeat, and, where the
// contract lets verify provoke them, a mismatch and a key too long, and
// reads the result header of each answer.
func (r *runner) gateResultHeader(op Operation) (string, *failure) {
	rh := r.c.Idempotency.ResultHeader
	accepted := rh.Value(contract.ResultAccepted)
	r.cur.res.Effects = "not observed: the gate reads the result header; the other gates count effects"
	key := newKey(r.keyLen(op))
	first, f := r.original(op, key, primary)
	if f != nil {
		return "", f
	}
	checks := []resultCheck{{"the first request", first, accepted}}
	again := r.send(r.opRequest(op, key, op.Body, primary), false)
	if again.Err != nil {
		return "", &failure{msg: again.Describe(), err: errUnresponsive}
	}
	if skip := r.pastWindow(r.cur.originalSent); skip != "" {
		return skip, nil
	}
	checks = append(checks, resultCheck{"its repeat (a replay)", again, accepted})
	rejections, f := r.rejections(op, key)
	if f != nil {
		return "", f
	}
	return "", r.judgeResults(rh, append(checks, rejections...))
}

// rejections provokes the conflicts the contract answers with its
// rejected value: a mismatch under the used key, and a key too long. An
// answer that is not the contract's conflict is left to that conflict's
// own gate.
func (r *runner) rejections(op Operation, key string) ([]resultCheck, *failure) {
	var out []resultCheck
	try := func(what string, k contract.ReplyKind, req Request) *failure {
		resp := r.send(req, false)
		if resp.Err != nil {
			return &failure{msg: resp.Describe(), err: errUnresponsive}
		}
		if r.matches(resp, r.replyConflict(k)) {
			out = append(out, resultCheck{what, resp, r.c.ResultValue(k)})
		}
		return nil
	}
	if r.skipMismatch(op) == "" {
		if f := try("the mismatched request", contract.ReplyPayloadMismatch, r.opRequest(op, key, mismatchBody(op), primary)); f != nil {
			return nil, f
		}
	}
	if r.skipKeyTooLong(op) == "" {
		long := newKey(r.c.MaxKeyLengthFor(op.Endpoint) + 1)
		if f := try("the key too long", contract.ReplyInvalidKey, r.opRequest(op, long, op.Body, primary)); f != nil {
			return nil, f
		}
	}
	return out, nil
}

func (r *runner) judgeResults(rh contract.ResultHeader, checks []resultCheck) *failure {
	fix := fmt.Sprintf("set %s on every answer to a keyed request: %s when the request ran or was replayed, %s when it was refused", rh.Name, rh.Accepted, rh.Rejected)
	var said []string
	for _, c := range checks {
		got := c.resp.Header.Values(rh.Name)
		if len(got) != 1 || got[0] != c.want {
			return failf("idempotency.result_header", fix, "%s got %s with %s; the contract names %s: %s", c.what, c.resp.Describe(), headerText(rh.Name, got), rh.Name, c.want)
		}
		said = append(said, c.what+": "+c.want)
	}
	r.cur.res.Reason = fmt.Sprintf("%s on %d answers (%s)", rh.Name, len(checks), strings.Join(said, "; "))
	return nil
}

// headerText says what a response carried of header name.
func headerText(name string, vals []string) string {
	switch len(vals) {
	case 0:
		return "no " + name + " header"
	case 1:
		return fmt.Sprintf("%s: %s", name, vals[0])
	}
	return fmt.Sprintf("%d %s headers %q", len(vals), http.CanonicalHeaderKey(name), vals)
}

func dryTooOld(d dryOp) []string {
	d.r.fills.stampFirstSent(d.key, d.r.tooOldSent())
	return join(d.count(d.key, primary),
		one(fmt.Sprintf("# first sent %s ago, past first_sent.window %s:", d.r.c.Idempotency.FirstSent.Window.D+tooOldMargin, d.r.c.Idempotency.FirstSent.Window), d.send(d.key, d.op.Body, primary)),
		d.count(d.key, primary))
}

func dryResultHeader(d dryOp) []string {
	reqs := one(d.send(d.key, d.op.Body, primary), d.send(d.key, d.op.Body, primary))
	if d.r.skipMismatch(d.op) == "" {
		reqs = append(reqs, d.send(d.key, mismatchBody(d.op), primary))
	}
	if d.r.skipKeyTooLong(d.op) == "" {
		reqs = append(reqs, d.send(newKey(d.r.c.MaxKeyLengthFor(d.op.Endpoint)+1), d.op.Body, primary))
	}
	return append(reqs, "# each answer's "+d.r.c.Idempotency.ResultHeader.Name+" header is read")
}
