package copylint

import (
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
)

// Rule IDs of this package: the catalog's copy/* rows. The last two report
// on the suppressions themselves.
const (
	RuleExactlyOnce         = "copy/exactly-once"
	RuleExactlyOnceBounded  = "copy/exactly-once-bounded"
	RuleAbsoluteGuarantee   = "copy/absolute-guarantee"
	RuleStandardClaim       = "copy/standard-claim"
	RuleMethodIdempotency   = "copy/method-idempotency"
	RuleRetryAnyError       = "copy/retry-any-error"
	RuleContradicts         = "copy/contradicts-contract"
	RuleSuppressionNoReason = "copy/suppression-without-reason"
	RuleUnusedSuppression   = "copy/unused-suppression"
)

// RuleIDs lists every rule this package reports, sorted.
func RuleIDs() []string {
	return []string{
		RuleAbsoluteGuarantee, RuleContradicts, RuleExactlyOnce, RuleExactlyOnceBounded, RuleMethodIdempotency,
		RuleRetryAnyError, RuleStandardClaim, RuleSuppressionNoReason, RuleUnusedSuppression,
	}
}

// severityOf is the rule's default severity, from the catalog.
func severityOf(id string) findings.Severity {
	if r, ok := rules.ByID(id); ok {
		return r.Severity
	}
	return findings.Error
}
