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
		Bad:     "sdk:\n  retries: off\n",
		Good:    "sdk:\n  retries: on\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.SDK == nil || c.SDK.Retries != contract.Off {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "sdk.retries",
				Message: fmt.Sprintf("sdk.retries is off: callers of the %s SDKs get no retries unless they write their own loop", strings.Join(c.SDK.Languages, ", ")),
				Fix:     fmt.Sprintf("set retries: on with the contract's policy: %d attempts, %s jitter, max_elapsed %s", c.Retry.MaxAttempts, c.Retry.Backoff.Jitter, c.Retry.MaxElapsed)})}
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
				Message: fmt.Sprintf("auto_idempotency_key is false: SDK retries of keyed endpoints are safe only when the caller remembers to send the %s header", c.Idempotency.Header),
				Fix:     "set auto_idempotency_key: true: mint one key per call and reuse it on every retry of that call"})}
		},
	},
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
