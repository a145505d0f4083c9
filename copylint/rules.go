package copylint

import (
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
)

// Rule IDs of this package. The first six are the catalog's copy/* rows;
// the last two report on the suppressions themselves.
const (
	RuleExactlyOnce         = "copy/exactly-once"
	RuleAbsoluteGuarantee   = "copy/absolute-guarantee"
	RuleStandardClaim       = "copy/standard-claim"
	RuleMethodIdempotency   = "copy/method-idempotency"
	RuleRetryAnyError       = "copy/retry-any-error"
	RuleContradicts         = "copy/contradicts-contract"
	RuleSuppressionNoReason = "copy/suppression-without-reason"
	RuleUnusedSuppression   = "copy/unused-suppression"
)

// suppressionRules document the two rules about suppressions themselves,
// which the catalog (contract/rules) does not list yet. SuppressionRuleDocs
// hands them to the encoders; a catalog entry, once added, wins.
var suppressionRules = []findings.RuleDoc{
	{
		ID: RuleSuppressionNoReason, Severity: findings.Error,
		Summary: "an inline copy suppression gives no reason",
		Rationale: "A suppression is a reviewed exception: the reason is what the reviewer approves and what the next " +
			"reader needs (staticcheck's linter directives work the same way). Without one it waives nothing.",
		Fix: "write the reason after two dashes: <!-- retryspec-disable-next-line copy/exactly-once -- quoting a vendor's claim -->",
	},
	{
		ID: RuleUnusedSuppression, Severity: findings.Warning,
		Summary: "an inline copy suppression or a docs.copy.allow entry waives nothing",
		Rationale: "A stale suppression hides the next real claim written on that line, and an allow entry that matches " +
			"nothing outlives the page it was written for.",
		Fix: "remove it, or move it above the line it is meant for",
	},
}

// SuppressionRuleDocs documents the suppression rules that the catalog
// does not carry, for SARIF rules[] and explain.
func SuppressionRuleDocs() []findings.RuleDoc {
	var out []findings.RuleDoc
	for _, d := range suppressionRules {
		if _, ok := rules.ByID(d.ID); !ok {
			out = append(out, d)
		}
	}
	return out
}

// RuleIDs lists every rule this package reports, sorted.
func RuleIDs() []string {
	return []string{
		RuleAbsoluteGuarantee, RuleContradicts, RuleExactlyOnce, RuleMethodIdempotency,
		RuleRetryAnyError, RuleStandardClaim, RuleSuppressionNoReason, RuleUnusedSuppression,
	}
}

// severityOf is the rule's default severity, from the catalog.
func severityOf(id string) findings.Severity {
	if r, ok := rules.ByID(id); ok {
		return r.Severity
	}
	for _, d := range suppressionRules {
		if d.ID == id {
			return d.Severity
		}
	}
	return findings.Error
}
