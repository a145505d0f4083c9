package client

import (
	"bytes"
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/faultserver"
	"github.com/retryspec/retryspec/snippets/suite"
)

// verdict is a gate's judgement of its runs: Fail says what the server saw
// when the gate did not hold, Skip why it could not judge, Note what held.
type verdict struct {
	Note, Fail, Skip string
}

// Tolerances of the judges. waitTolerance is how much sooner than a
// required wait a retry may arrive: timers round (Node's setTimeout may fire
// a millisecond early). The server's gap is never shorter than the
// client's real wait (the answer time is taken before the answer goes
// out), so the lower bounds are exact but for this. Upper bounds take
// suite.Slack: they catch unit mistakes (seconds for milliseconds) and
// ignored caps, not scheduling noise. deadlineTolerance is how long past
// max_elapsed a program may take to exit after giving up.
const (
	waitTolerance     = 5 * time.Millisecond
	deadlineTolerance = time.Second
)

// judge is the context every gate's judge reads: the policy, and the
// contract's idempotency section for where the key travels.
type judge struct {
	p    snippets.Policy
	id   contract.Idempotency
	runs []Trial
}

// fail collects the problems of a judge, one per line.
type problems []string

func (ps *problems) add(format string, args ...any) { *ps = append(*ps, fmt.Sprintf(format, args...)) }

func (ps problems) verdict(note string) verdict {
	if len(ps) == 0 {
		return verdict{Note: note}
	}
	return verdict{Fail: strings.Join(ps, "\n")}
}

// expectOutcome checks a run against its scenario's request count and
// exit status; lo overrides the scenario's lowest acceptable count when
// positive.
func expectOutcome(r Trial, lo int) string {
	sc := r.Scenario
	lo = cmp.Or(lo, sc.MinRequests, sc.Requests)
	var bad []string
	if n := len(r.Attempts); n < lo || n > sc.Requests {
		want := strconv.Itoa(sc.Requests)
		if lo != sc.Requests {
			want = fmt.Sprintf("%d to %d", lo, sc.Requests)
		}
		bad = append(bad, fmt.Sprintf("the server saw %d %s, want %s", n, plural(n, "attempt", "attempts"), want))
	}
	if sc.Success && r.ExitCode != 0 {
		bad = append(bad, fmt.Sprintf("the program exited %d after the final success, want 0", r.ExitCode))
	}
	if !sc.Success && r.ExitCode == 0 {
		bad = append(bad, "the program exited 0, want non-zero: the client must give up here and say so")
	}
	if len(bad) == 0 {
		return ""
	}
	return r.describe(strings.Join(bad, "; "))
}

// outcomes is the judge of gates whose scenarios demand a request count
// and an exit status and nothing more; lo, when positive, is the fewest
// attempts accepted.
func outcomes(note string, lo int) func(j judge) verdict {
	return func(j judge) verdict {
		var ps problems
		for _, r := range j.runs {
			if s := expectOutcome(r, lo); s != "" {
				ps = append(ps, s)
			}
		}
		return ps.verdict(note)
	}
}

// describe is a failure of one run: the scenario, the faults it scripted,
// what went wrong and every attempt the server saw.
func (r Trial) describe(what string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario %s (%s): %s", r.label(), scriptText(r.Scenario.Script), what)
	b.WriteString("\n  attempts seen:")
	if len(r.Attempts) == 0 {
		b.WriteString(" none")
	}
	for i, a := range r.Attempts {
		fmt.Fprintf(&b, "\n    #%d  +%s  key %s%s  -> %s", i+1, ms(a.Arrived.Sub(r.Attempts[0].Arrived)), keyText(a), firstSentText(a), answerText(a))
	}
	b.WriteString("\n  its last output lines:\n" + indent(orNothing(r.Output), "    "))
	return b.String()
}

func (r Trial) label() string {
	if r.Of > 1 {
		return fmt.Sprintf("%s (run %d of %d)", r.Scenario.Name, r.Index, r.Of)
	}
	return r.Scenario.Name
}

func keyText(a faultserver.Request) string {
	if a.RawKey == "" {
		return "(none)"
	}
	return strconv.Quote(a.RawKey)
}

// firstSentText is the attempt's first-sent header, when the contract asks
// for one and the attempt carried it.
func firstSentText(a faultserver.Request) string {
	if a.FirstSent == "" {
		return ""
	}
	return "  first-sent " + strconv.Quote(a.FirstSent)
}

func answerText(a faultserver.Request) string {
	switch {
	case a.ClientGone:
		return "held; the client hung up"
	case a.Step.Reset:
		return "connection reset"
	case a.Step.RetryAfter != "":
		return fmt.Sprintf("%d, Retry-After: %s", a.Step.Status, a.Step.RetryAfter)
	}
	return strconv.Itoa(a.Step.Status)
}

