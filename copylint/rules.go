package copylint

import (
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
)

// Rule IDs of this package: the catalog's copy/* rows, whose IDs and
// severities live in contract/rules. The last two report on the
// suppressions themselves.
const (
	RuleExactlyOnce         = rules.CopyExactlyOnce
	RuleExactlyOnceBounded  = rules.CopyExactlyOnceBounded
	RuleAbsoluteGuarantee   = rules.CopyAbsoluteGuarantee
	RuleStandardClaim       = rules.CopyStandardClaim
	RuleMethodIdempotency   = rules.CopyMethodIdempotency
	RuleRetryAnyError       = rules.CopyRetryAnyError
	RuleContradicts         = rules.CopyContradicts
	RuleSuppressionNoReason = rules.CopySuppressionNoReason
	RuleUnusedSuppression   = rules.CopyUnusedSuppression
)

// RuleIDs lists every rule this package reports, sorted: the catalog's
// copy-scope rules.
func RuleIDs() []string {
	var out []string
	for _, r := range rules.Catalog() {
		if r.Scope == rules.ScopeCopy {
			out = append(out, r.ID)
		}
	}
	return out
}

// severityOf is the rule's default severity, from the catalog.
func severityOf(id string) findings.Severity {
	if r, ok := rules.ByID(id); ok {
		return r.Severity
	}
	return findings.Error
}
