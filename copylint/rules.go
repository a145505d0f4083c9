package copylint

import "github.com/retryspec/retryspec/findings"

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

// severities are the default severities from the catalog (contract.md).
// TODO(core): read them from rules.ByID once the catalog carries the copy rows.
var severities = map[string]findings.Severity{
	RuleExactlyOnce:         findings.Error,
	RuleAbsoluteGuarantee:   findings.Warning,
	RuleStandardClaim:       findings.Warning,
	RuleMethodIdempotency:   findings.Warning,
	RuleRetryAnyError:       findings.Error,
	RuleContradicts:         findings.Error,
	RuleSuppressionNoReason: findings.Error,
	RuleUnusedSuppression:   findings.Warning,
}

// RuleIDs lists every rule this package reports, sorted.
func RuleIDs() []string {
	return []string{
		RuleAbsoluteGuarantee, RuleContradicts, RuleExactlyOnce, RuleMethodIdempotency,
		RuleRetryAnyError, RuleStandardClaim, RuleSuppressionNoReason, RuleUnusedSuppression,
	}
}

func severityOf(id string) findings.Severity {
	if s, ok := severities[id]; ok {
		return s
	}
	return findings.Error
}
