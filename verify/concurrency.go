package verify

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/retryspec/retryspec/contract"
)

// conn is one warm connection of the concurrency gate.
type conn struct {
	c     net.Conn
	br    *bufio.Reader
	quota *quotaReader
}

// quotaReader fails once n bytes were read (n < 0: no limit). It bounds a
// response's head: http.ReadResponse itself reads headers without limit.
type quotaReader struct {
	r io.Reader
	n int64
}

var errHeaderTooLarge = errors.New("the response's status line and headers exceed 1 MiB")

func (q *quotaReader) Read(p []byte) (int, error) {
	if q.n == 0 {
		return 0, errHeaderTooLarge
	}
	if q.n > 0 && int64(len(p)) > q.n {
		p = p[:q.n]
	}
	n, err := q.r.Read(p)
	if q.n > 0 {
		q.n -= int64(n)
	}
	return n, err
}

// dial opens a connection to u's host with the run's context, so an
// interrupted run does not wait out a dial (or a TLS handshake) that
// hangs until request_timeout.
func (r *runner) dial(u *url.URL) (*conn, error) {
	host := u.Host
	if u.Port() == "" {
		if u.Scheme == "https" {
			host = net.JoinHostPort(u.Hostname(), "443")
		} else {
			host = net.JoinHostPort(u.Hostname(), "80")
		}
	}
	d := &net.Dialer{Timeout: r.plan.RequestTimeout}
	var c net.Conn
	var err error
	if u.Scheme == "https" {
		td := &tls.Dialer{NetDialer: d, Config: &tls.Config{ServerName: u.Hostname(), NextProtos: []string{"http/1.1"}}}
		c, err = td.DialContext(r.ctx, "tcp", host)
	} else {
		c, err = d.DialContext(r.ctx, "tcp", host)
	}
	if err != nil {
		return nil, err
	}
	return newConn(c), nil
}

func newConn(c net.Conn) *conn {
	q := &quotaReader{r: c, n: -1}
	return &conn{c: c, br: bufio.NewReader(q), quota: q}
}

// roundTrip writes raw request bytes and reads one response, within
// timeout or until ctx ends.
func (c *conn) roundTrip(ctx context.Context, raw []byte, timeout time.Duration, started *time.Time) Response {
	c.c.SetDeadline(time.Now().Add(timeout))
	// A deadline in the past wakes a blocked read or write at once.
	defer context.AfterFunc(ctx, func() { c.c.SetDeadline(time.Unix(1, 0)) })()
	if started != nil {
		*started = time.Now()
	}
	if _, err := c.c.Write(raw); err != nil {
		return Response{Err: err}
	}
	c.quota.n = maxHeader
	resp, err := http.ReadResponse(c.br, nil)
	c.quota.n = -1
	if err != nil {
		return Response{Err: err}
	}
	defer resp.Body.Close()
	body, n, sum, err := readBody(resp.Body)
	out := Response{Status: resp.StatusCode, Header: resp.Header, Body: body, BodyLen: n, BodySum: sum, Err: err}
	if resp.Close {
		out.Header = out.Header.Clone()
		if out.Header == nil {
			out.Header = http.Header{}
		}
		out.Header.Set("X-Retryspec-Closed", "1")
	}
	return out
}

// warmRequest is what warms each connection: the ready check when verify
// runs the server, else the effects request for a throwaway key, else a
// GET of the base path. Its answer does not matter, only that the
// connection stays open.
func (r *runner) warmRequest(op Operation) Request {
	switch {
	case r.plan.Server != nil:
		return Request{Method: r.plan.Server.ReadyMethod, URL: r.base + r.plan.Server.ReadyPath, Headers: r.headers(primary)}
	case op.Effects != nil:
		return Request{Method: op.Effects.Method, URL: r.base + fillTarget(op.Effects.Target, op.PathValues, newKey(r.keyLen(op))), Headers: r.headers(primary)}
	}
	return Request{Method: "GET", URL: r.base + "/", Headers: r.headers(primary)}
}