func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sameKey: one key on every attempt of a call, a new key for every call,
// the request repeated as it was.
func sameKey(j judge) verdict {
	var ps problems
	firstUse := map[string]string{}
	for _, r := range j.runs {
		key := r.Attempts[0].Key
		var bad []string
		if r.Attempts[0].RawKey == "" {
			bad = append(bad, "attempt 1 carries no key in "+j.id.KeyPlace())
		}
		if j.p.SFString && !j.p.KeyInBody && r.Attempts[0].RawKey != "" && !strings.HasPrefix(r.Attempts[0].RawKey, `"`) {
			bad = append(bad, fmt.Sprintf("the key %q is not an RFC 8941 string (idempotency.header_value: sf-string)", r.Attempts[0].RawKey))
		}
		if j.p.MaxKeyLength > 0 && len(key) > j.p.MaxKeyLength {
			bad = append(bad, fmt.Sprintf("the key has %d characters, past max_key_length %d", len(key), j.p.MaxKeyLength))
		}
		for i, a := range r.Attempts[1:] {
			if a.Key != key {
				bad = append(bad, fmt.Sprintf("attempt %d carries another key than attempt 1 in %s: every retry of one call must send its key", i+2, j.id.KeyPlace()))
				break
			}
			if !bytes.Equal(a.Body, r.Attempts[0].Body) {
				bad = append(bad, fmt.Sprintf("attempt %d sent another body than attempt 1: a retry repeats the request", i+2))
				break
			}
		}
		if prev, ok := firstUse[key]; ok && key != "" {
			bad = append(bad, fmt.Sprintf("its key is the key of scenario %s: each logical call needs a fresh key, or the server replays the first call's answer", prev))
		} else {
			firstUse[key] = r.label()
		}
		if len(bad) > 0 {
			ps = append(ps, r.describe(strings.Join(bad, "; ")))
		}
	}
	return ps.verdict(fmt.Sprintf("one key per call in %d runs, a new key each", len(j.runs)))
}

// wait is one retry's wait as the server saw it: from the moment the
// answer to attempt n started going out to the arrival of attempt n+1.
type wait struct {
	run        Trial
	n          int
	gap        time.Duration
	lo, hi     time.Duration
	retryAfter time.Duration // set when the answer asked for this wait
}

// waits lists the waits of the runs: those the client chose by its
// backoff (after any answer without Retry-After), and those the answer
// asked for. Waits after a hung attempt are left out: the server cannot
// see when the client hung up.
func waits(p snippets.Policy, runs []Trial) (backoff, asked []wait) {
	for _, r := range runs {
		prev := p.Base
		for i := 0; i+1 < len(r.Attempts); i++ {
			a := r.Attempts[i]
			if a.Answered.IsZero() {
				continue
			}
			w := wait{run: r, n: i + 1, gap: r.Attempts[i+1].Arrived.Sub(a.Answered)}
			if a.Step.RetryAfter != "" {
				secs, _ := strconv.Atoi(a.Step.RetryAfter)
				w.retryAfter = time.Duration(secs) * time.Second
				asked = append(asked, w)
				continue
			}
			w.lo, w.hi = suite.Envelope(p, w.n, prev)
			prev = w.gap
			backoff = append(backoff, w)
		}
	}
	return backoff, asked
}

func (w wait) String() string {
	return fmt.Sprintf("scenario %s, wait after attempt %d: %s", w.run.label(), w.n, ms(w.gap))
}

// backoffSchedule: every wait the client chose lies in the jitter envelope
// (up to scheduling slack above it), and the client waits at all.
func backoffSchedule(j judge) verdict {
	ws, _ := waits(j.p, j.runs)
	if len(ws) == 0 {
		return verdict{Skip: "no run retried after an answer without Retry-After, so no backoff wait was observed (the retry gates say why)"}
	}
	var ps problems
	hurried := 0
	for _, w := range ws {
		switch {
		case w.gap < w.lo-waitTolerance:
			ps.add("%s, sooner than the %s jitter envelope [%s, %s] allows\n%s", w, j.p.Jitter, ms(w.lo), ms(w.hi), w.run.describe("retried too soon"))
		case w.gap > w.hi+suite.Slack:
			ps.add("%s, far past the %s jitter envelope [%s, %s] (cap %s)\n%s", w, j.p.Jitter, ms(w.lo), ms(w.hi), ms(j.p.Cap), w.run.describe("waited too long"))
		}
		if w.gap < w.hi/10 {
			hurried++
		}
	}
	// Full jitter allows a wait near zero, but not every time: with eight
	// waits each under a tenth of its envelope the chance is 1e-8.
	if len(ws) >= 8 && hurried == len(ws) {
		ps.add("all %d waits were under a tenth of their envelope: the client retries without backing off", len(ws))
	}
	return ps.verdict(fmt.Sprintf("%d waits inside the %s jitter envelope", len(ws), j.p.Jitter))
}

