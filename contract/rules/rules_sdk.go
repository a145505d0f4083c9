package rules

import (
	"fmt"
	"strings"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

var sdkRules = []Rule{
	{
		ID:       "sdk/retries-off",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "the SDKs ship with retries off",
		Rationale: "Most integrators never read past installing the SDK, so its defaults are the retry policy they actually run. With " +
			"retries off, each writes its own loop (usually without jitter or keys) or none. AWS SDKs retry by default, 3 attempts " +
			"in total, with jittered backoff.",
		Sources: []findings.Source{srcAWSSDK},
		Fix:     "set sdk.retries: on and ship the contract's policy as the default",
		Bad:     "sdk:\n  retries: off\nretry:\n  max_attempts: 10\n  max_elapsed: ~\n",
		Good:    "sdk:\n  retries: on\n",
		Fixed:   "sdk:\n  retries: on\nretry:\n  max_attempts: 3\n  max_elapsed: 60s\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.SDK == nil || c.SDK.Retries != contract.Off {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "sdk.retries",
				Message: fmt.Sprintf("sdk.retries is off: callers of the %s SDKs get no retries unless they write their own loop", strings.Join(c.SDK.Languages, ", ")),
				Fix:     sdkRetriesFix(c.Retry)})}
		},
	},
	{
		ID:       "sdk/no-auto-key",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "the SDKs do not generate idempotency keys for unsafe operations",
		Rationale: "When the SDK makes the request it can mint one key per call and reuse it on every retry, so callers get safe " +
			"retries without knowing the mechanism exists. Stripe's SDKs do this; without it, SDK retries of a create are only as " +
			"safe as each caller's memory to pass a key.",
		Sources: []findings.Source{srcStripe},
		Fix:     "set sdk.auto_idempotency_key: true",
		Bad:     "sdk:\n  auto_idempotency_key: false\n",
		Good:    "sdk:\n  auto_idempotency_key: true\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.SDK == nil || c.SDK.AutoIdempotencyKey {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "sdk.auto_idempotency_key",
				Message: "auto_idempotency_key is false: SDK retries of keyed endpoints are safe only when the caller remembers to send " + c.Idempotency.KeyPlace(),
				Fix:     "set auto_idempotency_key: true: mint one key per call and reuse it on every retry of that call"})}
		},
	},
}

// sdkRetriesFix says how to turn SDK retries on. The SDKs ship the
// contract's retry policy as their default, so where that policy is one an
// SDK must not ship (more than 3 attempts, no overall bound, no jitter) the
// fix sets those values too instead of recommending them.
func sdkRetriesFix(r contract.Retry) string {
	var mend []string
	if r.MaxAttempts > 3 {
		mend = append(mend, fmt.Sprintf("max_attempts: 3 (not %d: an SDK default multiplies every caller's load)", r.MaxAttempts))
	}
	if r.MaxElapsed.IsZero() {
		mend = append(mend, "max_elapsed: 60s (none is set, so nothing bounds the loop's total time)")
	}
	if j := r.Backoff.Jitter; j == contract.JitterNone || j == contract.JitterEqual {
		mend = append(mend, fmt.Sprintf("jitter: full (not %s)", j))
	}
	if len(mend) == 0 {
		return fmt.Sprintf("set retries: on: the SDKs then run the contract's policy, %d attempts with %s jitter within max_elapsed %s",
			r.MaxAttempts, r.Backoff.Jitter, r.MaxElapsed)
	}
	return "set retries: on, and under retry: set " + strings.Join(mend, ", ") + ", since the SDKs ship that policy to every caller"
}

var lintRules = []Rule{
	{
		ID:       "lint/unknown-waiver",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "a waiver names a rule that does not exist",
		Rationale: "A mistyped rule ID waives nothing, so the finding it was meant to silence still fails the run, or worse, the author " +
			"believes a rule is waived for a reason that no longer applies. Waivers are part of the reviewed contract and must " +
			"name real rules.",
		Fix:  "use a rule ID from `retryspec explain --list`",
		Bad:  "lint:\n  waive:\n    - rule: retry/no-budgets\n      because: \"single batch caller\"\n",
		Good: "retry:\n  budget: ~   # absent\nlint:\n  waive:\n    - rule: retry/no-budget\n      because: \"single batch caller\"\n",
		// No Check: Waive reports this rule, after every check has run.
	},
	{
		ID:       "lint/unused-waiver",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "a waiver covers no finding",
		Rationale: "A waiver that no longer matches anything is stale: the contract was fixed, or the path moved. Left in place it " +
			"would silently hide the problem if it came back. staticcheck reports unused suppressions for the same reason.",
		Fix:  "remove the waiver",
		Bad:  "lint:\n  waive:\n    - rule: retry/no-budget\n      because: \"single batch caller\"\n",
		Good: "retry:\n  budget: ~   # absent\nlint:\n  waive:\n    - rule: retry/no-budget\n      because: \"single batch caller\"\n",
		// No Check: Waive reports this rule, after every check has run.
	},
}
