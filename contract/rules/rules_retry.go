package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// stackingOrder is Resilience4j's documented decoration order, outermost
// first; a time limiter sits between the rate limiter and the bulkhead.
var stackingOrder = []contract.StackingLayer{contract.LayerRetry, contract.LayerCircuitBreaker, contract.LayerRateLimiter, contract.LayerTimeout, contract.LayerBulkhead}

var retryRules = []Rule{
	{
		ID:       "retry/any-error",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "the client retries every error, or the contract gives no allowlist of statuses",
		Rationale: "Retry an explicit allowlist, never everything: 429, the gateway errors 502/503/504 and connection failures are " +
			"transient; other 4xx are the caller's bug and fail identically again, and retrying them multiplies load for nothing. " +
			"tenacity, Resilience4j and Resend's guidance converge on this split.",
		Sources: []findings.Source{srcTenac, srcR4J, srcResend},
		Fix:     "list retry.statuses: [429, 502, 503, 504] and put 500 in cautious_statuses",
		Bad:     "retry:\n  statuses: any\n",
		Good:    "retry:\n  statuses: [429, 502, 503, 504]\n",
		Check: func(c *contract.Contract) []findings.Finding {
			r := c.Retry
			switch {
			case r.AnyStatus:
				return []findings.Finding{at(c, findings.Finding{Path: "retry.statuses",
					Message: "statuses is any: every error is retried, including 4xx bugs that fail the same way again",
					Fix:     "list the transient statuses instead: statuses: [429, 502, 503, 504]"})}
			case len(r.Statuses) == 0 && len(r.CautiousStatuses) == 0:
				return []findings.Finding{at(c, findings.Finding{Path: "retry.statuses",
					Message: "retry has no statuses allowlist: the contract does not say which responses are retried, so clients fall back to retrying everything",
					Fix:     "add statuses: [429, 502, 503, 504]"})}
			}
			return nil
		},
	},
	{
		ID:       "retry/client-error",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "a 4xx other than 429 (401, 403 and 409 included) is retried",
		Rationale: "A 4xx says the request itself is wrong: bad input, missing credentials, a conflict. Sending it again gives the same " +
			"answer. The exception is 429, which asks the caller to come back later. Both idempotency conflicts are 4xx too: a " +
			"payload mismatch must never be retried.",
		Sources: []findings.Source{srcTenac, srcResend},
		Fix:     "remove the 4xx codes other than 429 from retry.statuses",
		Bad:     "retry:\n  statuses: [409, 429, 502, 503, 504]\n",
		Good:    "retry:\n  statuses: [429, 502, 503, 504]\n",
		Check: func(c *contract.Contract) []findings.Finding {
			var out []findings.Finding
			for i, s := range c.Retry.Statuses {
				if (s.Class && s.Code == 4) || (!s.Class && s.Code/100 == 4 && s.Code != 429) {
					out = append(out, at(c, findings.Finding{Path: fmt.Sprintf("retry.statuses[%d]", i),
						Message: fmt.Sprintf("the client retries %s (retry.statuses): a client error fails the same way on every attempt", clientStatus(s)),
						Fix:     fmt.Sprintf("remove %s; of the 4xx codes only 429 is retried", s)}))
				}
			}
			for i, s := range c.Retry.CautiousStatuses {
				if s/100 == 4 && s != 429 {
					out = append(out, at(c, findings.Finding{Path: fmt.Sprintf("retry.cautious_statuses[%d]", i),
						Message: fmt.Sprintf("the client retries %d (retry.cautious_statuses): a client error fails the same way on every attempt", s),
						Fix:     fmt.Sprintf("remove %d", s)}))
				}
			}
			return out
		},
	},
	{
		ID:       "retry/500-not-cautious",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "500 is retried like a transient status instead of at most once",
		Rationale: "Some 500s are transient, others are a bug that fails identically on every attempt. Retrying 500 once catches the " +
			"first kind without hammering a broken handler for the whole schedule.",
		Sources: []findings.Source{srcTenac, srcResend},
		Fix:     "move 500 from retry.statuses to retry.cautious_statuses",
		Bad:     "retry:\n  statuses: [429, 500, 502, 503, 504]\n  cautious_statuses: []\n",
		Good:    "retry:\n  statuses: [429, 502, 503, 504]\n  cautious_statuses: [500]\n",
		Check: func(c *contract.Contract) []findings.Finding {
			// contract.Retry.Treatment reconciles classes with cautious
			// statuses for rules, docs and snippets alike.
			if c.Retry.Treatment(500) != contract.Retried || c.Retry.AnyStatus {
				return nil
			}
			for i, s := range c.Retry.Statuses {
				if s.Matches(500) {
					what := "500"
					if s.Class {
						what = s.String() + ", 500 included,"
					}
					return []findings.Finding{at(c, findings.Finding{Path: fmt.Sprintf("retry.statuses[%d]", i),
						Message: fmt.Sprintf("statuses retries %s on every attempt: a 500 that is a bug fails the same way %d times", what, c.Retry.MaxAttempts),
						Fix:     "list 500 under cautious_statuses (retried at most once) and the gateway codes 502, 503, 504 individually"})}
				}
			}
			return nil
		},
	},
	{
		ID:       "retry/no-retry-after",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "429 is retried without honouring Retry-After",
		Rationale: "A 429 carries the server's own estimate of when to come back. A client that ignores it and uses its own backoff " +
			"retries too early, gets throttled again and burns the attempt budget against a server that told it exactly when to return.",
		Sources: []findings.Source{srcAWSSDK, srcResend},
		Fix:     "set retry.honor_retry_after: true",
		Bad:     "retry:\n  honor_retry_after: false\n",
		Good:    "retry:\n  honor_retry_after: true\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.Retry.HonorRetryAfter || !c.Retry.RetriesStatus(429) {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "retry.honor_retry_after",
				Message: "honor_retry_after is false while 429 is retried: clients come back before the time the server asked for and are throttled again",
				Fix:     "set honor_retry_after: true (wait at least Retry-After, still within max_elapsed)"})}
		},
	},
	{
		ID:       "retry/no-jitter",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "backoff has no jitter, or equal jitter",
		Rationale: "Clients that failed together retry together: without jitter a fleet re-creates the very spike that caused the " +
			"failures, at every step of the schedule. Marc Brooker's AWS analysis finds capped exponential backoff alone helps little " +
			"and full jitter does the least total work; equal jitter is the clear loser among jittered variants.",
		Sources: []findings.Source{srcBrooker, srcTimeout},
		Fix:     "set retry.backoff.jitter: full",
		Bad:     "retry:\n  backoff:\n    jitter: none\n",
		Good:    "retry:\n  backoff:\n    jitter: full\n",
		Check: func(c *contract.Contract) []findings.Finding {
			j := c.Retry.Backoff.Jitter
			if j != contract.JitterNone && j != contract.JitterEqual {
				return nil
			}
			msg := "jitter is none: clients that failed together retry in lockstep and re-create the spike at every step"
			if j == contract.JitterEqual {
				msg = "jitter is equal: half of every delay is fixed, so retries stay clustered; Brooker's comparison finds it does more work than full jitter and finishes later"
			}
			b := c.Retry.Backoff
			return []findings.Finding{at(c, findings.Finding{Path: "retry.backoff.jitter", Message: msg,
				Fix: fmt.Sprintf("set jitter: full: sleep = random(0, min(%s, %s * %g^n))", b.Cap, b.Base, b.Multiplier)})}
		},
	},
	{
		ID:       "retry/unbounded-duration",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "retries are bounded by attempts only, not by total elapsed time",
		Rationale: "A loop where each attempt looks reasonable can still run far past what its caller can wait: attempts times the " +
			"attempt timeout plus every backoff. Bound both the attempt count and the total time, as tenacity's stop_after_attempt " +
			"| stop_after_delay does.",
		Sources: []findings.Source{srcTenac, srcTimeout},
		Fix:     "set retry.max_elapsed (e.g. 60s)",
		Bad:     "retry:\n  max_elapsed: ~   # absent\n",
		Good:    "retry:\n  max_elapsed: 60s\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if !c.Retry.MaxElapsed.IsZero() {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "retry.max_elapsed",
				Message: fmt.Sprintf("max_elapsed is not set: %d attempts are bounded in number only, so the loop can outlast what its caller can wait", c.Retry.MaxAttempts),
				Fix:     "add max_elapsed: 60s (or the caller's real budget) so the loop stops on whichever bound comes first"})}
		},
	},
	{
		ID:        "retry/too-many-attempts",
		Severity:  findings.Warning,
		Escalates: findings.Error,
		Scope:     ScopeContract,
		Summary:   "the SDKs' max_attempts is above 3 (a warning at 4-5, an error above 5); other callers only when unbounded",
		Rationale: "Every attempt a client adds multiplies the load a struggling server receives: a hundred instances retrying three " +
			"times already send three hundred times the calls. SDK defaults reach every caller who never reads the docs, so they " +
			"keep AWS's 3 attempts in total. A contract without an sdk section describes other callers (a backend batch job, a " +
			"raw-HTTP integrator), where five attempts can be right: those are judged by what bounds the loop, max_elapsed and a " +
			"retry budget, and only reported when one is missing.",
		Sources: []findings.Source{srcAWSSDK, srcTimeout},
		Fix:     "set retry.max_attempts: 3 (counting the first attempt)",
		Bad:     "retry:\n  max_attempts: 4\n",
		Good:    "retry:\n  max_attempts: 3\n",
		Check: func(c *contract.Contract) []findings.Finding {
			n := c.Retry.MaxAttempts
			if n <= 3 {
				return nil
			}
			if c.SDK == nil || c.SDK.Retries != contract.On {
				return nonSDKAttempts(c, n)
			}
			f := at(c, findings.Finding{Path: "retry.max_attempts",
				Message: fmt.Sprintf("max_attempts is %d, the default of the SDKs this contract ships: each client sends up to %d calls per intent, multiplying load on a server that is already failing", n, n),
				Fix:     "set max_attempts: 3 (AWS SDK's default, first attempt included) and rely on the retry budget for the rest"})
			f.Severity = findings.Warning
			if n > 5 {
				f.Severity = findings.Error
			}
			return []findings.Finding{f}
		},
	},
	{
		ID:       "retry/timeout-resets-per-attempt",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "the deadline restarts with every attempt instead of bounding the whole call",
		Rationale: "A fresh overall timeout per attempt silently extends the caller's real wait: three 10-second attempts are a " +
			"30-second call plus backoff, and the retry that finally succeeds may answer a caller who gave up. Set one overall " +
			"deadline and budget per-attempt timeouts inside it; gRPC propagates the remaining budget down the chain.",
		Sources: []findings.Source{srcGRPC, srcTimeout},
		Fix:     "set retry.deadline: overall and propagate_deadline: true",
		Bad:     "retry:\n  deadline: per-attempt\n",
		Good:    "retry:\n  deadline: overall\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.Retry.Deadline != contract.DeadlinePerAttempt {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "retry.deadline",
				Message: fmt.Sprintf("deadline is per-attempt: each of %d attempts gets a fresh timeout, so the caller's real wait grows with every retry", c.Retry.MaxAttempts),
				Fix:     "set deadline: overall and fit every attempt's timeout inside the remaining budget"})}
		},
	},
	{
		ID:       "retry/timeout-not-from-p99",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "the attempt timeout is a bare figure, or not 2-3 times the measured p99",
		Rationale: "A timeout picked as a round number is either so short it cuts off healthy slow requests (which then retry and add " +
			"load) or so long it pins a connection to a hung server. Measure p99 latency under normal load and time out at 2-3 " +
			"times it (Marc Brooker, AWS Builders' Library).",
		Sources: []findings.Source{srcTimeout},
		Fix:     "write attempt_timeout as { p99: <measured>, factor: 2.5 }",
		Bad:     "retry:\n  attempt_timeout: 10s\n",
		Good:    "retry:\n  attempt_timeout:\n    p99: 800ms\n    factor: 2.5\n",
		Check: func(c *contract.Contract) []findings.Finding {
			at0 := c.Retry.AttemptTimeout
			if c.Retry.AttemptTimeoutDefaulted() {
				if c.Retry.Omitted() {
					// A contract without a retry section takes the whole
					// default policy, this timeout included; the docs say so.
					return nil
				}
				return []findings.Finding{at(c, findings.Finding{Path: "retry.attempt_timeout",
					Message: fmt.Sprintf("attempt_timeout is not set: docs and snippets use %s (%s), which nothing ties to the endpoint's measured latency",
						at0.Bare, defaultTimeoutWhy(c.Retry)),
					Fix: "add attempt_timeout: { p99: <measured p99>, factor: 2.5 }"})}
			}
			if !at0.Bare.IsZero() {
				return []findings.Finding{at(c, findings.Finding{Path: "retry.attempt_timeout",
					Message: fmt.Sprintf("attempt_timeout is a bare %s: nothing ties it to the endpoint's measured latency", at0.Bare),
					Fix:     "write it as p99 times a factor: attempt_timeout: { p99: <measured p99>, factor: 2.5 }"})}
			}
			if at0.P99.IsZero() || (at0.Factor >= 2 && at0.Factor <= 3) {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "retry.attempt_timeout.factor",
				Message: fmt.Sprintf("attempt_timeout factor %g times p99 %s gives %s, outside the 2-3x p99 range", at0.Factor, at0.P99, contract.FormatDuration(at0.Value().D)),
				Fix:     fmt.Sprintf("use a factor from 2 to 3: %s to %s for p99 %s", contract.FormatDuration(2*at0.P99.D), contract.FormatDuration(3*at0.P99.D), at0.P99)})}
		},
	},
	{
		ID:       "retry/no-logging",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "retries are not logged",
		Rationale: "A retry loop that succeeds on the third attempt hides a failing dependency until the attempts run out. Log every " +
			"retry with the attempt number, the error and the next wait; tenacity and Resilience4j treat this as a default.",
		Sources: []findings.Source{srcTenac, srcR4J},
		Fix:     "set retry.log_retries: true",
		Bad:     "retry:\n  log_retries: false\n",
		Good:    "retry:\n  log_retries: true\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.Retry.LogRetries {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "retry.log_retries",
				Message: "log_retries is false: a loop that recovers on a later attempt hides the failures that an outage starts with",
				Fix:     "set log_retries: true and log attempt, error and next wait on every retry"})}
		},
	},
	{
		ID:       "retry/no-budget",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "no fleet-wide retry budget",
		Rationale: "Per-client attempt caps do not stop amplification: a hundred instances each retrying three times send three hundred " +
			"times the load to a struggling server while every instance looks reasonable. A token bucket stops retrying when " +
			"retries become a large share of traffic. AWS SDK standard mode spends 14 tokens per transient-error retry and 5 per " +
			"throttling retry, refunding on success.",
		Sources: []findings.Source{srcAWSSDK},
		Fix:     "add retry.budget: { kind: token-bucket, capacity: 500, transient_cost: 14, throttle_cost: 5, success_refund: 1 }",
		Bad:     "retry:\n  budget: ~   # absent\n",
		Good:    "retry:\n  budget:\n    kind: token-bucket\n    capacity: 500\n    transient_cost: 14\n    throttle_cost: 5\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.Retry.Budget != nil {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "retry.budget",
				Message: fmt.Sprintf("no retry budget: up to %d attempts per call on every instance, with nothing to stop a fleet from multiplying an outage", c.Retry.MaxAttempts),
				Fix:     "add budget: { kind: token-bucket, capacity: 500, transient_cost: 14, throttle_cost: 5, success_refund: 1 }"})}
		},
	},
	{
		ID:       "retry/stacking-order",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "resilience layers are not stacked retry, circuit-breaker, rate-limiter, bulkhead",
		Rationale: "Retry wraps the outside so one logical call can retry across a circuit breaker's rejection; the breaker sits inside " +
			"it so an open circuit short-circuits retries instead of making every caller pay the full backoff. Resilience4j " +
			"documents the order Retry, CircuitBreaker, RateLimiter, TimeLimiter, Bulkhead.",
		Sources: []findings.Source{srcR4J},
		Fix:     "write stacking: [retry, circuit-breaker, rate-limiter, bulkhead]",
		Bad:     "retry:\n  stacking: [circuit-breaker, retry, rate-limiter, bulkhead]\n",
		Good:    "retry:\n  stacking: [retry, circuit-breaker, rate-limiter, bulkhead]\n",
		Check: func(c *contract.Contract) []findings.Finding {
			st := c.Retry.Stacking
			want := slices.Clone(st)
			slices.SortStableFunc(want, func(a, b string) int {
				return slices.Index(stackingOrder, contract.StackingLayer(a)) - slices.Index(stackingOrder, contract.StackingLayer(b))
			})
			if slices.Equal(st, want) {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "retry.stacking",
				Message: fmt.Sprintf("stacking is [%s]: retry must wrap the outside, with the circuit breaker inside it", strings.Join(st, ", ")),
				Fix:     fmt.Sprintf("write stacking: [%s]", strings.Join(want, ", "))})}
		},
	},
	{
		ID:       "retry/timeout-on-unkeyed-endpoint",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "connection timeouts are retried while a non-idempotent endpoint takes no key",
		Rationale: "A timed-out request may have run. Retrying it is only safe when the server can recognise the retry, that is when " +
			"the endpoint takes an idempotency key. An unkeyed create retried after a timeout can run twice; closing this boundary " +
			"is why the server half of the contract exists.",
		Sources: []findings.Source{srcAWSIdem, srcStripe},
		Fix:     "give the endpoint a key, or document it with unsafe_to_retry so clients do not retry it",
		Bad:     endpointBase + "  - operation: DELETE /v1/items/{id}/stock\n    effect: decrement\n    key: none\n",
		Good:    endpointBase + "  - operation: DELETE /v1/items/{id}/stock\n    effect: decrement\n    key: none\n    unsafe_to_retry: \"Each call removes one unit; check the stock before calling again.\"\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if !c.Retry.RetriesConnectionError(string(contract.ConnTimeout)) {
				return nil
			}
			var ops []string
			for _, e := range c.Endpoints {
				if unprotected(e) {
					ops = append(ops, e.Operation)
				}
			}
			if len(ops) == 0 {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "retry.connection_errors",
				Message: fmt.Sprintf("connection timeouts are retried, but %s %s no idempotency key: a timed-out call may have run and its retry runs it again",
					strings.Join(ops, ", "), plural(len(ops), "takes", "take")),
				Fix: "give those endpoints key: required, or mark them unsafe_to_retry so clients and docs exclude them"})}
		},
	},
}

