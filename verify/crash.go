package verify

import (
	"fmt"
	"strings"
	"time"

	"github.com/retryspec/retryspec/contract"
)

// killPoint is one place the crash gate kills the server: at an external
// call (on its arrival at the stub, once applied, once answered), or a
// delay after the request was sent (the handler's own writes).
type killPoint struct {
	call  string
	phase killPhase
	delay time.Duration
	// share is the delay as a share of the measured request (sweeps), or 0.
	share float64
	// lastWrites marks the delay halfway from the last external call's
	// answer to the response: the handler's last writes.
	lastWrites bool
}

func (k killPoint) String() string {
	if k.call == "" {
		if k.lastWrites {
			return fmt.Sprintf("%s after sending (halfway from the last external call's answer to the response: the handler's last writes)", k.delay.Round(time.Microsecond))
		}
		if k.share > 0 {
			return fmt.Sprintf("%s after sending (%.0f%% of the request's measured duration)", k.delay.Round(time.Microsecond), k.share*100)
		}
		return fmt.Sprintf("%s after sending", k.delay)
	}
	switch k.phase {
	case killOnArrival:
		return "before " + k.call + " (it reached the stub, which had not applied it)"
	case killApplied:
		return "at " + k.call + " (applied by the stub, not yet answered)"
	}
	return "after " + k.call + " answered"
}

// callKillPoints are the kill points at each external call: before it,
// during it and after it. Before call n+1 is also the point between the
// commit of call n's phase and the next call.
func callKillPoints(op Operation) []killPoint {
	var out []killPoint
	for _, c := range op.Endpoint.ExternalCalls {
		for _, ph := range []killPhase{killOnArrival, killApplied, killAnswered} {
			out = append(out, killPoint{call: c, phase: ph})
		}
	}
	return out
}

func (r *runner) skipCrash(op Operation) string {
	switch {
	case r.restartSkip(op) != "":
		return r.restartSkip(op)
	case !canKillGroups:
		return "this system has no process groups to kill the server with"
	case r.c.Idempotency.InFlight != nil && r.c.Idempotency.InFlight.Takeover == contract.TakeoverNone:
		return "the contract has in_flight.takeover: none, so a claim whose server was killed is never taken over: by the contract's own terms a retry after a crash gets the in-flight conflict for ever, and the gate has no recovery to test (check reports the missing takeover)"
	}
	return ""
}

func (r *runner) gateCrash(op Operation) (string, *failure) {
	if skip := r.crashBudget(); skip != "" {
		return skip, nil
	}
	points := callKillPoints(op)
	delays, f := r.delayKillPoints(op)
	if f != nil {
		return "", f
	}
	points = append(points, delays...)
	trials := max(1, r.o.CrashTrials)
	var ran, vacuous []string
	for _, kp := range points {
		for range trials {
			note, vac, f := r.crashTrial(op, kp)
			if f != nil {
				return "", f
			}
			if vac {
				vacuous = append(vacuous, note)
			} else {
				ran = append(ran, note)
			}
		}
	}
	if len(ran) == 0 {
		return "every kill landed after the request had completed, so no trial tested recovery: " + strings.Join(vacuous, "; ") + "; set crash.delays in the plan to kill earlier", nil
	}
	reason := fmt.Sprintf("%d kill points recovered: %s", len(ran), strings.Join(ran, "; "))
	if len(vacuous) > 0 {
		reason += fmt.Sprintf("; %d vacuous (the request had completed before the kill, so they tested nothing): %s", len(vacuous), strings.Join(vacuous, "; "))
	}
	r.cur.res.Reason = reason
	if op.Effects != nil {
		r.cur.res.Effects = fmt.Sprintf("observed: 1 after each of the %d trials that killed the request", len(ran))
	}
	return "", nil
}

