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
	if n := r.cur.settleNotes; len(n) > 0 {
		r.cur.res.Effects += " (the count moved while settling, judged on the later reading: " + strings.Join(n, "; ") + ")"
	}
}

// original sends the operation's request with a fresh key and insists that
// it succeeds: every later step compares against it.
func (r *runner) original(op Operation, key string, who principal) (Response, *failure) {
	r.cur.originalSent = time.Now()
	resp := r.send(r.opRequest(op, key, op.Body, who), false)
	if resp.Err != nil {
		return resp, &failure{msg: resp.Describe(), err: errUnresponsive}
	}
	if resp.Status/100 != 2 || r.graphQLOriginalFailed(resp) {
		f := failf(r.epPath(op, "operation"),
			fmt.Sprintf("make the plan's request valid for this server (the body at %s:%d, headers, path values)", r.plan.File, op.BodyPos.Line),
			"the plan's request itself did not succeed (%s), so the gate has no original outcome to compare with", resp.Describe())
		return resp, f.because(fmt.Sprintf("the plan's request itself is refused (status %d), so no gate that compares with its outcome can judge the server; fix the body at %s:%d, the headers or the path values first", resp.Status, r.plan.File, op.BodyPos.Line))
	}
	return resp, nil
}

// completed sends the original request with key and reads its settled
// effect count: the starting point of every gate that repeats a request.
func (r *runner) completed(op Operation, key string) (Response, int, bool, *failure) {
	first, f := r.original(op, key, primary)
	if f != nil {
		return first, 0, false, f
	}
	before, ok, f := r.settledCount(op, key, primary)
	return first, before, ok, f
}

func (r *runner) skipMissingKey(op Operation) string {
	if op.Endpoint.Key != contract.KeyRequired {
		return "the endpoint has key: " + string(op.Endpoint.Key) + "; a request without a key is allowed"
	}
	return ""
}

func (r *runner) gateMissingKey(op Operation) (string, *failure) {
	if r.c.Idempotency.InGraphQL() {
		return r.gateMissingKeyGraphQL(op)
	}
	want := r.c.Idempotency.Conflicts.MissingKey
	r.cur.res.Effects = "not observed: a request without a key cannot be counted by key"
	resp := r.send(r.opRequest(op, "", op.Body, primary), false)
	if resp.Err != nil {
		return "", &failure{msg: resp.Describe(), err: errUnresponsive}
	}
	if !r.matches(resp, want) {
		msg := fmt.Sprintf("a request without %s got %s; the contract promises %s", r.keyName(), resp.Describe(), conflictText(want))
		if resp.Status/100 == 2 {
			msg = fmt.Sprintf("a request without %s was accepted (%s): it ran with no key to protect its retries; the contract promises %s", r.keyName(), resp.Describe(), conflictText(want))
		}
		place := "the header"
		if r.c.Idempotency.InBody() {
			place = r.keyName()
		}
		f := failf("idempotency.conflicts.missing_key", "refuse requests without "+place+" before any work, with status "+strconv.Itoa(want.Status)+" and code "+want.Code, "%s", msg)
		if resp.Status/100 == 2 {
			f.because(causeUnwrapped)
		}
		return "", f
	}
	r.cur.res.Reason = "answered " + conflictText(want)
	return "", nil
}

func (r *runner) skipKeyTooLong(op Operation) string {
	if max := r.c.MaxKeyLengthFor(op.Endpoint); max <= 0 || max >= 8192 {
		return "the contract sets no usable max_key_length"
	}
	return ""
}

// countedSend is one request's answer and op's effect count around it; ok
// says whether the count was observed.
type countedSend struct {
	resp          Response
	before, after int
	ok            bool
}

// sendCounted counts op's effects under key, sends req, counts again once
// the count settles and notes both for the report; what names the request
// in that note.
func (r *runner) sendCounted(op Operation, key string, req Request, what string) (countedSend, *failure) {
	before, ok, f := r.count(op, key, primary)
	if f != nil {
		return countedSend{}, f
	}
	resp := r.send(req, false)
	if resp.Err != nil {
		return countedSend{}, &failure{msg: resp.Describe(), err: errUnresponsive}
	}
	after, _, f := r.settledCount(op, key, primary)
	if f != nil {
		return countedSend{}, f
	}
	r.observe(before, after, ok, what)
	return countedSend{resp, before, after, ok}, nil
}

