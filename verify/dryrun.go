package verify

import (
	"fmt"
	"slices"
	"strings"
)

// DryRun lists, gate by gate, every request a run would send, as curl
// commands with secrets masked, and sends nothing. Without a base URL (the
// plan's server: section picks the port) the base shows as
// http://127.0.0.1:PORT.
func DryRun(o Options) []string {
	r := &runner{o: o, c: o.Contract, plan: o.Plan, red: newRedactor(o.Plan.secrets), cur: &gateState{}}
	if r.o.Concurrency == 0 {
		r.o.Concurrency = o.Plan.Concurrency
	}
	r.base = o.BaseURL
	if r.base == "" {
		r.base = o.Plan.BaseURL
	}
	var out []string
	if o.Plan.Server != nil && o.BaseURL == "" {
		r.base = "http://127.0.0.1:PORT"
		out = append(out, "# start: "+r.red.String(strings.Join(o.Plan.Server.Command, " "))+" ({addr} = 127.0.0.1:PORT, RETRYSPEC_EXTERNAL_URL = the stub)",
			fmt.Sprintf("# wait for %s %s to answer 2xx (at most %s)", o.Plan.Server.ReadyMethod, o.Plan.Server.ReadyPath, o.Plan.Server.StartupTimeout))
	}
	r.base = strings.TrimRight(r.base, "/")
	for _, op := range o.Plan.Operations {
		for _, g := range Gates {
			if o.Only != nil && !slices.Contains(o.Only, g.ID) {
				continue
			}
			if g.skipReason(r, op) != "" {
				out = append(out, fmt.Sprintf("# %s %s: skipped", g.ID, op.Name))
				continue
			}
			out = append(out, fmt.Sprintf("# %s %s", g.ID, op.Name))
			out = append(out, g.dry(dryOp{r: r, op: op, key: newKey(r.keyLen(op))})...)
		}
	}
	return out
}

// dryOp is one operation of a dry run, with the fresh key a gate uses.
type dryOp struct {
	r   *runner
	op  Operation
	key string
}

func (d dryOp) curl(req Request) string { return d.r.red.String(req.Curl()) }

// send is the operation's request with key k and body, as curl.
func (d dryOp) send(k string, body []byte, who principal) string {
	return d.curl(d.r.opRequest(d.op, k, body, who))
}

// count is the effects request for key k, when the plan has one.
func (d dryOp) count(k string, who principal) []string {
	if d.op.Effects == nil {
		return nil
	}
	vals, hs, _ := d.r.filled(d.op, k, who)
	return []string{d.curl(Request{Method: d.op.Effects.Method, URL: d.r.base + fillTarget(d.op.Effects.Target, vals, k), Headers: hs})}
}

// join concatenates request lists.
func join(parts ...[]string) []string { return slices.Concat(parts...) }

func one(s ...string) []string { return s }

func dryMissingKey(d dryOp) []string {
	return one(d.send("", d.op.Body, primary))
}

func dryKeyTooLong(d dryOp) []string {
	long := newKey(d.r.c.MaxKeyLengthFor(d.op.Endpoint) + 1)
	return join(d.count(long, primary), one(d.send(long, d.op.Body, primary)), d.count(long, primary))
}

func dryKeyForm(d dryOp) []string {
	req := d.r.opRequest(d.op, "", d.op.Body, primary)
	req.Headers = append(req.Headers, sentHeader{Name: d.r.c.Idempotency.Header, Value: d.key})
	return join(d.count(d.key, primary), one("# the key without its sf-string quotes:", d.curl(req)), d.count(d.key, primary))
}

func dryConcurrency(d dryOp) []string {
	n := d.r.o.Concurrency
	return join(d.count(d.key, primary),
		one(fmt.Sprintf("# %d at once, on warm connections:", n), fmt.Sprintf("for i in $(seq %d); do %s & done; wait", n, d.send(d.key, d.op.Body, primary))),
		d.count(d.key, primary))
}

func dryReplay(d dryOp) []string {
	return join(one(d.send(d.key, d.op.Body, primary)), d.count(d.key, primary), one(d.send(d.key, d.op.Body, primary)), d.count(d.key, primary))
}

func dryMismatch(d dryOp) []string {
	return join(one(d.send(d.key, d.op.Body, primary)), d.count(d.key, primary), one(d.send(d.key, mismatchBody(d.op), primary)), d.count(d.key, primary))
}

func dryScope(d dryOp) []string {
	return join(one(d.send(d.key, d.op.Body, primary), d.send(d.key, d.op.Body, other)), d.count(d.key, primary), d.count(d.key, other))
}

func dryFailedAttempt(d dryOp) []string {
	return join(d.count(d.key, primary),
		one(fmt.Sprintf("# the stub answers %s with a 500 this once:", d.op.Endpoint.ExternalCalls[0]), d.send(d.key, d.op.Body, primary),
			"# the retry with the same key (waiting out the in-flight conflict), judged by stored_failures:", d.send(d.key, d.op.Body, primary)),
		d.count(d.key, primary))
}

func dryRestartReplay(d dryOp) []string {
	return join(one(d.send(d.key, d.op.Body, primary)), d.count(d.key, primary),
		one("# SIGKILL the server's process group once the request completed; restart; replay:", d.send(d.key, d.op.Body, primary)),
		d.count(d.key, primary))
}

func dryCrashRecovery(d dryOp) []string {
	crash := d.r.plan.Crash
	points := callKillPoints(d.op)
	for _, delay := range crash.Delays {
		points = append(points, killPoint{delay: delay})
	}
	var reqs []string
	for _, kp := range points {
		k := newKey(d.r.keyLen(d.op))
		reqs = append(reqs, d.send(k, d.op.Body, primary),
			fmt.Sprintf("# SIGKILL the server's process group %s; restart; retry:", kp),
			d.send(k, d.op.Body, primary))
		reqs = append(reqs, d.count(k, primary)...)
	}
	if len(crash.Delays) == 0 && crash.Sweep > 0 {
		reqs = append(reqs, fmt.Sprintf("# then %d kills spread over a measured request's duration, and one halfway from its last external call's answer to its response (the handler's last writes), each with a fresh key, restart and retry as above", crash.Sweep))
	}
	return reqs
}

func dryAfterWindow(d dryOp) []string {
	w, from := d.r.replayWindow()
	return join(one(d.send(d.key, d.op.Body, primary)), d.count(d.key, primary),
		one(fmt.Sprintf("# wait %s (%s and a margin), then reuse the key:", w+windowMargin, from), d.send(d.key, d.op.Body, primary)),
		d.count(d.key, primary))
}