// delayKillPoints are the plan's crash.delays, or a sweep over a measured
// request's duration (crash.sweep points, default DefaultCrashSweep).
func (r *runner) delayKillPoints(op Operation) ([]killPoint, *failure) {
	var out []killPoint
	for _, d := range r.plan.Crash.Delays {
		out = append(out, killPoint{delay: d})
	}
	if len(out) > 0 || r.plan.Crash.Sweep == 0 {
		return out, nil
	}
	// The shortest of five requests: the first after a start is often
	// slow, and on a loaded machine a few more are; a sweep over a slow
	// one kills after the typical request completed (vacuous trials).
	var took, lastAnswer time.Duration
	for i := range 5 {
		r.stub.reset()
		start := time.Now()
		if _, f := r.original(op, newKey(r.keyLen(op)), primary); f != nil {
			return nil, f
		}
		if d := time.Since(start); i == 0 || d < took {
			took, lastAnswer = d, 0
			if at := r.stub.lastAnswer(); !at.IsZero() && at.After(start) {
				lastAnswer = at.Sub(start)
			}
		}
	}
	n := r.plan.Crash.Sweep
	for i := 1; i <= n; i++ {
		share := float64(i) / float64(n+1)
		out = append(out, killPoint{delay: time.Duration(float64(took) * share), share: share})
	}
	// After the last external call answered, a handler still writes
	// (its own row, the stored response): a server that reruns the
	// handler on retry makes its effect twice when killed there.
	if lastAnswer > 0 && lastAnswer < took {
		out = append(out, killPoint{delay: lastAnswer + (took-lastAnswer)/2, lastWrites: true})
	}
	return out, nil
}