func (r *runner) gateKeyTooLong(op Operation) (string, *failure) {
	max := r.c.MaxKeyLengthFor(op.Endpoint)
	key := newKey(max + 1)
	c, f := r.sendCounted(op, key, r.opRequest(op, key, op.Body, primary), "")
	if f != nil {
		return "", f
	}
	resp, before, after, ok := c.resp, c.before, c.after, c.ok
	want := r.c.Idempotency.Conflicts.InvalidKey
	fix := fmt.Sprintf("refuse keys longer than %d characters with %s before claiming them; never truncate a key", max, conflictText(want))
	path := "idempotency.max_key_length"
	if op.Endpoint.MaxKeyLength > 0 {
		path = r.epPath(op, "max_key_length")
	}
	if !r.matches(resp, want) {
		what := "the contract promises " + conflictText(want) + " (idempotency.conflicts.invalid_key)"
		if resp.Status/100 == 2 {
			what = "it was accepted: a server that truncates makes two long keys one; " + what
		}
		return "", failf(path, fix, "a key of %d characters (max_key_length is %d) got %s; %s", max+1, max, resp.Describe(), what)
	}
	if ok && after != before {
		return "", failf(path, fix, "a key of %d characters was refused (%d) but still caused %d effect(s)", max+1, resp.Status, after-before)
	}
	r.cur.res.Reason = "refused with " + conflictText(want)
	return "", nil
}