// fire opens and warms n connections, then releases req on all of them at
// one instant (every goroutine waits on one channel that is closed once),
// and returns the responses and the spread of their start times.
func (r *runner) fire(op Operation, req Request, n int) ([]Response, time.Duration, error) {
	u, err := url.Parse(req.URL)
	if err != nil {
		return nil, 0, err
	}
	raw, err := req.wire()
	if err != nil {
		return nil, 0, err
	}
	conns := make([]*conn, n)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.c.Close()
			}
		}
	}()
	if err := r.warmConns(op, u, conns); err != nil {
		return nil, 0, err
	}
	resps, starts := r.releaseAll(conns, raw)
	return resps, startSpread(starts), nil
}

// warmConns fills conns with connections to u, each warmed by one
// warmRequest. It opens them in parallel (bounded), so N = 256 does not
// take N round trips, and fails with the first connection that would not
// open.
func (r *runner) warmConns(op Operation, u *url.URL, conns []*conn) error {
	warm := r.warmRequest(op)
	warmRaw, err := warm.wire()
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make([]error, len(conns))
	sem := make(chan struct{}, 32)
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			conns[i], errs[i] = r.warmConn(u, warm, warmRaw)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// warmConn opens one connection and sends the warm-up request on it, in up
// to three tries.
func (r *runner) warmConn(u *url.URL, warm Request, warmRaw []byte) (*conn, error) {
	var err error
	for try := 0; try < 3; try++ {
		c, dialErr := r.dial(u)
		if dialErr != nil {
			err = dialErr
			continue
		}
		resp := c.roundTrip(r.ctx, warmRaw, r.plan.RequestTimeout, nil)
		if resp.Err != nil || resp.Header.Get("X-Retryspec-Closed") != "" {
			c.c.Close()
			err = fmt.Errorf("warm-up %s %s: %s (the server closes the connection after each request)", warm.Method, warm.URL, resp.Describe())
			if resp.Err == nil {
				// A server without keep-alive: use a fresh, unwarmed connection.
				if c2, err := r.dial(u); err == nil {
					return c2, nil
				}
			}
			continue
		}
		return c, nil
	}
	return nil, err
}

// releaseAll sends raw on every connection at one instant: each goroutine
// is started and waiting on release before it is closed. It returns the
// answers and when each request began.
func (r *runner) releaseAll(conns []*conn, raw []byte) ([]Response, []time.Time) {
	n := len(conns)
	resps := make([]Response, n)
	starts := make([]time.Time, n)
	release := make(chan struct{})
	var ready, done sync.WaitGroup
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-release
			resps[i] = conns[i].roundTrip(r.ctx, raw, r.plan.RequestTimeout, &starts[i])
			resps[i].Started = starts[i]
		}()
	}
	ready.Wait()
	close(release)
	done.Wait()
	return resps, starts
}

// startSpread is the time between the first and the last start.
func startSpread(starts []time.Time) time.Duration {
	first, last := starts[0], starts[0]
	for _, s := range starts[1:] {
		if s.Before(first) {
			first = s
		}
		if s.After(last) {
			last = s
		}
	}
	return last.Sub(first)
}

// ConcurrencyRounds is how many times the concurrency gate fires its N
// requests, each round with a fresh key: a race with a narrow window may
// slip through one round, rarely three.
const ConcurrencyRounds = 3

func (r *runner) gateConcurrency(op Operation) (string, *failure) {
	var spreads []float64
	var summary string
	for round := range ConcurrencyRounds {
		start := len(r.cur.repro)
		s, f := r.concurrencyRound(op)
		if r.cur.res.SpreadMS != nil {
			spreads = append(spreads, *r.cur.res.SpreadMS)
		}
		if f != nil {
			if f.err == nil {
				f.msg = fmt.Sprintf("round %d of %d: %s", round+1, ConcurrencyRounds, f.msg)
				r.cur.repro = r.cur.repro[start:]
			}
			return "", f
		}
		summary = s
	}
	worst := slices.Max(spreads)
	r.cur.res.SpreadMS = &worst
	r.cur.res.Reason = fmt.Sprintf("%d rounds of %d, fresh key each; last round: %s; widest release spread %.2f ms", ConcurrencyRounds, r.o.Concurrency, summary, worst)
	return "", nil
}

