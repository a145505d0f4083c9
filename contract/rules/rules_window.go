package rules

import (
	"fmt"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// lateRetry describes when a retry first falls outside the window: "on day
// 2" for whole days, otherwise "after 90m".
func lateRetry(window contract.Duration) string {
	const day = 24 * time.Hour
	if window.D%day == 0 {
		return fmt.Sprintf("a retry on day %d", window.D/day+1)
	}
	return "a retry after " + window.String()
}

var windowRules = []Rule{
	{
		ID:       "window/shorter-than-retry-chain",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "the replay window is shorter than the longest retry chain",
		Rationale: "The replay window must be set from the longest time a caller may still retry one intent (queued re-submits, " +
			"dead-letter replays, dispute windows), never from storage cost. A 24-hour window behind a 7-day dead-letter replay " +
			"treats the late retry as a new request and runs the side effect again. Stripe, Resend and Twilio keep keys about 24 " +
			"hours, which is only right when retries fit inside it.",
		Sources: []findings.Source{srcBrandur, srcResend, srcStripe},
		Fix:     "raise replay_window to at least the retry chain, or shorten the chain",
		Bad:     "idempotency:\n  replay_window: 24h\n  reaper_after: 30d\n  longest_retry_chain:\n    duration: 6d\n    because: \"dead-letter replays run weekly\"\n",
		Good:    "idempotency:\n  replay_window: 7d\n  reaper_after: 30d\n  longest_retry_chain:\n    duration: 6d\n    because: \"dead-letter replays run weekly\"\n",
		Check: func(c *contract.Contract) []findings.Finding {
			id := c.Idempotency
			chain := id.LongestRetryChain.Duration
			if chain.IsZero() || id.ReplayWindow.IsZero() || id.ReplayWindow.D >= chain.D {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.replay_window",
				Message: fmt.Sprintf("replay_window %s is shorter than longest_retry_chain %s: %s is treated as a new request and repeats the side effect",
					id.ReplayWindow, chain, lateRetry(id.ReplayWindow)),
				Fix: fmt.Sprintf("raise replay_window to at least %s, or shorten the retry chain to fit inside %s", chain, id.ReplayWindow)})}
		},
	},
	{
		ID:       "window/no-reaper-horizon",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "reaper_after is missing or not longer than the replay window",
		Rationale: "Retention has two horizons (Brandur Leach's reference design): the replay window governs correctness, and a longer " +
			"reaper threshold keeps records for people to recover failed requests, so a bad Friday deploy's failures are still there " +
			"on Monday. About 24 hours and 72 hours are the usual figures.",
		Sources: []findings.Source{srcBrandur},
		Fix:     "set idempotency.reaper_after longer than replay_window (72h for a 24h window)",
		Bad:     "idempotency:\n  replay_window: 24h\n  reaper_after: 24h\n",
		Good:    "idempotency:\n  replay_window: 24h\n  reaper_after: 72h\n",
		Check: func(c *contract.Contract) []findings.Finding {
			id := c.Idempotency
			w := id.ReplayWindow
			suggest := contract.Dur(3 * w.D)
			if id.ReaperAfter.IsZero() {
				return []findings.Finding{at(c, findings.Finding{Path: "idempotency.reaper_after",
					Message: fmt.Sprintf("reaper_after is not set: records vanish when the replay_window %s ends, with nothing kept for human recovery", w),
					Fix:     fmt.Sprintf("add reaper_after: %s (longer than replay_window %s)", suggest, w)})}
			}
			if id.ReaperAfter.D > w.D {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.reaper_after",
				Message: fmt.Sprintf("reaper_after %s is not longer than replay_window %s: failed requests are reaped before anyone can recover them", id.ReaperAfter, w),
				Fix:     fmt.Sprintf("raise reaper_after above %s, e.g. %s", w, suggest)})}
		},
	},
	{
		ID:       "window/expiry-errors",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "a key reused after the replay window is answered with an error",
		Rationale: "After the window a stored key is gone, and every surveyed provider (Stripe, Resend, Twilio) treats a reused key as " +
			"a brand-new request; none returns an error. Remembering expired keys only to refuse them needs the very storage the " +
			"window was meant to bound, and surprises integrators who follow the industry behaviour.",
		Sources: []findings.Source{srcStripe, srcResend},
		Fix:     "set idempotency.after_window: new-request and document the window",
		Bad:     "idempotency:\n  after_window: error\n",
		Good:    "idempotency:\n  after_window: new-request\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.Idempotency.AfterWindow != contract.AfterWindowError {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.after_window",
				Message: fmt.Sprintf("after_window is error: a key reused after replay_window %s is refused, where every surveyed provider treats it as a new request", c.Idempotency.ReplayWindow),
				Fix:     "set after_window: new-request and tell integrators to finish retries well within the window"})}
		},
	},
}

// windowAnswerRules ask for what only the team knows about retry chains.
var windowAnswerRules = []Rule{
	{
		ID:       "window/retry-chain-unstated",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "longest_retry_chain is not stated, so the replay window cannot be checked against it",
		Rationale: "The replay window is only right if every retry of one intent arrives inside it. The client's own loop is bounded " +
			"by max_elapsed, which the contract states; but intents are also re-submitted later by queues and people (a dead-letter " +
			"queue replayed, a runbook re-run after an incident, a webhook the caller sends again), and only the team knows how late. " +
			"A 24-hour window behind a weekly replay repeats the side effect. This is question 6 of the design method.",
		Sources: []findings.Source{srcBrandur, srcResend},
		Fix:     "add longest_retry_chain: { duration: ..., because: \"...\" } naming the slowest re-submit path",
		Bad:     "idempotency:\n  longest_retry_chain: ~   # absent\n",
		Good:    "idempotency:\n  longest_retry_chain:\n    duration: 6h\n    because: \"SDK retries plus our webhook re-sends, at most 6h apart\"\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if !c.Idempotency.LongestRetryChain.Duration.IsZero() {
				return nil
			}
			client := "the client's retry loop has no max_elapsed bound"
			if !c.Retry.MaxElapsed.IsZero() {
				client = fmt.Sprintf("the client's retry loop ends within max_elapsed %s", c.Retry.MaxElapsed)
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.longest_retry_chain",
				Message: fmt.Sprintf("longest_retry_chain is not stated: %s, but is one intent ever re-submitted later, by a dead-letter replay, a runbook, "+
					"or a caller re-sending a webhook? Only you know, and replay_window %s must cover it: until it is stated, this stays a finding",
					client, c.Idempotency.ReplayWindow),
				Fix: "add longest_retry_chain: { duration: <the slowest re-submit>, because: \"...\" }; if nothing re-submits, state max_elapsed and say so in because:"})}
		},
	},
}
