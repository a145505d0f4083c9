// Package rules is the lint catalog: every rule is a value in one table with
// its ID, severity, documentation and check. The same documentation feeds
// `retryspec explain`, SARIF rule metadata and the site's rule pages.
//
// It imports contract and findings only.
//
// To add a rule:
//  1. Add a Rule value to its family's slice (rules_<family>.go): an ID
//     "family/what-it-catches", severity, scope, a one-line summary, a
//     rationale in your own words naming its source, the sources, a fix,
//     and Bad / Good fragments (laid over the starter contract in tests).
//  2. Write Check so every finding points at the offending value with
//     at(c, findings.Finding{Path: "dotted.path", ...}) and quotes the contract's own figures.
//  3. Run `go test ./contract/rules -update` to write
//     testdata/rules/<id>/{bad,good}.yaml, then `go test ./...`: the catalog
//     tests check that Bad fires, Good is clean, and the docs are complete.
//  4. Add edge cases to TestRuleCases when the rule has thresholds.
package rules

import (
	"fmt"
	"slices"
	"strings"

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
	// Escalates is the higher severity a finding takes when the value is
	// far enough past the threshold (retry/too-many-attempts: an error
	// above 5 attempts); zero when every finding carries Severity.
	Escalates findings.Severity
	Scope     Scope
	// Summary is one line: what the rule catches.
	Summary string
	// Rationale explains why, in the project's own words, naming its sources.
	Rationale string
	Sources   []findings.Source
	// Fix is the general remedy; findings carry a specific one.
	Fix string
	// Bad and Good are YAML (contract rules) or prose (copy rules) examples:
	// Bad fires the rule, Good is the near miss that does not. Contract
	// examples are fragments laid over a sound contract; a key set to ~ is
	// removed from it.
	Bad, Good string
	// Fixed is the rule's fix applied to Bad: a fragment laid over the Bad
	// contract, empty when Good is that fragment. TestFixesApply lays it
	// over Bad and checks the rule no longer fires, nothing new does, and
	// the finding's fix text names every value the fragment changes, so a
	// fix text cannot recommend what the patch does not do.
	Fixed string
	// Check finds the rule's problems in a contract. Nil for rules whose
	// check lives with another input (openapi drift, copy). A finding may
	// leave Rule and Severity empty: Run fills them from the rule, so only a
	// rule whose severity depends on the value (Escalates) sets Severity itself.
	Check func(c *contract.Contract) []findings.Finding
}

// SeverityText names the severities the rule's findings carry: "warning",
// or "warning/error" for a rule that escalates. explain prints it.
func (r Rule) SeverityText() string {
	if r.Escalates != 0 {
		return r.Severity.String() + "/" + r.Escalates.String()
	}
	return r.Severity.String()
}

// Doc returns the rule's documentation for encoders.
func (r Rule) Doc() findings.RuleDoc {
	return findings.RuleDoc{ID: r.ID, Severity: r.Severity, Summary: r.Summary, Rationale: r.Rationale, Fix: r.Fix, Sources: r.Sources}
}

// table is every rule, one family per file, sorted by ID once.
var table = sortedRules(slices.Concat(
	claimRules, claimAnswerRules, copyRules, endpointRules, endpointAnswerRules, firstRunRules, keyRules, lintRules, openapiRules,
	keyAnswerRules, recoveryRules, retryRules, retryAnswerRules, sdkRules, stateRules, stateAnswerRules, replyRules, verifyRules, windowRules, windowAnswerRules, firstSentRules,
))

func sortedRules(rs []Rule) []Rule {
	slices.SortFunc(rs, func(a, b Rule) int { return strings.Compare(a.ID, b.ID) })
	return rs
}

// Catalog returns every rule, sorted by ID. The slice is a copy.
func Catalog() []Rule { return slices.Clone(table) }