// concurrencyRound fires one round with a fresh key: it releases the
// requests, sorts their answers, waits out a 202's promise, counts the
// effects, then judges.
func (r *runner) concurrencyRound(op Operation) (string, *failure) {
	key := newKey(r.keyLen(op))
	before, counted, f := r.count(op, key, primary)
	if f != nil {
		return "", f
	}
	req := r.opRequest(op, key, op.Body, primary)
	resps, ms, f := r.releaseRound(op, req)
	if f != nil {
		return "", f
	}
	t := r.tallyRound(resps)
	if t.lost == t.n {
		r.aborted = fmt.Errorf("%w: none of the %d concurrent requests got an answer within request_timeout %s", errUnresponsive, t.n, r.plan.RequestTimeout)
		return "", &failure{msg: r.aborted.Error(), err: errUnresponsive}
	}
	if t.accepted() && t.conflicts > 0 {
		if f := r.awaitAccepted(req, &t); f != nil {
			return "", f
		}
	}
	after, _, f := r.settledCount(op, key, primary)
	if f != nil {
		return "", f
	}
	r.observe(before, after, counted, "")
	summary := t.summary(ms)
	if f := t.judge(counted, after-before, r.repeatedExternalCalls(op), summary); f != nil {
		return "", f
	}
	return summary, nil
}

// releaseRound sends req on r.o.Concurrency warm connections at once,
// writing the reproduction first, and returns the answers and the spread of
// their start times in milliseconds. A run interrupted, or a server that
// does not take the connections, ends the run: no later gate can do better.
func (r *runner) releaseRound(op Operation, req Request) ([]Response, float64, *failure) {
	n := r.o.Concurrency
	r.cur.res.Requests += n
	r.cur.repro = append(r.cur.repro, fmt.Sprintf("# %d at once, on warm connections:", n),
		fmt.Sprintf("for i in $(seq %d); do %s & done; wait", n, r.red.String(req.Curl())))
	if r.stub != nil {
		r.stub.reset()
	}
	resps, spread, err := r.fire(op, req, n)
	if err != nil && r.ctx.Err() != nil {
		r.aborted = r.stopped()
		return nil, 0, &failure{msg: "interrupted", err: r.ctx.Err()}
	}
	if err != nil {
		r.aborted = fmt.Errorf("%w: could not open %d connections for the concurrency gate: %s", errUnresponsive, n, r.red.String(err.Error()))
		return nil, 0, &failure{msg: r.aborted.Error(), err: errUnresponsive}
	}
	ms := float64(spread.Microseconds()) / 1000
	r.cur.res.SpreadMS = &ms
	return resps, ms, nil
}

// roundTally is one round's answers sorted by what the contract allows a
// concurrent copy: the outcome, its replay, the in-flight answer, or none.
type roundTally struct {
	n int // requests released
	// inFlight is the contract's in-flight answer: a conflict, or under
	// accepted a 202 (a 2xx, so it is told apart before the outcomes are).
	// conflictOK is false when the contract names none (block).
	inFlight   contract.Conflict
	conflictOK bool
	outcomes   []Response // distinct 2xx outcomes
	conflicts  int        // in-flight answers
	replays    int        // 2xx answers equal to an outcome already seen
	lost       int        // no answer within request_timeout
	odd        []string   // any other answer, described
}

func (r *runner) tallyRound(resps []Response) roundTally {
	t := roundTally{n: len(resps)}
	t.inFlight, t.conflictOK = r.inFlightAnswer()
	for _, resp := range resps {
		switch {
		case resp.Err != nil:
			t.lost++
		case t.conflictOK && r.matches(resp, t.inFlight):
			t.conflicts++
		case resp.Status/100 == 2:
			if t.seen(resp) {
				t.replays++
			} else {
				t.outcomes = append(t.outcomes, resp)
			}
		default:
			t.odd = append(t.odd, resp.Describe())
		}
	}
	return t
}

// seen reports whether resp repeats an outcome of the round.
func (t *roundTally) seen(resp Response) bool {
	return slices.ContainsFunc(t.outcomes, func(o Response) bool { return o.Status == resp.Status && o.sameValue(resp) })
}

// accepted reports whether the in-flight answer is a 202 (in_flight.response: accepted).
func (t *roundTally) accepted() bool {
	return t.conflictOK && t.inFlight.Status/100 == 2
}

