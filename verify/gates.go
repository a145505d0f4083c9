package verify

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retryspec/retryspec/contract"
)

func (r *runner) epPath(op Operation, field string) string {
	return fmt.Sprintf("endpoints[%d].%s", op.EndpointIndex, field)
}

// observe records the effect count a gate saw.
func (r *runner) observe(before, after int, ok bool, what string) {
	if !ok {
		return
	}
	r.cur.res.Effects = fmt.Sprintf("observed: %d before, %d after%s", before, after, what)
}

// original sends the operation's request with a fresh key and insists that
// it succeeds: every later step compares against it.
func (r *runner) original(op Operation, key string, who principal) (Response, *failure) {
	resp := r.send(r.opRequest(op, key, op.Body, who), false)
	if resp.Err != nil {
		return resp, &failure{msg: resp.Describe(), err: errUnresponsive}
	}
	if resp.Status/100 != 2 {
		return resp, failf(r.epPath(op, "operation"),
			fmt.Sprintf("make the plan's request valid for this server (the body at %s:%d, headers, path values)", r.plan.File, op.BodyPos.Line),
			"the plan's request itself did not succeed (%s), so the gate has no original outcome to compare with", resp.Describe())
	}
	return resp, nil
}

func (r *runner) gateMissingKey(op Operation) (string, *failure) {
	if op.Endpoint.Key != contract.KeyRequired {
		return "the endpoint has key: " + string(op.Endpoint.Key) + "; a request without a key is allowed", nil
	}
	want := r.c.Idempotency.Conflicts.MissingKey
	r.cur.res.Effects = "not observed: a request without a key cannot be counted by key"
	resp := r.send(r.opRequest(op, "", op.Body, primary), false)
	if resp.Err != nil {
		return "", &failure{msg: resp.Describe(), err: errUnresponsive}
	}
	if !r.matches(resp, want) {
		msg := fmt.Sprintf("a request without %s got %s; the contract promises %s", r.c.Idempotency.Header, resp.Describe(), conflictText(want))
		if resp.Status/100 == 2 {
			msg = fmt.Sprintf("a request without %s was accepted (%s): it ran with no key to protect its retries; the contract promises %s", r.c.Idempotency.Header, resp.Describe(), conflictText(want))
		}
		return "", failf("idempotency.conflicts.missing_key", "refuse requests without the header before any work, with status "+strconv.Itoa(want.Status)+" and code "+want.Code, "%s", msg)
	}
	r.cur.res.Reason = "answered " + conflictText(want)
	return "", nil
}

func (r *runner) gateKeyTooLong(op Operation) (string, *failure) {
	max := r.c.Idempotency.MaxKeyLength
	if max <= 0 || max >= 8192 {
		return "the contract sets no usable max_key_length", nil
	}
	key := newKey(max + 1)
	before, ok, f := r.count(op, key, primary)
	if f != nil {
		return "", f
	}
	resp := r.send(r.opRequest(op, key, op.Body, primary), false)
	if resp.Err != nil {
		return "", &failure{msg: resp.Describe(), err: errUnresponsive}
	}
	after, _, f := r.count(op, key, primary)
	if f != nil {
		return "", f
	}
	r.observe(before, after, ok, "")
	fix := fmt.Sprintf("refuse keys longer than %d characters with a 400 before claiming them; never truncate a key", max)
	if resp.Status/100 != 4 {
		return "", failf("idempotency.max_key_length", fix, "a key of %d characters (max_key_length is %d) got %s; the contract promises a 4xx", max+1, max, resp.Describe())
	}
	if ok && after != before {
		return "", failf("idempotency.max_key_length", fix, "a key of %d characters was refused (%d) but still caused %d effect(s)", max+1, resp.Status, after-before)
	}
	r.cur.res.Reason = fmt.Sprintf("refused with %d", resp.Status)
	return "", nil
}