// ByID finds a rule.
func ByID(id string) (Rule, bool) {
	i, ok := slices.BinarySearchFunc(table, id, func(r Rule, id string) int { return strings.Compare(r.ID, id) })
	if !ok {
		return Rule{}, false
	}
	return table[i], true
}

// IDs lists every rule ID, sorted.
func IDs() []string {
	out := make([]string, len(table))
	for i, r := range table {
		out[i] = r.ID
	}
	return out
}

// Docs returns the documentation of every rule, for SARIF rules[].
func Docs() []findings.RuleDoc {
	out := make([]findings.RuleDoc, len(table))
	for i, r := range table {
		out[i] = r.Doc()
	}
	return out
}

// Run runs every contract-scope check, applies the contract's waivers
// (lint.waive) and returns the findings sorted. Waived findings stay in the
// result, marked, so no finding disappears silently.
func Run(c *contract.Contract) []findings.Finding {
	var out []findings.Finding
	for _, r := range table {
		if r.Scope != ScopeContract || r.Check == nil {
			continue
		}
		for _, f := range r.Check(c) {
			if f.Rule == "" {
				f.Rule = r.ID
			}
			if f.Severity == 0 {
				f.Severity = r.Severity
			}
			out = append(out, f)
		}
	}
	out = append(out, waive(c, out, true)...)
	findings.Sort(out)
	return out
}

// MarkWaived applies the contract's waivers to findings from another
// checker (OpenAPI drift in `check --openapi`), in place.
func MarkWaived(c *contract.Contract, fs []findings.Finding) { waive(c, fs, false) }

// waive marks the findings that the contract's waivers cover, in place, and
// with report returns the findings about the waivers themselves: one naming
// a rule that does not exist, or one that covers no contract finding. A
// waiver matches by rule ID and, when it gives a path, by that path or
// anything under it. Findings about waivers are never waived themselves.
func waive(c *contract.Contract, fs []findings.Finding, report bool) []findings.Finding {
	var out []findings.Finding
	for i, w := range c.Lint.Waive {
		if w.Rule == "" {
			continue
		}
		wp := fmt.Sprintf("lint.waive[%d]", i)
		if _, ok := ByID(w.Rule); !ok {
			if !report {
				continue
			}
			fix := "use a rule ID from `retryspec explain --list`"
			if s := Suggest(w.Rule); s != "" {
				fix = fmt.Sprintf("did you mean %s?", s)
			}
			f := at(c, findings.Finding{Path: wp + ".rule", Rule: "lint/unknown-waiver",
				Message: fmt.Sprintf("lint.waive names rule %q, which does not exist, so it waives nothing", w.Rule), Fix: fix})
			f.Severity = findings.Error
			out = append(out, f)
			continue
		}
		used := false
		for j := range fs {
			f := &fs[j]
			if f.Rule != w.Rule || strings.HasPrefix(f.Rule, "lint/") || !underPath(f.Path, w.Path) {
				continue
			}
			used = true
			if !f.Waived {
				f.Waived, f.WaivedBecause = true, w.Because
			}
		}
		if report && !used && ruleScope(w.Rule) == ScopeContract {
			where := ""
			if w.Path != "" {
				where = " at " + w.Path
			}
			f := at(c, findings.Finding{Path: wp + ".rule", Rule: "lint/unused-waiver",
				Message: fmt.Sprintf("the waiver of %s%s covers no finding: the contract no longer breaks that rule", w.Rule, where),
				Fix:     "remove the stale waiver so it cannot hide a future regression"})
			f.Severity = findings.Warning
			out = append(out, f)
		}
	}
	return out
}

func ruleScope(id string) Scope {
	r, _ := ByID(id)
	return r.Scope
}

// underPath reports whether path is prefix or lies under it.
func underPath(path, prefix string) bool {
	if prefix == "" || path == prefix {
		return true
	}
	return strings.HasPrefix(path, prefix) && (path[len(prefix)] == '.' || path[len(prefix)] == '[')
}