// awaitAccepted holds the contract's promise behind a 202: the work settles
// first, and a retry with the same key then gets its outcome, which joins
// the round's outcomes (two of them mean the request ran twice).
func (r *runner) awaitAccepted(req Request, t *roundTally) *failure {
	last, _, why, f := r.awaitOutcome(req, "# then the same request again until it completes:")
	if f != nil {
		return f
	}
	if why != outcomeCompleted {
		return failf("idempotency.in_flight.response", "finish the request a 202 answered and give a retry with the same key its stored outcome",
			"%d of %d concurrent requests got %s, and a retry with the same key then got %s, not the outcome (%s: it waits out the 202 for at most lock_timeout + %s)",
			t.conflicts, t.n, conflictText(t.inFlight), last.Describe(), why, crashMargin)
	}
	if !t.seen(last) {
		t.outcomes = append(t.outcomes, last)
	}
	return nil
}

// repeatedExternalCalls names the external calls the round made take
// effect more than once. With the stub hosted they are effects too: one
// request's worth at most, or a charge is duplicated even when the API's
// own count looks right.
func (r *runner) repeatedExternalCalls(op Operation) []string {
	if r.stub == nil {
		return nil
	}
	var repeated []string
	applied, calls := r.stub.effects()
	for _, c := range op.Endpoint.ExternalCalls {
		if applied[c] > 1 {
			repeated = append(repeated, fmt.Sprintf("%s took effect %d times (%d requests)", c, applied[c], calls[c]))
		}
	}
	return repeated
}

// summary is the round's one-line account, which the gate's reason and
// every failure quote.
func (t *roundTally) summary(ms float64) string {
	answers := "in-flight conflicts"
	if t.accepted() {
		answers = "in-flight 202s"
	}
	return fmt.Sprintf("%d released within %.2f ms: %d outcome(s), %d %s, %d replays", t.n, ms, len(t.outcomes), t.conflicts, answers, t.replays)
}

// judge says what the round proves, the gravest finding first: a second
// effect or outcome (the claim let two requests in) before an answer the
// contract does not allow, before a lost answer. effects is the count's
// change, meaningful only when counted.
func (t *roundTally) judge(counted bool, effects int, extCalls []string, summary string) *failure {
	n := t.n
	claimFix := "claim the key with one atomic statement the store arbitrates (a unique constraint on (account, key) and INSERT ... ON CONFLICT DO NOTHING), before any work"
	switch {
	case counted && effects > 1:
		return failf("idempotency.claim.mechanism", claimFix, "%d identical requests with one key made %d effects, not 1 (%s): more than one request won the claim", n, effects, summary).because(causeUnwrapped)
	case len(extCalls) > 0:
		return failf("idempotency.claim.mechanism", claimFix, "%d identical requests with one key made external calls more than once: %s (%s): a duplicate charge even if the API's own count looks right", n, strings.Join(extCalls, ", "), summary)
	case len(t.outcomes) > 1:
		return failf("idempotency.claim.mechanism", claimFix, "%d identical requests with one key got %d different successful outcomes (%s): the request ran more than once", n, len(t.outcomes), summary).because(causeUnwrapped)
	case len(t.odd) > 0:
		want, fix := "the original outcome or its replay", "make a request whose key is claimed and unfinished wait for the first request's outcome, as in_flight.response promises"
		if t.conflictOK {
			want = "the original outcome, its replay or " + conflictText(t.inFlight)
			fix = "answer a request whose key is claimed and unfinished with " + conflictText(t.inFlight) + ", never anything else"
		}
		return failf("idempotency.in_flight.response", fix,
			"%d of %d concurrent requests got an answer that is not %s, e.g. %s (%s)", len(t.odd), n, want, t.odd[0], summary)
	case t.lost > 0:
		return failf("idempotency.in_flight.response", "answer every concurrent request; a claim must not hang or drop the losers",
			"%d of %d concurrent requests got no answer within request_timeout (%s)", t.lost, n, summary)
	case len(t.outcomes) == 0:
		return failf("idempotency.in_flight.response", "let the claim's winner run and answer", "no request of %d got the outcome (%s)", n, summary)
	case counted && effects != 1:
		return failf("idempotency.claim.mechanism", claimFix, "%d identical requests made %d effects, not 1 (%s)", n, effects, summary)
	}
	return nil
}