func (r *runner) gateReplay(op Operation) (string, *failure) {
	key := newKey(r.keyLen())
	first, f := r.original(op, key, primary)
	if f != nil {
		return "", f
	}
	before, ok, f := r.count(op, key, primary)
	if f != nil {
		return "", f
	}
	r.resetStub()
	again := r.send(r.opRequest(op, key, op.Body, primary), false)
	if again.Err != nil {
		return "", &failure{msg: again.Describe(), err: errUnresponsive}
	}
	if ext := r.externalCalls(); ext != "" {
		return "", failf("idempotency.stored_response", "on a completed key, replay the stored response instead of running the handler again",
			"repeating the completed request made external calls again (%s): the handler ran again", ext)
	}
	after, _, f := r.count(op, key, primary)
	if f != nil {
		return "", f
	}
	r.observe(before, after, ok, " the repeat")
	fix := "store status and body bytes when the request completes, and write them back unchanged on a repeat with the same key"
	switch {
	case ok && after != before:
		return "", failf("idempotency.stored_response", "on a completed key, replay the stored response instead of running the handler again",
			"repeating the completed request caused a new effect (count %d -> %d): the handler ran again", before, after)
	case again.Status != first.Status:
		return "", failf("idempotency.stored_response", fix, "the repeat got status %d, the original %d", again.Status, first.Status)
	case !again.SameBody(first):
		return "", failf("idempotency.stored_response", fix, "the repeat's body is not byte-identical to the original's (stored_response: %s):\n  original: %s\n  replay:   %s",
			r.c.Idempotency.StoredResponse, clip(first.Body), clip(again.Body))
	}
	if h := r.c.Idempotency.ReplayHeader; h != "" {
		if again.Header.Get(h) == "" {
			return "", failf("idempotency.replay_header", "set "+h+" on every replayed response", "the replay has no %s header, which the contract names as the replay marker", h)
		}
		if first.Header.Get(h) != "" && first.Header.Get(h) != "false" {
			return "", failf("idempotency.replay_header", "set "+h+" only on replays", "the original response already carries %s: %s, so a client cannot tell a replay", h, first.Header.Get(h))
		}
	}
	r.cur.res.Reason = "byte-identical replay"
	return "", nil
}

func (r *runner) resetStub() {
	if r.stub != nil {
		r.stub.reset()
	}
}

// externalCalls describes the external calls applied since resetStub, or "".
func (r *runner) externalCalls() string {
	if r.stub == nil {
		return ""
	}
	applied, _ := r.stub.effects()
	var out []string
	for _, name := range slices.Sorted(maps.Keys(applied)) {
		if applied[name] > 0 {
			out = append(out, fmt.Sprintf("%s x%d", name, applied[name]))
		}
	}
	return strings.Join(out, ", ")
}

