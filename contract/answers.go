package contract

import (
	"slices"
	"sort"
	"time"

	"go.yaml.in/yaml/v3"
)

// This file holds the answers a contract must give that no single field
// check catches (issue 16): the data store beside the claim, whether an
// endpoint calls out, how long its handler may run, whether a proposed
// effect was reviewed, the fleet size, and the attempt timeout's default.
// They are decoded here, in their own functions, so sections.go only calls
// them.

// decodeDataStore reads idempotency.claim.data_store: where the endpoints'
// own rows live. same_transaction is only possible when it is the claim's
// store.
func (d *decoder) decodeDataStore(g map[string]*yaml.Node, path string, cl *Claim) {
	if x, ok := g["data_store"]; ok {
		cl.DataStore = Store(d.enum(x, path+".data_store", Stores...))
	}
}

// decodeEndpointAnswers reads the endpoint fields that answer questions
// only the team can: external_calls (an empty list is an answer, a missing
// one is not), max_duration and reviewed.
func (d *decoder) decodeEndpointAnswers(f map[string]*yaml.Node, path string, e *Endpoint) {
	if _, ok := f["external_calls"]; ok {
		e.ExternalCallsStated = true
	}
	if v, ok := f["max_duration"]; ok {
		e.MaxDuration = d.duration(v, path+".max_duration")
	}
	if v, ok := f["reviewed"]; ok {
		e.Unreviewed = !d.boolean(v, path+".reviewed")
	}
}

// requireDerivation refuses `derivation: []`: integrators would get no
// recommended way to mint keys, and a ranked list cannot rank nothing. A
// contract whose server derives the key (key_source: server-derived) means
// the empty list: clients mint nothing. That is the design flaw, so it loads
// and the key/* rules report it at its place instead of a load error hiding it.
func (d *decoder) requireDerivation(v *yaml.Node, path string, id *Idempotency) {
	if rv := d.resolve(v); rv.Kind == yaml.SequenceNode && len(rv.Content) == 0 {
		id.Derivation = nil
		if id.KeySource == KeyServerDerived {
			return
		}
		d.errorf(rv, path, "list at least one way to mint keys, best first: event-derived, request-scoped, uuid-reused",
			"%s is empty: integrators get no recommended way to mint keys", path)
	}
}

// MaxFleet bounds retry.fleet: a figure of client instances, not a load test.
const MaxFleet = 10_000_000

// decodeFleet reads retry.fleet, the number of client instances.
func (d *decoder) decodeFleet(f map[string]*yaml.Node, path string, r *Retry) {
	if v, ok := f["fleet"]; ok {
		r.Fleet = d.integer(v, path+".fleet", 1, MaxFleet)
	}
}

// DefaultAttemptTimeoutFallback is the per-attempt timeout of a contract
// that states neither attempt_timeout nor max_elapsed.
const DefaultAttemptTimeoutFallback = 10 * time.Second

// DefaultAttemptTimeout is the per-attempt timeout used when the contract
// omits attempt_timeout: an equal share of max_elapsed for each attempt, so
// every attempt the contract allows fits inside the overall bound (rounded
// down to the millisecond), or DefaultAttemptTimeoutFallback without
// max_elapsed. Docs, snippets and the rule that reports the omission all
// read this one figure.
func DefaultAttemptTimeout(r Retry) time.Duration {
	if r.MaxElapsed.IsZero() || r.MaxAttempts < 1 {
		return DefaultAttemptTimeoutFallback
	}
	t := (r.MaxElapsed.D / time.Duration(r.MaxAttempts)).Truncate(time.Millisecond)
	if t <= 0 {
		return time.Millisecond
	}
	return t
}

// applyAttemptTimeoutDefault fills an omitted attempt_timeout, so no page or
// snippet ever shows a zero timeout.
func applyAttemptTimeoutDefault(r *Retry) {
	a := r.AttemptTimeout
	if !a.Bare.IsZero() || !a.P99.IsZero() {
		return
	}
	r.AttemptTimeout = AttemptTimeout{Bare: Dur(DefaultAttemptTimeout(*r))}
	r.timeoutDefaulted = true
}

// Treatment is how the contract's client retry policy treats one status.
type Treatment int

const (
	// NotRetried: the status ends the loop.
	NotRetried Treatment = iota
	// Retried: the status is retried on every attempt the loop allows.
	Retried
	// RetriedOnce: the status is retried at most once (cautious_statuses).
	RetriedOnce
)

// Treatment reconciles statuses (codes and 5XX-style classes) with
// cautious_statuses in one place, for the rules, the docs and the
// snippets: an explicit cautious status wins over a class that covers it,
// and over the same code in statuses (the stricter reading).
func (r Retry) Treatment(status int) Treatment {
	if r.AnyStatus {
		return Retried
	}
	if slices.Contains(r.CautiousStatuses, status) {
		return RetriedOnce
	}
	for _, s := range r.Statuses {
		if s.Matches(status) {
			return Retried
		}
	}
	return NotRetried
}

// StatusPlan is the retried statuses after reconciliation: Codes and
// Classes are retried on every attempt except the Cautious codes, which are
// retried at most once even when a class covers them. Each list is sorted
// and free of repeats.
type StatusPlan struct {
	Codes    []int
	Classes  []int // 5 for 5XX
	Cautious []int
}

// Plan returns the reconciled status plan (empty for `statuses: any`).
func (r Retry) Plan() StatusPlan {
	var p StatusPlan
	for _, s := range r.CautiousStatuses {
		if !slices.Contains(p.Cautious, s) {
			p.Cautious = append(p.Cautious, s)
		}
	}
	for _, s := range r.Statuses {
		switch {
		case s.Class:
			if !slices.Contains(p.Classes, s.Code) {
				p.Classes = append(p.Classes, s.Code)
			}
		case !slices.Contains(p.Cautious, s.Code) && !slices.Contains(p.Codes, s.Code):
			p.Codes = append(p.Codes, s.Code)
		}
	}
	sort.Ints(p.Codes)
	sort.Ints(p.Classes)
	sort.Ints(p.Cautious)
	return p
}

// ClassExceptions lists the cautious codes that a class in statuses would
// otherwise retry on every attempt: 500 for `statuses: [5XX]` with
// `cautious_statuses: [500]`. Docs say so beside the class.
func (r Retry) ClassExceptions(class int) []int {
	var out []int
	for _, c := range r.Plan().Cautious {
		if c/100 == class {
			out = append(out, c)
		}
	}
	return out
}

// HasRecoveryPoints reports whether any endpoint lists recovery points:
// docs and diagrams mention resuming at one only then.
func (c *Contract) HasRecoveryPoints() bool {
	for _, e := range c.Endpoints {
		if len(e.RecoveryPoints) > 0 {
			return true
		}
	}
	return false
}