// jitterSpread: the waits are random. With full or equal jitter a wait
// without jitter is the envelope's top, and the server never sees a wait
// shorter than the client's, so one wait clearly under the top proves
// jitter. Decorrelated jitter grows from the last wait, so there the first
// waits of the runs must differ.
func jitterSpread(j judge) verdict {
	if j.p.Jitter == "none" {
		return verdict{Skip: "the contract's jitter is none: every client waits the same"}
	}
	ws, _ := waits(j.p, j.runs)
	if len(ws) < 3 {
		return verdict{Skip: fmt.Sprintf("only %d backoff waits were observed; raise --runs to judge the jitter", len(ws))}
	}
	if j.p.Jitter == "decorrelated" {
		var first []wait
		for _, w := range ws {
			if w.n == 1 {
				first = append(first, w)
			}
		}
		if len(first) < 2 {
			return verdict{Skip: "fewer than two runs waited after their first attempt; raise --runs"}
		}
		lo, hi := first[0].gap, first[0].gap
		for _, w := range first {
			lo, hi = min(lo, w.gap), max(hi, w.gap)
		}
		if need := max(10*time.Millisecond, (first[0].hi-first[0].lo)/4); hi-lo < need {
			return verdict{Fail: fmt.Sprintf("the first waits of %d runs lie within %s of each other (%s to %s), want a spread of at least %s: the client does not randomize its waits", len(first), ms(hi-lo), ms(lo), ms(hi), ms(need))}
		}
		return verdict{Note: fmt.Sprintf("first waits spread over %s across %d runs", ms(hi-lo), len(first))}
	}
	under := 0
	var lines []string
	for _, w := range ws {
		if w.gap < w.hi-waitTolerance-w.hi/50 {
			under++
		}
		lines = append(lines, fmt.Sprintf("  %s (envelope top %s)", w, ms(w.hi)))
	}
	if under == 0 {
		return verdict{Fail: fmt.Sprintf("every one of the %d backoff waits was at least its envelope's top: the client waits a fixed schedule, so clients that failed together retry together\n%s", len(ws), strings.Join(lines, "\n"))}
	}
	return verdict{Note: fmt.Sprintf("%d of %d waits under their envelope's top", under, len(ws))}
}

// retryAfter: a wait the answer asked for is waited in full, and the 429
// scenario recovers.
func retryAfter(j judge) verdict {
	if len(j.p.RetryAfterStatuses) == 0 {
		return verdict{Skip: "the contract does not ask clients to honour Retry-After (honor_retry_after is off, or neither 429 nor 503 is retried)"}
	}
	var ps problems
	_, asked := waits(j.p, j.runs)
	for _, w := range asked {
		switch {
		case w.gap < w.retryAfter-waitTolerance:
			ps.add("%s, sooner than the %s the answer's Retry-After asked for\n%s", w, w.retryAfter, w.run.describe("Retry-After not honoured"))
		case w.gap > w.retryAfter+suite.Slack:
			ps.add("%s, far past the %s the answer's Retry-After asked for\n%s", w, w.retryAfter, w.run.describe("Retry-After read in the wrong unit"))
		}
	}
	for _, r := range j.runs {
		if r.Scenario.Kind == suite.KindRetryAfter {
			if s := expectOutcome(r, 0); s != "" {
				ps = append(ps, s)
			}
		}
	}
	return ps.verdict(fmt.Sprintf("%d Retry-After waits honoured", len(asked)))
}

// maxAttempts: the client stops at max_attempts, sooner only when its
// deadline is near, and says it gave up.
func maxAttempts(j judge) verdict {
	var ps problems
	for _, r := range j.runs {
		n := len(r.Attempts)
		span := r.Attempts[n-1].Arrived.Sub(r.Attempts[0].Arrived)
		switch {
		case n > j.p.MaxAttempts:
			ps = append(ps, r.describe(fmt.Sprintf("%d attempts, past max_attempts %d", n, j.p.MaxAttempts)))
		case n < j.p.MaxAttempts && span < j.p.MaxElapsed-j.p.Cap:
			ps = append(ps, r.describe(fmt.Sprintf("the client stopped after %d of max_attempts %d, %s into a max_elapsed of %s", n, j.p.MaxAttempts, ms(span), j.p.MaxElapsed)))
		case r.ExitCode == 0:
			ps = append(ps, r.describe("the program exited 0 after every attempt failed, want non-zero"))
		}
	}
	return ps.verdict(fmt.Sprintf("stopped at %d attempts", j.p.MaxAttempts))
}