func clip(b []byte) string {
	s := string(b)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func (r *runner) gateMismatch(op Operation) (string, *failure) {
	if r.c.Idempotency.Fingerprint == contract.FingerprintNone {
		return "the contract has fingerprint: none, so a mismatched body is not detected by design", nil
	}
	other := op.MismatchBody
	if other == nil {
		other = incrementFirstNumber(op.Body)
		if other == nil {
			return "the body has no number to change; set mismatch_body in the plan", nil
		}
	}
	want := r.c.Idempotency.Conflicts.PayloadMismatch
	key := newKey(r.keyLen())
	first, f := r.original(op, key, primary)
	if f != nil {
		return "", f
	}
	before, ok, f := r.count(op, key, primary)
	if f != nil {
		return "", f
	}
	r.resetStub()
	resp := r.send(r.opRequest(op, key, other, primary), false)
	if resp.Err != nil {
		return "", &failure{msg: resp.Describe(), err: errUnresponsive}
	}
	if ext := r.externalCalls(); ext != "" {
		return "", failf("idempotency.conflicts.payload_mismatch", "compare the fingerprint before any work and refuse a mismatch with "+conflictText(want),
			"the same key with another body made external calls (%s): the mismatched request ran", ext)
	}
	after, _, f := r.count(op, key, primary)
	if f != nil {
		return "", f
	}
	r.observe(before, after, ok, " the mismatched request")
	fix := "store a fingerprint (sha256 of the body) with the claim and answer " + conflictText(want) + " when a key returns with another body"
	if !r.matches(resp, want) {
		if resp.Status == first.Status && resp.sameValue(first) {
			return "", failf("idempotency.fingerprint", fix, "the same key with another body was answered with the first request's stored response (%s): the server does not compare the payload; the contract promises %s", resp.Describe(), conflictText(want))
		}
		return "", failf("idempotency.conflicts.payload_mismatch", fix, "the same key with another body got %s; the contract promises %s", resp.Describe(), conflictText(want))
	}
	if ok && after != before {
		return "", failf("idempotency.conflicts.payload_mismatch", fix, "the mismatched request was refused but still caused %d effect(s)", after-before)
	}
	r.cur.res.Reason = "answered " + conflictText(want)
	return "", nil
}

func (r *runner) gateScope(op Operation) (string, *failure) {
	if r.plan.OtherPrincipal == nil {
		return "the plan has no other_principal, so there is no second caller to test the key's scope with", nil
	}
	key := newKey(r.keyLen())
	first, f := r.original(op, key, primary)
	if f != nil {
		return "", f
	}
	before, ok, f := r.count(op, key, primary)
	if f != nil {
		return "", f
	}
	otherBefore, _, f := r.count(op, key, other)
	if f != nil {
		return "", f
	}
	resp := r.send(r.opRequest(op, key, op.Body, other), false)
	if resp.Err != nil {
		return "", &failure{msg: resp.Describe(), err: errUnresponsive}
	}
	after, _, f := r.count(op, key, primary)
	if f != nil {
		return "", f
	}
	otherAfter, _, f := r.count(op, key, other)
	if f != nil {
		return "", f
	}
	r.observe(before, after, ok, fmt.Sprintf(" for the first caller; %d before, %d after for the other", otherBefore, otherAfter))
	if r.c.Idempotency.Scope == contract.ScopeGlobal {
		isReplay := resp.Status == first.Status && resp.sameValue(first)
		if !isReplay && resp.Status/100 != 4 {
			return "", failf("idempotency.scope", "look keys up by the key alone, as scope: global promises, or change the contract to scope: account",
				"with scope: global, the same key from another caller got %s, neither a conflict nor a replay", resp.Describe())
		}
		if ok && after != before {
			return "", failf("idempotency.scope", "look keys up by the key alone", "with scope: global, the other caller's request caused a new effect")
		}
		r.cur.res.Reason = "the other caller got a conflict or a replay"
		return "", nil
	}
	fix := "key the claim table and every lookup on (account_id, idempotency_key)"
	if resp.Status/100 != 2 {
		return "", failf("idempotency.scope", fix, "with scope: account, another caller's first use of a key got %s; its key should be its own", resp.Describe())
	}
	if resp.SameBody(first) || (resp.Header.Get(r.c.Idempotency.ReplayHeader) != "" && r.c.Idempotency.ReplayHeader != "") {
		return "", failf("idempotency.scope", fix, "with scope: account, another caller using the same key got the first caller's stored response (%s): one account's answer leaked to another and its own request never ran", resp.Describe())
	}
	if ok && (otherAfter-otherBefore != 1 || after != before) {
		return "", failf("idempotency.scope", fix, "with scope: account, the other caller's request should make one effect of its own: other caller %d -> %d, first caller %d -> %d", otherBefore, otherAfter, before, after)
	}
	r.cur.res.Reason = "the other caller got its own outcome"
	return "", nil
}

func (r *runner) gateCrash(op Operation) (string, *failure) {
	switch {
	case r.proc == nil:
		return "the plan has no server: section, so verify cannot kill and restart the server", nil
	case r.o.BaseURL != "":
		return "--base-url was given, so verify did not start the server and cannot kill it", nil
	case len(op.Endpoint.ExternalCalls) == 0:
		return "the endpoint has no external_calls in the contract", nil
	case !canKillGroups:
		return "this system has no process groups to kill the server with", nil
	}
	if skip := r.crashBudget(); skip != "" {
		return skip, nil
	}
	trials := max(1, r.o.CrashTrials)
	var notes []string
	for _, call := range op.Endpoint.ExternalCalls {
		for _, after := range []bool{false, true} {
			for range trials {
				note, f := r.crashTrial(op, call, after)
				if f != nil {
					return "", f
				}
				notes = append(notes, note)
			}
		}
	}
	r.cur.res.Reason = fmt.Sprintf("%d crash trials recovered: %s", len(notes), strings.Join(notes, "; "))
	if op.Effects != nil {
		r.cur.res.Effects = fmt.Sprintf("observed: 1 after each of the %d trials", len(notes))
	}
	return "", nil
}

// crashBudget says why the crash gate cannot reach a verdict in this run,
// from what the contract itself implies about a killed request, or "".
func (r *runner) crashBudget() string {
	in := r.c.Idempotency.InFlight
	if in == nil {
		return ""
	}
	if in.Takeover == contract.TakeoverNone {
		return "the contract has in_flight.takeover: none, so a claim whose server was killed is never taken over: by the contract's own terms a retry after a crash gets the in-flight conflict for ever, and the gate has no recovery to test (check reports the missing takeover)"
	}
	wait := in.LockTimeout.D + crashMargin
	if dl, ok := r.ctx.Deadline(); ok && time.Until(dl) < wait {
		return fmt.Sprintf("the contract's lock_timeout is %s, so after a crash a retry may wait that long for the takeover, and this run has %s left of its --timeout; test with a contract whose lock_timeout is short (a few seconds, passed to the server too) or raise --timeout",
			in.LockTimeout.Text, time.Until(dl).Round(time.Second))
	}
	return ""
}

// crashMargin is what the crash gate waits beyond lock_timeout for a
// restarted server to answer the retry.
const crashMargin = 30 * time.Second

func (r *runner) crashTrial(op Operation, call string, afterAnswer bool) (string, *failure) {
	when := "before the stub answered"
	if afterAnswer {
		when = "after the stub answered"
	}
	path := r.epPath(op, "external_calls")
	fix := "record a recovery point and the downstream Idempotency-Key for each external call before making it; on retry, resume from the last recovery point and reuse that key; take over a claim whose owner died"
	key := newKey(r.keyLen())
	r.stub.reset()
	t := &trap{call: call, afterAnswer: afterAnswer, kill: r.proc.kill, fired: make(chan struct{})}
	r.stub.arm(t)
	req := r.opRequest(op, key, op.Body, primary)
	resp := r.send(req, true)
	select {
	case <-t.fired:
		if r.proc.escaped != nil {
			r.aborted = r.proc.escaped
			return "", &failure{msg: r.proc.escaped.Error(), err: errUnresponsive}
		}
	case <-time.After(r.plan.RequestTimeout):
		r.stub.arm(nil)
		if resp.Err != nil {
			return "", failf(path, fix, "the server failed before it called %s: %s", call, resp.Describe())
		}
		return "", failf(path, "make the endpoint call each external service through RETRYSPEC_EXTERNAL_URL/<call name>",
			"the request completed (%s) without calling %s at RETRYSPEC_EXTERNAL_URL/%s, so the crash could not be placed; the contract lists it in external_calls", resp.Describe(), call, call)
	}
	r.client.CloseIdleConnections()
	if err := r.proc.start(r.ctx); err != nil {
		return "", failf(path, "make the server start cleanly on a store left by a killed process", "after being killed %s at %s, the server did not restart: %v", when, call, err)
	}
	var lockTimeout time.Duration
	if r.c.Idempotency.InFlight != nil {
		lockTimeout = r.c.Idempotency.InFlight.LockTimeout.D
	}
	deadline := time.Now().Add(lockTimeout + crashMargin)
	var last Response
	conflicts := 0
	delay := 50 * time.Millisecond
	for attempt := 0; ; attempt++ {
		last = r.do(req)
		if attempt == 0 {
			r.cur.res.Requests++
			r.cur.repro = append(r.cur.repro, "# after restart, the retry:", r.red.String(req.Curl()))
		} else {
			r.cur.res.Requests++
		}
		if last.Err == nil && last.Status/100 == 2 {
			break
		}
		inFlight := r.c.Idempotency.InFlight != nil && r.matches(last, r.c.Idempotency.Conflicts.InFlight)
		if last.Err == nil && !inFlight && last.Status != 429 && last.Status != 503 {
			return "", failf(path, fix, "killed %s at %s, restarted; the retry with the same key got %s instead of completing", when, call, last.Describe())
		}
		if inFlight {
			conflicts++
		}
		wait := delay
		if ra, err := strconv.Atoi(last.headerOr("Retry-After")); err == nil && ra >= 0 {
			wait = time.Duration(ra) * time.Second
		}
		delay = min(delay*2, time.Second)
		if remaining := time.Until(deadline); remaining <= 0 || attempt >= 10000 {
			return "", failf(r.epPath(op, "recovery_points"), "take over a claim whose lock is older than lock_timeout (in_flight.takeover) and resume from its recovery point",
				"killed %s at %s, restarted; the retry did not complete within lock_timeout + %s (%s); last answer: %s", when, call, crashMargin, lockTimeout+crashMargin, last.Describe())
		} else if wait > remaining {
			wait = remaining
		}
		select {
		case <-time.After(wait):
		case <-r.ctx.Done():
			return "", &failure{msg: "interrupted", err: r.ctx.Err()}
		}
	}
	if n, ok, f := r.count(op, key, primary); f != nil {
		return "", f
	} else if ok {
		r.cur.res.Effects = fmt.Sprintf("observed: %d after the trial killed %s at %s", n, when, call)
		if n != 1 {
			return "", failf(r.epPath(op, "recovery_points"), fix, "killed %s at %s, restarted and retried: the request made %d effects, not 1 (the work ran again instead of resuming from its recovery point)", when, call, n)
		}
	}
	applied, calls := r.stub.effects()
	var wrong []string
	for _, c := range op.Endpoint.ExternalCalls {
		if applied[c] != 1 {
			wrong = append(wrong, fmt.Sprintf("%s took effect %d times (%d requests)", c, applied[c], calls[c]))
		}
	}
	if len(wrong) > 0 {
		return "", failf(path, fix, "killed %s at %s, restarted and retried: %s; each external call must take effect exactly once (a repeat must reuse its downstream Idempotency-Key)", when, call, strings.Join(wrong, ", "))
	}
	return fmt.Sprintf("%s %s (%d in-flight answers waited out)", call, strings.TrimSuffix(when, " answered"), conflicts), nil
}

func (resp Response) headerOr(name string) string {
	if resp.Header == nil {
		return ""
	}
	return resp.Header.Get(name)
}
