// Package rules is the lint catalog: every rule is a value in one table with
// its ID, severity, documentation and check. The same documentation feeds
// `retryspec explain`, SARIF rule metadata and the site's rule pages.
//
// It imports contract and findings only.
package rules

import (
	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// Scope says which input a rule reads and so which command runs its check.
type Scope string

const (
	ScopeContract Scope = "contract" // `check`: the contract alone
	ScopeOpenAPI  Scope = "openapi"  // `check --openapi`: the contract against a spec
	ScopeCopy     Scope = "copy"     // `copy`: prose files
)

// Rule is one catalog entry.
type Rule struct {
	ID       string
	Severity findings.Severity
	Scope    Scope
	// Summary is one line: what the rule catches.
	Summary string
	// Rationale explains why, in the project's own words, naming its sources.
	Rationale string
	Sources   []findings.Source
	// Fix is the general remedy; findings carry a specific one.
	Fix string
	// Bad and Good are YAML (contract rules) or prose (copy rules) examples:
	// Bad fires the rule, Good is the near miss that does not.
	Bad, Good string
	// Check finds the rule's problems in a contract. Nil for rules whose
	// check lives with another input (openapi drift, copy).
	Check func(c *contract.Contract) []findings.Finding
}

// Doc returns the rule's documentation for encoders.
func (r Rule) Doc() findings.RuleDoc {
	return findings.RuleDoc{ID: r.ID, Severity: r.Severity, Summary: r.Summary, Rationale: r.Rationale, Fix: r.Fix, Sources: r.Sources}
}