// maxElapsed: no attempt starts after the deadline, and the program ends
// by it: a client must give up before a wait that cannot fit, not sleep
// through it.
func maxElapsed(j judge) verdict {
	var ps problems
	for _, r := range j.runs {
		first := r.Attempts[0].Arrived
		last := r.Attempts[len(r.Attempts)-1].Arrived
		end := r.Started.Add(r.Elapsed)
		switch {
		case last.Sub(first) > j.p.MaxElapsed:
			ps = append(ps, r.describe(fmt.Sprintf("an attempt started %s after the first, past max_elapsed %s", ms(last.Sub(first)), j.p.MaxElapsed)))
		case end.Sub(first) > j.p.MaxElapsed+deadlineTolerance:
			ps = append(ps, r.describe(fmt.Sprintf("the program ended %s after its first attempt, past max_elapsed %s: it slept through a wait that could not fit", ms(end.Sub(first)), j.p.MaxElapsed)))
		case r.ExitCode == 0:
			ps = append(ps, r.describe("the program exited 0 without a success, want non-zero"))
		}
	}
	return ps.verdict("stopped within max_elapsed " + j.p.MaxElapsed.String())
}

// attemptTimeout: a hung attempt is abandoned at attempt_timeout and
// retried with the same key (sameKey checks the key).
func attemptTimeout(j judge) verdict {
	var ps problems
	for _, r := range j.runs {
		if s := expectOutcome(r, 0); s != "" {
			ps = append(ps, s)
			continue
		}
		gap := r.Attempts[1].Arrived.Sub(r.Attempts[0].Arrived)
		switch {
		case !r.Attempts[0].ClientGone:
			ps = append(ps, r.describe("attempt 1 hung but the client did not hang up"))
		case gap < j.p.AttemptTimeout/2 || gap > j.p.AttemptTimeout+j.p.Cap+suite.Slack:
			ps = append(ps, r.describe(fmt.Sprintf("attempt 1 hung; the retry came %s later, want attempt_timeout %s plus a wait", ms(gap), j.p.AttemptTimeout)))
		}
	}
	return ps.verdict("hung attempt abandoned at attempt_timeout " + j.p.AttemptTimeout.String())
}

// firstSent: every attempt carries the first-sent header as an IMF-fixdate
// HTTP date (the form RFC 9110 requires senders to use), every retry of a
// key repeats the value its key's first attempt carried, and that value is
// a stamp of the call's own start, not a fixed date: between the
// program's start and the arrival of the key's first attempt (an HTTP
// date drops the fraction of its second, hence a second's margin).
func firstSent(j judge) verdict {
	if j.p.FirstSentHeader == "" {
		return verdict{Skip: "the contract names no first-sent header"}
	}
	var ps problems
	for _, r := range j.runs {
		if bad := firstSentProblems(j.p.FirstSentHeader, r); len(bad) > 0 {
			ps = append(ps, r.describe(strings.Join(bad, "; ")))
		}
	}
	return ps.verdict(fmt.Sprintf("one %s stamp per call in %d runs, repeated on every retry", j.p.FirstSentHeader, len(j.runs)))
}

func firstSentProblems(header string, r Trial) []string {
	var bad []string
	first := map[string]int{} // a key's first attempt (index)
	for i, a := range r.Attempts {
		n, seen := first[a.Key]
		switch {
		case a.FirstSent == "":
			bad = append(bad, fmt.Sprintf("attempt %d carries no %s header", i+1, header))
		case seen && a.FirstSent != r.Attempts[n].FirstSent:
			bad = append(bad, fmt.Sprintf("attempt %d carries %s %q, the first attempt with its key carried %q: a retry repeats the first-sent time, never restamps it", i+1, header, a.FirstSent, r.Attempts[n].FirstSent))
		case !seen:
			bad = append(bad, stampProblems(header, r, i)...)
		}
		if !seen {
			first[a.Key] = i
		}
	}
	return bad
}

// stampProblems checks the first-sent value of attempt i, the first with
// its key: an IMF-fixdate of a time between the program's start and the
// attempt's arrival.
func stampProblems(header string, r Trial, i int) []string {
	a := r.Attempts[i]
	if why := faultserver.StampProblem(a.FirstSent, r.Started, a.Arrived); why != "" {
		return []string{fmt.Sprintf("attempt %d's %s %q %s", i+1, header, a.FirstSent, why)}
	}
	return nil
}