func (r *runner) gateReplay(op Operation) (string, *failure) {
	key := newKey(r.keyLen(op))
	first, before, ok, f := r.completed(op, key)
	if f != nil {
		return "", f
	}
	r.resetStub()
	again := r.send(r.opRequest(op, key, op.Body, primary), false)
	if again.Err != nil {
		return "", &failure{msg: again.Describe(), err: errUnresponsive}
	}
	if skip := r.pastWindow(r.cur.originalSent); skip != "" {
		return skip, nil
	}
	after, _, f := r.settledCount(op, key, primary)
	if f != nil {
		return "", f
	}
	if ext := r.externalCalls(); ext != "" {
		return "", failf("idempotency.stored_response", "on a completed key, replay the stored response instead of running the handler again",
			"repeating the completed request made external calls again (%s): the handler ran again", ext).because(causeUnwrapped)
	}
	r.observe(before, after, ok, " the repeat")
	fix := "store status and body bytes when the request completes, and write them back unchanged on a repeat with the same key"
	switch {
	case ok && after != before:
		return "", failf("idempotency.stored_response", "on a completed key, replay the stored response instead of running the handler again",
			"repeating the completed request caused a new effect (count %d -> %d): the handler ran again", before, after).because(causeUnwrapped)
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

func (r *runner) skipMismatch(op Operation) string {
	switch {
	case r.c.Idempotency.Fingerprint == contract.FingerprintNone:
		return "the contract has fingerprint: none, so a mismatched body is not detected by design"
	case mismatchBody(op) == nil:
		return "the body has no number to change; set mismatch_body in the plan"
	}
	return ""
}

// mismatchBody is the body the mismatch gate sends under a used key: the
// plan's mismatch_body, else the body with its first number changed.
func mismatchBody(op Operation) []byte {
	if op.MismatchBody != nil {
		return op.MismatchBody
	}
	return incrementFirstNumber(op.Body)
}

func (r *runner) gateMismatch(op Operation) (string, *failure) {
	other := mismatchBody(op)
	want := r.c.Idempotency.Conflicts.PayloadMismatch
	key := newKey(r.keyLen(op))
	first, before, ok, f := r.completed(op, key)
	if f != nil {
		return "", f
	}
	r.resetStub()
	resp := r.send(r.opRequest(op, key, other, primary), false)
	if resp.Err != nil {
		return "", &failure{msg: resp.Describe(), err: errUnresponsive}
	}
	if skip := r.pastWindow(r.cur.originalSent); skip != "" {
		return skip, nil
	}
	after, _, f := r.settledCount(op, key, primary)
	if f != nil {
		return "", f
	}
	if ext := r.externalCalls(); ext != "" {
		return "", failf("idempotency.conflicts.payload_mismatch", "compare the fingerprint before any work and refuse a mismatch with "+conflictText(want),
			"the same key with another body made external calls (%s): the mismatched request ran", ext).because(causeUnwrapped)
	}
	r.observe(before, after, ok, " the mismatched request")
	fix := "store a fingerprint (sha256 of the body) with the claim and answer " + conflictText(want) + " when a key returns with another body"
	if !r.matches(resp, want) {
		if resp.Status/100 == 2 && !resp.sameValue(first) {
			return "", failf("idempotency.conflicts.payload_mismatch", fix, "the same key with another body got %s, a new outcome: the mismatched request ran; the contract promises %s", resp.Describe(), conflictText(want)).because(causeUnwrapped)
		}
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

func (r *runner) skipScope(Operation) string {
	if r.plan.OtherPrincipal == nil {
		return "the plan has no other_principal, so there is no second caller to test the key's scope with"
	}
	return ""
}

func (r *runner) gateScope(op Operation) (string, *failure) {
	key := newKey(r.keyLen(op))
	first, before, ok, f := r.completed(op, key)
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
	if skip := r.pastWindow(r.cur.originalSent); skip != "" && r.c.Idempotency.Scope == contract.ScopeGlobal {
		return skip, nil
	}
	after, _, f := r.settledCount(op, key, primary)
	if f != nil {
		return "", f
	}
	otherAfter, _, f := r.count(op, key, other)
	if f != nil {
		return "", f
	}
	r.observe(before, after, ok, fmt.Sprintf(" for the first caller; %d before, %d after for the other", otherBefore, otherAfter))
	s := scopeSeen{op: op, first: first, resp: resp, counted: ok, before: before, after: after, otherBefore: otherBefore, otherAfter: otherAfter}
	if r.c.Idempotency.Scope == contract.ScopeGlobal {
		return "", r.scopeGlobal(s)
	}
	return r.scopeAccount(s)
}

// scopeSeen is what the scope gate saw: the first caller's response, the
// other caller's to the same key, and both callers' effect counts.
type scopeSeen struct {
	op                                     Operation
	first, resp                            Response
	counted                                bool
	before, after, otherBefore, otherAfter int
}

// scopeGlobal judges scope: global: the other caller's use of the key is
// the same key, so it gets a conflict or the replay, and no new effect.
func (r *runner) scopeGlobal(s scopeSeen) *failure {
	isReplay := s.resp.Status == s.first.Status && s.resp.sameValue(s.first)
	if !isReplay && s.resp.Status/100 != 4 && !r.graphQLRefused(s.resp) {
		return failf("idempotency.scope", "look keys up by the key alone, as scope: global promises, or change the contract to scope: account",
			"with scope: global, the same key from another caller got %s, neither a conflict nor a replay", s.resp.Describe())
	}
	if s.counted && s.after != s.before {
		return failf("idempotency.scope", "look keys up by the key alone", "with scope: global, the other caller's request caused a new effect")
	}
	r.cur.res.Reason = "the other caller got a conflict or a replay"
	return nil
}

const scopeAccountFix = "key the claim table and every lookup on (account_id, idempotency_key)"

// scopeAccount judges scope: account: the other caller's key is its own,
// so its request runs: by the effects when the plan counts them, else by
// the body and the replay header.
func (r *runner) scopeAccount(s scopeSeen) (string, *failure) {
	if s.resp.Status/100 != 2 {
		return "", failf("idempotency.scope", scopeAccountFix, "with scope: account, another caller's first use of a key got %s; its key should be its own", s.resp.Describe())
	}
	if s.counted {
		return "", r.scopeAccountByEffects(s)
	}
	if h := r.c.Idempotency.ReplayHeader; h != "" && s.resp.Header.Get(h) != "" {
		return "", failf("idempotency.scope", scopeAccountFix, "with scope: account, another caller's first use of a key was answered as a replay (%s: %s): one account's answer leaked to another", h, s.resp.Header.Get(h))
	}
	if !s.resp.SameBody(s.first) {
		r.cur.res.Reason = "the other caller got an outcome of its own (judged by the body: the plan counts no effects)"
		return "", nil
	}
	return r.scopeSameBody(s)
}

// scopeAccountByEffects: effects decide: the other caller's own count
// moved by one and the first's did not, whatever the bodies look like (a
// 204, a constant body).
func (r *runner) scopeAccountByEffects(s scopeSeen) *failure {
	if s.otherAfter-s.otherBefore == 1 && s.after == s.before {
		r.cur.res.Reason = "the other caller's request made one effect of its own"
		return nil
	}
	what := "the other caller's request should make one effect of its own"
	if s.otherAfter == s.otherBefore && s.resp.SameBody(s.first) {
		what = "another caller using the same key got the first caller's stored response and made no effect: one account's answer leaked to another and its own request never ran"
	}
	return failf("idempotency.scope", scopeAccountFix, "with scope: account, %s: other caller %d -> %d, first caller %d -> %d", what, s.otherBefore, s.otherAfter, s.before, s.after)
}

// scopeSameBody: the other caller got the first caller's bytes: a leak,
// or a body that is the same for every request (a 204, {"status": "ok"}).
// A fresh key from the first caller tells which.
func (r *runner) scopeSameBody(s scopeSeen) (string, *failure) {
	fresh := r.send(r.opRequest(s.op, newKey(r.keyLen(s.op)), s.op.Body, primary), false)
	if fresh.Err != nil {
		return "", &failure{msg: fresh.Describe(), err: errUnresponsive}
	}
	if fresh.Status == s.first.Status && fresh.SameBody(s.first) {
		r.cur.res.Effects = "not observed: the plan has no effects for this operation"
		return "cannot tell: the endpoint answers every request with the same body, so a response cannot show whose request ran; add effects to the plan for this operation to judge the scope", nil
	}
	return "", failf("idempotency.scope", scopeAccountFix, "with scope: account, another caller using the same key got the first caller's stored response (%s), while a fresh key gets a body of its own: one account's answer leaked to another and its own request never ran", s.resp.Describe())
}

func (resp Response) headerOr(name string) string {
	if resp.Header == nil {
		return ""
	}
	return resp.Header.Get(name)
}
