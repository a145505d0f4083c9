package rules

import (
	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

var recoveryRules = []Rule{
	{
		ID:       "recovery/no-completer",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "no completer job pushes abandoned in-flight requests to completion",
		Rationale: "When a client gives up mid-request, its claim stays in flight and its side effects half done. Passive expiry leaves " +
			"it that way forever; a completer finds claims whose lock expired and drives them to completion from their recovery " +
			"point (Brandur Leach's completer).",
		Sources: []findings.Source{srcBrandur},
		Fix:     "run a completer and set idempotency.recovery.completer: true",
		Bad:     "idempotency:\n  recovery:\n    completer: false\n    reaper: true\n",
		Good:    "idempotency:\n  recovery:\n    completer: true\n    reaper: true\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.Idempotency.Recovery.Completer {
				return nil
			}
			path := "idempotency.recovery.completer"
			return []findings.Finding{at(c, findings.Finding{Path: path,
				Message: "no completer: a request abandoned mid-flight stays half done until someone notices",
				Fix:     "run a background job that resumes abandoned claims from their recovery point, then set recovery.completer: true"})}
		},
	},
	{
		ID:       "recovery/no-reaper",
		Severity: findings.Warning,
		Scope:    ScopeContract,
		Summary:  "no reaper job deletes expired keys and reports what it could not finish",
		Rationale: "Without a reaper, expired keys pile up, and requests that never completed are never reported to a person. A reaper " +
			"deletes records past reaper_after and logs the unfinished ones (Brandur Leach's reaper).",
		Sources: []findings.Source{srcBrandur},
		Fix:     "run a reaper and set idempotency.recovery.reaper: true",
		Bad:     "idempotency:\n  recovery:\n    completer: true\n    reaper: false\n",
		Good:    "idempotency:\n  recovery:\n    completer: true\n    reaper: true\n",
		Check: func(c *contract.Contract) []findings.Finding {
			if c.Idempotency.Recovery.Reaper {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.recovery.reaper",
				Message: "no reaper: expired keys are never deleted and unfinished requests are never reported to a person",
				Fix:     "run a job that deletes keys past reaper_after and logs the ones it could not finish, then set recovery.reaper: true"})}
		},
	},
}
