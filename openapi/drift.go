package openapi

import (
	"fmt"
	"strings"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
)

// Rule IDs of the drift checks (catalogued in contract/rules with a nil
// Check, which holds their IDs and severities).
const (
	RuleUnclassified = rules.EndpointUnclassified
	RuleUnknown      = rules.EndpointUnknown
)

// severityOf is the rule's default severity, from the catalog.
func severityOf(id string) findings.Severity {
	r, _ := rules.ByID(id)
	return r.Severity
}

// DriftOptions controls Drift.
type DriftOptions struct {
	// Load is how the spec is loaded. Drift needs only the operations, so
	// callers that value speed on large specs may set SkipValidation.
	Load LoadOptions
}

// Drift compares the contract's endpoints with the spec's operations, both
// ways: a state-changing operation (POST, PUT, PATCH, DELETE) of the spec
// that the contract does not classify is endpoint/unclassified, at its
// line in the spec; a contract endpoint the spec lacks is endpoint/unknown,
// at its line in the contract; a PUT or DELETE whose spec summary or
// description says it appends, counts, sends or charges is
// openapi/summary-contradicts-effect, at the endpoint's effect. Paths match by shape, so /orders/{id} and
// /orders/{order_id} are one operation. The error is a *LoadError when the
// spec cannot be loaded.
func Drift(c *contract.Contract, specPath string, opts DriftOptions) ([]findings.Finding, error) {
	s, err := Load(specPath, opts.Load)
	if err != nil {
		return nil, err
	}
	return DriftSpec(c, s), nil
}

// DriftSpec is Drift on a spec already loaded.
func DriftSpec(c *contract.Contract, s *Spec) []findings.Finding {
	ops := s.Operations()
	out := unclassified(c, s, ops)
	inSpec := index(ops)
	for i, e := range c.Endpoints {
		if e.Method == "" || e.Method == contract.MethodQuery || e.Mutation != "" {
			// Nor has it a GraphQL mutation (one POST carries them all).
			// OpenAPI 3.0 and 3.1 have no query operation: a spec cannot
			// list a QUERY, so its absence says nothing stale.
			continue
		}
		if op, ok := inSpec[shape(e.Method, e.Path)]; ok {
			// The spec's own words about the operation judge the effect
			// too: a contract endpoint imported or written without a
			// summary would otherwise hide "Appends an item" on a PUT.
			if f, ok := rules.SpecSummaryContradicts(c, i, s.Path, scalar(mapGet(op.node, "summary")), scalar(mapGet(op.node, "description"))); ok {
				out = append(out, f)
			}
			continue
		}
		path := fmt.Sprintf("endpoints[%d].operation", i)
		pos := c.PosOf(path)
		fix := fmt.Sprintf("remove the entry, or add the operation to %s", s.Path)
		if near := nearest(e, ops); near != "" {
			fix = fmt.Sprintf("did you mean %q? Otherwise remove the entry, or add the operation to %s", near, s.Path)
		}
		out = append(out, findings.Finding{
			Rule:     RuleUnknown,
			Severity: severityOf(RuleUnknown),
			Message:  fmt.Sprintf("%s is in the contract but not in %s", e.Operation, s.Path),
			File:     c.File, Line: pos.Line, Column: pos.Column, Path: path, Fix: fix,
		})
	}
	findings.Sort(out)
	return out
}

// UnclassifiedFindings is the half of DriftSpec that `openapi` reports too: the
// spec's state-changing operations no endpoint of the contract classifies,
// sorted. Without the other half (endpoints the spec lacks, each with a
// nearest-match search) it stays cheap on a contract of thousands of
// endpoints.
func UnclassifiedFindings(c *contract.Contract, s *Spec) []findings.Finding {
	out := unclassified(c, s, s.Operations())
	findings.Sort(out)
	return out
}

func unclassified(c *contract.Contract, s *Spec, ops []Operation) []findings.Finding {
	var out []findings.Finding
	classified := make(map[string]bool, len(c.Endpoints))
	for _, e := range c.Endpoints {
		classified[shape(e.Method, e.Path)] = true
	}
	for _, op := range ops {
		if !stateChanging[op.Method] || classified[shape(op.Method, op.Path)] {
			continue
		}
		p := propose(op)
		out = append(out, findings.Finding{
			Rule:     RuleUnclassified,
			Severity: severityOf(RuleUnclassified),
			Message:  fmt.Sprintf("%s changes state but the contract's endpoints do not classify it: integrators cannot tell whether a retry is safe", op.Name()),
			File:     s.Path, Line: op.Line, Column: op.Column,
			Path: fmt.Sprintf("paths[%q].%s", op.Path, strings.ToLower(op.Method)),
			Fix:  fmt.Sprintf("add it to endpoints: - {operation: %q, effect: %s, key: %s} (check the effect; %s)", op.Name(), p.Effect, p.Key, p.Reason),
		})
	}
	return out
}

// nearest suggests a spec operation for a contract endpoint the spec
// lacks: the same path under another method, or the same method on a path
// that differs only in case or a trailing slash.
func nearest(e contract.Endpoint, ops []Operation) string {
	want := strings.TrimSuffix(strings.ToLower(contract.PathShape(e.Path)), "/")
	for _, op := range ops {
		got := strings.TrimSuffix(strings.ToLower(contract.PathShape(op.Path)), "/")
		if got == want && op.Method == e.Method {
			return op.Name()
		}
	}
	for _, op := range ops {
		if contract.PathShape(op.Path) == contract.PathShape(e.Path) {
			return op.Name()
		}
	}
	return ""
}

// SummaryThreshold is how many endpoint/unclassified findings text output
// lists one by one; above it, SummarizeUnclassified folds them into one.
const SummaryThreshold = 5

// SummarizeUnclassified folds the unwaived endpoint/unclassified findings
// into one when there are more than SummaryThreshold of them: on a large
// spec (Stripe's has 252) a page of "add this one line" errors hides the
// other findings and says less than a count. The one finding keeps the
// position of the first operation, names the count and a sample, and
// points at the machine formats, which callers keep unfolded so CI can
// annotate every operation at its own line. Other findings pass through.
func SummarizeUnclassified(fs []findings.Finding) []findings.Finding {
	var drift []findings.Finding
	for _, f := range fs {
		if f.Rule == RuleUnclassified && !f.Waived {
			drift = append(drift, f)
		}
	}
	if len(drift) <= SummaryThreshold {
		return fs
	}
	findings.Sort(drift)
	var sample []string
	for _, f := range drift[:SummaryThreshold] {
		name, _, _ := strings.Cut(f.Message, " changes state")
		sample = append(sample, name)
	}
	first := drift[0]
	sum := findings.Finding{
		Rule:     RuleUnclassified,
		Severity: severityOf(RuleUnclassified),
		Message: fmt.Sprintf("%d state-changing operations of the spec are not classified by the contract's endpoints (%s, and %d more): integrators cannot tell whether a retry is safe",
			len(drift), strings.Join(sample, ", "), len(drift)-len(sample)),
		File: first.File, Line: first.Line, Column: first.Column, Path: first.Path,
		Fix: "classify each in endpoints; `--format json` lists every operation with its line and a proposed effect and key",
	}
	out := make([]findings.Finding, 0, len(fs)-len(drift)+1)
	out = append(out, sum)
	for _, f := range fs {
		if f.Rule == RuleUnclassified && !f.Waived {
			continue
		}
		out = append(out, f)
	}
	findings.Sort(out)
	return out
}
