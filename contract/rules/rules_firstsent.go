package rules

import (
	"fmt"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// Sources of the first-sent rules.
var (
	srcOASISRepeatable = findings.Source{Title: "OASIS Repeatable Requests Version 1.0", URL: "https://docs.oasis-open.org/odata/repeatable-requests/v1.0/repeatable-requests-v1.0.html"}
	srcAzureRepeatable = findings.Source{Title: "Azure Communication Services REST API, Repeatable requests", URL: "https://learn.microsoft.com/en-us/rest/api/communication/repeatable-requests"}
)

// firstSentRules check a window measured from the client's first-sent
// time (idempotency.first_sent, issue 32) against what the server keeps.
var firstSentRules = []Rule{
	{
		ID:       "window/first-sent-without-header",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "a first-sent window names no header carrying the first-sent time",
		Rationale: "A window measured from the time the client first sent a request needs that time on every attempt: OASIS Repeatable " +
			"Requests, and Azure Communication Services after it, carry it in a header of its own as an HTTP date, beside the key. " +
			"Without the header's name the docs cannot tell integrators what to send, the OpenAPI additions cannot declare it, and " +
			"a server cannot measure the window at all.",
		Sources: []findings.Source{srcOASISRepeatable, srcAzureRepeatable},
		Fix:     "name the header in idempotency.first_sent.header, e.g. Repeatability-First-Sent",
		Bad:     "idempotency:\n  replay_window: 24h\n  first_sent:\n    window: 5m\n",
		Good:    "idempotency:\n  replay_window: 24h\n  first_sent:\n    header: Repeatability-First-Sent\n    window: 5m\n",
		Check: func(c *contract.Contract) []findings.Finding {
			fs := c.Idempotency.FirstSent
			if !fs.Set() || fs.Header != "" {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.first_sent.header",
				Message: fmt.Sprintf("first_sent.window %s is measured from a first-sent time, but no header carries that time: clients cannot send it and the server cannot measure the window", fs.Window),
				Fix:     "add first_sent.header: Repeatability-First-Sent (the header your clients stamp with the first attempt's time)"})}
		},
	},
	{
		ID:       "window/first-sent-outlives-record",
		Severity: findings.Error,
		Scope:    ScopeContract,
		Summary:  "the first-sent window is longer than the replay window that keeps the key's record",
		Rationale: "A first-sent window lets a retry through as long as its first-sent time is recent enough; the key's record, kept for " +
			"replay_window on the server's clock, is what makes that retry a replay. When the first-sent window is the longer of the " +
			"two, a retry that arrives after the record is gone but inside the first-sent window passes the age check, finds no " +
			"record, and runs a second time: the very duplicate the window was meant to refuse. Azure keeps both at 5 minutes. A " +
			"client clock that runs ahead of the server's stretches the first-sent window by the difference, so leave a margin.",
		Sources: []findings.Source{srcOASISRepeatable, srcAzureRepeatable},
		Fix:     "raise replay_window to at least first_sent.window, or shorten first_sent.window",
		Bad:     "idempotency:\n  replay_window: 1h\n  first_sent:\n    header: Repeatability-First-Sent\n    window: 2h\n",
		Good:    "idempotency:\n  replay_window: 2h\n  first_sent:\n    header: Repeatability-First-Sent\n    window: 2h\n",
		Fixed:   "idempotency:\n  replay_window: 2h\n",
		Check: func(c *contract.Contract) []findings.Finding {
			id := c.Idempotency
			fs := id.FirstSent
			if !fs.Set() || fs.Window.D <= id.ReplayWindow.D {
				return nil
			}
			return []findings.Finding{at(c, findings.Finding{Path: "idempotency.first_sent.window",
				Message: fmt.Sprintf("first_sent.window %s is longer than replay_window %s: a retry %s after the first attempt still passes the first-sent check, finds the key's record gone and runs again",
					fs.Window, id.ReplayWindow, id.ReplayWindow),
				Fix: fmt.Sprintf("set replay_window: %s (at least first_sent.window), or shorten first_sent.window to %s", contract.FormatDuration(fs.Window.D), id.ReplayWindow)})}
		},
	},
}