// nonSDKAttempts judges max_attempts above 3 for callers other than the
// SDKs: by the bounds on the loop, not the count (the design method's own
// worked example is five attempts for a backend batch caller).
func nonSDKAttempts(c *contract.Contract, n int) []findings.Finding {
	r := c.Retry
	var missing []string
	if r.MaxElapsed.IsZero() {
		missing = append(missing, "no max_elapsed")
	}
	if r.Budget == nil {
		missing = append(missing, "no retry budget")
	}
	if len(missing) == 0 {
		return nil
	}
	f := at(c, findings.Finding{Path: "retry.max_attempts",
		Message: fmt.Sprintf("max_attempts is %d with %s: nothing but the count stops a fleet of these callers from multiplying an outage", n, strings.Join(missing, " and ")),
		Fix:     "keep the attempts and bound the loop: add max_elapsed and a token-bucket budget, or lower max_attempts to 3"})
	f.Severity = findings.Warning
	if n > 5 {
		f.Severity = findings.Error
	}
	return []findings.Finding{f}
}

// defaultTimeoutWhy says where the default attempt timeout comes from.
func defaultTimeoutWhy(r contract.Retry) string {
	if r.MaxElapsed.IsZero() {
		return "the fallback, since max_elapsed is not set either"
	}
	return fmt.Sprintf("max_elapsed %s shared by %d attempts", r.MaxElapsed, r.MaxAttempts)
}