// at completes f with the contract's file and the position of the value at
// f.Path (or of its nearest written parent when the value was omitted). A
// check fills Path, Message and Fix; Rule and Severity only when they are
// not its own rule's (Run fills those).
func at(c *contract.Contract, f findings.Finding) findings.Finding {
	p := c.PosOf(f.Path)
	f.File, f.Line, f.Column = c.File, p.Line, p.Column
	return f
}

// plural picks the word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Suggest returns the rule ID nearest to a mistyped one, or "".
func Suggest(id string) string { return contract.DidYouMean(id, IDs()) }

// Sources cited by several rules.
var (
	srcBrandur               = findings.Source{Title: "Brandur Leach, Implementing Stripe-like Idempotency Keys in Postgres", URL: "https://brandur.org/idempotency-keys"}
	srcAWSIdem               = findings.Source{Title: "AWS Builders' Library, Making retries safe with idempotent APIs", URL: "https://aws.amazon.com/builders-library/making-retries-safe-with-idempotent-APIs/"}
	srcStripe                = findings.Source{Title: "Stripe API reference, Idempotent requests", URL: "https://docs.stripe.com/api/idempotent_requests"}
	srcResend                = findings.Source{Title: "Resend, Idempotency keys", URL: "https://resend.com/docs/dashboard/emails/idempotency-keys"}
	srcIETF                  = findings.Source{Title: "IETF draft-ietf-httpapi-idempotency-key-header (expired, unratified)", URL: "https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/"}
	srcBrooker               = findings.Source{Title: "Marc Brooker, Exponential Backoff and Jitter (AWS Architecture Blog)", URL: "https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/"}
	srcTimeout               = findings.Source{Title: "Marc Brooker, Timeouts, retries and backoff with jitter (AWS Builders' Library)", URL: "https://aws.amazon.com/builders-library/timeouts-retries-and-backoff-with-jitter/"}
	srcKleppm                = findings.Source{Title: "Martin Kleppmann, How to do distributed locking", URL: "https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html"}
	srcRFC9110               = findings.Source{Title: "RFC 9110, HTTP Semantics, section 9.2.2 Idempotent Methods", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-9.2.2"}
	srcStaticcheckDirectives = findings.Source{Title: "staticcheck, Ignoring problems with linter directives", URL: "https://staticcheck.dev/docs/configuration/#line-based-linter-directives"}
	srcOpenAPI               = findings.Source{Title: "OpenAPI Specification 3.1, Parameter Object", URL: "https://spec.openapis.org/oas/v3.1.0#parameter-object"}
	srcAWSSDK                = findings.Source{Title: "AWS SDKs and Tools, Retry behavior (standard mode token bucket)", URL: "https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html"}
	srcR4J                   = findings.Source{Title: "Resilience4j documentation, Retry and aspect order", URL: "https://resilience4j.readme.io/docs/getting-started-3"}
	srcTenac                 = findings.Source{Title: "tenacity documentation", URL: "https://tenacity.readthedocs.io/"}
	srcTreat                 = findings.Source{Title: "Tyler Treat, You Cannot Have Exactly-Once Delivery", URL: "https://bravenewgeek.com/you-cannot-have-exactly-once-delivery/"}
	srcStripeShouldRetry     = findings.Source{Title: "stripe-ruby, APIRequestor should_retry? (a replayed 500 and Stripe-Should-Retry)", URL: "https://github.com/stripe/stripe-ruby/blob/master/lib/stripe/api_requestor.rb"}
	srcCheckoutIdem          = findings.Source{Title: "Checkout.com API, Idempotency", URL: "https://www.checkout.com/docs/developer-resources/api/idempotency"}
	srcRFC9110Gateway        = findings.Source{Title: "RFC 9110, HTTP Semantics, section 15.6.3 502 Bad Gateway", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-15.6.3"}
	srcGRPC                  = findings.Source{Title: "gRPC, Deadlines", URL: "https://grpc.io/docs/guides/deadlines/"}
)