// crashBudget says why the crash gate cannot reach a verdict in what is
// left of this run, from the lock_timeout a killed request's claim holds
// for, or "".
func (r *runner) crashBudget() string {
	in := r.c.Idempotency.InFlight
	if in == nil {
		return ""
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

const crashFix = "record a recovery point and the downstream Idempotency-Key for each external call before making it; on retry, resume from the last recovery point and reuse that key; store the response in the same transaction as the work; take over a claim whose owner died"

// crashTrial kills the server at kp during a request with a fresh key,
// restarts it, retries the request and judges the outcome. vacuous is set
// when the request completed before the kill: the trial tested nothing.
func (r *runner) crashTrial(op Operation, kp killPoint) (note string, vacuous bool, _ *failure) {
	path := r.epPath(op, "recovery_points")
	if kp.call != "" {
		path = r.epPath(op, "external_calls")
	}
	key := newKey(r.keyLen(op))
	r.stub.reset()
	req := r.opRequest(op, key, op.Body, primary)
	var killedAt int
	var answered string
	if kp.call != "" {
		at, f := r.killAtCall(op, req, kp, path)
		if f != nil {
			return "", false, f
		}
		killedAt = at
	} else {
		at, note, killed := r.killAfterDelay(req, kp)
		if !killed {
			return note, true, nil
		}
		killedAt, answered = at, note
	}
	recorded, f := r.restartAfterKill(kp, killedAt, path)
	if f != nil {
		return "", false, f
	}
	if answered != "" {
		return answered, true, nil
	}
	_, conflicts, f := r.retryAfterCrash(op, req, kp)
	if f != nil {
		return "", false, f
	}
	if f := r.judgeRecovery(op, kp, key, killedAt, recorded); f != nil {
		return "", false, f
	}
	return fmt.Sprintf("%s (%d in-flight answers waited out)", kp, conflicts), false, nil
}

// killAtCall sends req with a trap armed at the stub, which kills the
// server when the request reaches kp's external call and phase, and
// returns the stub's log position at the kill. A request that fails or
// completes without making the call fails the trial: the crash could not
// be placed.
func (r *runner) killAtCall(op Operation, req Request, kp killPoint, path string) (killedAt int, _ *failure) {
	t := &trap{call: kp.call, phase: kp.phase, kill: r.proc.kill, fired: make(chan struct{})}
	r.stub.arm(t)
	resp := r.send(req, true)
	select {
	case <-t.fired:
		return t.at, nil
	case <-time.After(r.plan.RequestTimeout):
	}
	r.stub.arm(nil)
	if resp.Err != nil {
		return 0, failf(path, crashFix, "the server failed before it called %s: %s", kp.call, resp.Describe())
	}
	return 0, failf(r.epPath(op, "external_calls"), "make the endpoint call each external service through RETRYSPEC_EXTERNAL_URL/<call name>",
		"the request completed (%s) without calling %s at RETRYSPEC_EXTERNAL_URL/%s, so the crash could not be placed; the contract lists it in external_calls", resp.Describe(), kp.call, kp.call)
}

// killAfterDelay kills the server kp.delay after sending req and returns
// the stub's log position at the kill. killed is false when the request
// completed before the timer fired (nothing was killed); answered is set
// when the whole answer still arrived. Either way note says so.
func (r *runner) killAfterDelay(req Request, kp killPoint) (killedAt int, note string, killed bool) {
	kills := make(chan int, 1)
	timer := time.AfterFunc(kp.delay, func() {
		at := r.stub.mark()
		r.proc.kill()
		kills <- at
	})
	start := time.Now()
	resp := r.send(req, true)
	if timer.Stop() {
		return 0, fmt.Sprintf("%s: the request had completed (%d) in %s, before the kill", kp, resp.Status, time.Since(start).Round(time.Microsecond)), false
	}
	killedAt = <-kills
	if resp.Err == nil {
		// The whole answer arrived, so the handler had finished before
		// the kill landed: a retry would test a restart (restart-replay's
		// question), not recovery from a crash between phases.
		note = fmt.Sprintf("%s: the request had completed (%d) as the kill landed", kp, resp.Status)
	}
	return killedAt, note, true
}

// restartAfterKill refuses a server that outlived the kill (it runs
// outside the group; that ends the run), takes the external calls the
// stub had recorded before the kill, and restarts the server.
func (r *runner) restartAfterKill(kp killPoint, killedAt int, path string) (recorded []string, _ *failure) {
	if r.proc.escaped != nil {
		r.aborted = r.proc.escaped
		return nil, &failure{msg: r.proc.escaped.Error(), err: errUnresponsive}
	}
	recorded = r.stub.recordedBefore(killedAt)
	r.client.CloseIdleConnections()
	if err := r.proc.start(r.ctx); err != nil {
		return nil, failf(path, "make the server start cleanly on a store left by a killed process", "after being killed %s, the server did not restart: %v", kp, err)
	}
	return recorded, nil
}

// judgeRecovery judges the retried request: one effect, each external
// call taking effect once, and no second request for a call whose result
// was recorded before the kill.
func (r *runner) judgeRecovery(op Operation, kp killPoint, key string, killedAt int, recorded []string) *failure {
	if n, ok, f := r.settledCount(op, key, primary); f != nil {
		return f
	} else if ok {
		r.cur.res.Effects = fmt.Sprintf("observed: %d after the trial killed the server %s", n, kp)
		if n != 1 {
			return failf(r.epPath(op, "recovery_points"), crashFix, "killed %s, restarted and retried: the request made %d effects, not 1 (the work ran again instead of resuming from its recovery point)", kp, n)
		}
	}
	if f := r.externalCallsOnce(op, kp); f != nil {
		return f
	}
	again := r.stub.arrivalsSince(killedAt)
	var repeated []string
	for _, c := range recorded {
		if again[c] > 0 {
			repeated = append(repeated, fmt.Sprintf("%s (%d more requests)", c, again[c]))
		}
	}
	if len(repeated) > 0 {
		return failf(r.epPath(op, "recovery_points"), "commit each call's result with its recovery point, and on resume skip every call whose result is recorded",
			"killed %s, restarted and retried: the server called again what it had already recorded: %s; the server had made a later call after each of them, so its result was stored, and a resumed request must make no further request for it at all", kp, strings.Join(repeated, ", "))
	}
	return nil
}

// externalCallsOnce fails a crash trial unless each of the endpoint's
// external calls took effect exactly once at the stub: with the provider's
// keys (crash.provider_keys, true by default) a repeat that reuses its
// downstream key is one effect; without them every request is one.
func (r *runner) externalCallsOnce(op Operation, kp killPoint) *failure {
	applied, calls := r.stub.effects()
	var wrong []string
	for _, c := range op.Endpoint.ExternalCalls {
		if applied[c] != 1 {
			wrong = append(wrong, fmt.Sprintf("%s took effect %d times (%d requests)", c, applied[c], calls[c]))
		}
	}
	if len(wrong) == 0 {
		return nil
	}
	why := "a repeat must reuse its downstream Idempotency-Key"
	if r.stub.unkeyed {
		why = "the plan says the provider has no idempotency keys, so every request to it is an effect"
	}
	return failf(r.epPath(op, "external_calls"), crashFix, "killed %s, restarted and retried: %s; each external call must take effect exactly once (%s)", kp, strings.Join(wrong, ", "), why)
}

// retryAfterCrash repeats req until it completes, waiting out the in-flight
// answers (honouring Retry-After) for at most lock_timeout + crashMargin.
func (r *runner) retryAfterCrash(op Operation, req Request, kp killPoint) (Response, int, *failure) {
	last, waits, why, f := r.awaitOutcome(req, "# after restart, the retry:")
	switch {
	case f != nil:
		return last, waits, f
	case why == outcomeRefused:
		return last, waits, failf(r.epPath(op, "recovery_points"), crashFix, "killed %s, restarted; the retry with the same key got %s instead of completing", kp, last.Describe())
	case why == outcomeTimedOut:
		return last, waits, failf(r.epPath(op, "recovery_points"), "take over a claim whose lock is older than lock_timeout (in_flight.takeover) and resume from its recovery point",
			"killed %s, restarted; the retry did not complete within lock_timeout + %s (%s); last answer: %s", kp, crashMargin, r.awaitBound(), last.Describe())
	}
	return last, waits, nil
}

// restartSkip says why verify cannot kill and restart the server, or "".
// It is the restart-replay gate's skip.
func (r *runner) restartSkip(Operation) string {
	switch {
	case r.plan.Server == nil:
		return "the plan has no server: section, so verify cannot kill and restart the server"
	case r.o.BaseURL != "":
		return "--base-url was given, so verify did not start the server and cannot kill it"
	}
	return ""
}

// gateRestartReplay completes a request, kills and restarts the server,
// and replays: a store that lives in the process's memory forgets the key.
func (r *runner) gateRestartReplay(op Operation) (string, *failure) {
	key := newKey(r.keyLen(op))
	first, before, ok, f := r.completed(op, key)
	if f != nil {
		return "", f
	}
	r.proc.kill()
	if r.proc.escaped != nil {
		r.aborted = r.proc.escaped
		return "", &failure{msg: r.proc.escaped.Error(), err: errUnresponsive}
	}
	r.client.CloseIdleConnections()
	if err := r.proc.start(r.ctx); err != nil {
		return "", failf("idempotency.stored_response", "make the server start cleanly on the store a stopped process left", "after a completed request and a restart, the server did not start: %v", err)
	}
	r.cur.repro = append(r.cur.repro, "# the server was killed and restarted here; the replay:")
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
	r.observe(before, after, ok, " the replay after the restart")
	fix := "keep completed keys in a durable store (a database table), not in the process's memory, for the whole replay window"
	switch {
	case ok && after != before:
		return "", failf("idempotency.stored_response", fix, "after a restart, repeating the completed request caused a new effect (count %d -> %d): the server forgot the key when it restarted", before, after)
	case r.externalCalls() != "":
		return "", failf("idempotency.stored_response", fix, "after a restart, repeating the completed request made external calls again (%s): the server forgot the key", r.externalCalls())
	case again.Status != first.Status || !again.sameValue(first):
		// Byte identity is verify/replay's to judge; this gate asks
		// whether the key was remembered at all.
		return "", failf("idempotency.stored_response", fix, "after a restart, the repeat got %s, not the stored response (%d %s)", again.Describe(), first.Status, clip(first.Body))
	}
	r.cur.res.Reason = "the stored response survived a restart"
	return "", nil
}