// retryAnswerRules (issue 16) ask for what the retry policy leaves unsaid.
var retryAnswerRules = []Rule{
	{
		ID:       "retry/deadline-not-propagated",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "the remaining deadline is not passed on to downstream calls",
		Rationale: "An overall deadline bounds what the caller waits, but a service that calls others with fresh timeouts of its own " +
			"keeps working after the caller has given up, and its retries add load nobody is waiting for. Each hop should pass the " +
			"time that remains, less its own, as gRPC does by sending the deadline as a relative timeout on the wire.",
		Sources: []findings.Source{srcGRPC, srcTimeout},
		Fix:     "set retry.propagate_deadline: true and pass the remaining time with each downstream call",
		Bad:     "retry:\n  propagate_deadline: false\n",
		Good:    "retry:\n  propagate_deadline: true\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.Retry.PropagateDeadline {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "retry.propagate_deadline",
				Message: fmt.Sprintf("propagate_deadline is false: calls made downstream start fresh timeouts, so work continues after the caller's %s bound has passed", maxElapsedText(c.Retry)),
				Fix:     "set propagate_deadline: true and send the remaining time (less this hop's own) with every downstream call"})}
		},
	},
}

func maxElapsedText(r contract.Retry) string {
	if r.MaxElapsed.IsZero() {
		return "overall"
	}
	return r.MaxElapsed.String()
}

// clientStatus names a retried 4xx status or class in a sentence: "409",
// or "every 4XX status".
func clientStatus(s contract.StatusSpec) string {
	if s.Class {
		return "every " + s.String() + " status"
	}
	return s.String()
}
