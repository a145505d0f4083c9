package verify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/retryspec/retryspec/contract"
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
	curl := func(req Request) string { return r.red.String(req.Curl()) }
	for _, op := range o.Plan.Operations {
		countReq := func(key string, who principal) []string {
			if op.Effects == nil {
				return nil
			}
			vals, hs, _ := r.filled(op, key, who)
			return []string{curl(Request{Method: op.Effects.Method, URL: r.base + fillTarget(op.Effects.Target, vals, key), Headers: hs})}
		}
		for _, g := range Gates {
			if o.Only != nil && !slices.Contains(o.Only, g) {
				continue
			}
			var reqs []string
			key := newKey(r.keyLen())
			send := func(k string, body []byte, who principal) string { return curl(r.opRequest(op, k, body, who)) }
			switch g {
			case GateMissingKey:
				if op.Endpoint.Key == contract.KeyRequired {
					reqs = append(reqs, send("", op.Body, primary))
				}
			case GateKeyTooLong:
				long := newKey(r.c.Idempotency.MaxKeyLength + 1)
				reqs = append(append(append(reqs, countReq(long, primary)...), send(long, op.Body, primary)), countReq(long, primary)...)
			case GateConcurrency:
				reqs = append(reqs, countReq(key, primary)...)
				reqs = append(reqs, fmt.Sprintf("# %d at once, on warm connections:", r.o.Concurrency), fmt.Sprintf("for i in $(seq %d); do %s & done; wait", r.o.Concurrency, send(key, op.Body, primary)))
				reqs = append(reqs, countReq(key, primary)...)
			case GateReplay:
				reqs = append(append(append(append(reqs, send(key, op.Body, primary)), countReq(key, primary)...), send(key, op.Body, primary)), countReq(key, primary)...)
			case GateMismatch:
				mb := op.MismatchBody
				if mb == nil {
					mb = incrementFirstNumber(op.Body)
				}
				if mb != nil {
					reqs = append(append(append(append(reqs, send(key, op.Body, primary)), countReq(key, primary)...), send(key, mb, primary)), countReq(key, primary)...)
				}
			case GateScope:
				if o.Plan.OtherPrincipal != nil {
					reqs = append(reqs, send(key, op.Body, primary), send(key, op.Body, other))
					reqs = append(append(reqs, countReq(key, primary)...), countReq(key, other)...)
				}
			case GateCrashRecovery:
				if o.Plan.Server != nil && o.BaseURL == "" {
					points := callKillPoints(op)
					for _, d := range o.Plan.Crash.Delays {
						points = append(points, killPoint{delay: d})
					}
					for _, kp := range points {
						k := newKey(r.keyLen())
						reqs = append(reqs, send(k, op.Body, primary),
							fmt.Sprintf("# SIGKILL the server's process group %s; restart; retry:", kp),
							send(k, op.Body, primary))
						reqs = append(reqs, countReq(k, primary)...)
					}
					if len(o.Plan.Crash.Delays) == 0 && o.Plan.Crash.Sweep > 0 {
						reqs = append(reqs, fmt.Sprintf("# then %d kills spread over a measured request's duration, and one halfway from its last external call's answer to its response (the handler's last writes), each with a fresh key, restart and retry as above", o.Plan.Crash.Sweep))
					}
				}
			case GateKeyForm:
				if r.c.Idempotency.HeaderValue == contract.HeaderSFString {
					req := r.opRequest(op, "", op.Body, primary)
					req.Headers = append(req.Headers, sentHeader{Name: r.c.Idempotency.Header, Value: key})
					reqs = append(append(append(reqs, countReq(key, primary)...), "# the key without its sf-string quotes:", curl(req)), countReq(key, primary)...)
				}
			case GateAfterWindow:
				if w, from := r.replayWindow(); w > 0 && w <= maxWindowWait {
					reqs = append(append(reqs, send(key, op.Body, primary)), countReq(key, primary)...)
					reqs = append(reqs, fmt.Sprintf("# wait %s (%s and a margin), then reuse the key:", w+windowMargin, from), send(key, op.Body, primary))
					reqs = append(reqs, countReq(key, primary)...)
				}
			case GateFailedAttempt:
				if o.Plan.Server != nil && o.BaseURL == "" && len(op.Endpoint.ExternalCalls) > 0 {
					reqs = append(append(reqs, countReq(key, primary)...), fmt.Sprintf("# the stub answers %s with a 500 this once:", op.Endpoint.ExternalCalls[0]), send(key, op.Body, primary))
					reqs = append(reqs, "# the retry with the same key (waiting out the in-flight conflict), judged by stored_failures:", send(key, op.Body, primary))
					reqs = append(reqs, countReq(key, primary)...)
				}
			case GateRestartReplay:
				if o.Plan.Server != nil && o.BaseURL == "" {
					reqs = append(append(reqs, send(key, op.Body, primary)), countReq(key, primary)...)
					reqs = append(reqs, "# SIGKILL the server's process group once the request completed; restart; replay:", send(key, op.Body, primary))
					reqs = append(reqs, countReq(key, primary)...)
				}
			}
			if len(reqs) == 0 {
				out = append(out, fmt.Sprintf("# %s %s: skipped", g, op.Name))
				continue
			}
			out = append(out, fmt.Sprintf("# %s %s", g, op.Name))
			out = append(out, reqs...)
		}
	}
	return out
}
