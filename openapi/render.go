package openapi

import (
	"github.com/retryspec/retryspec/contract"
)

// Result is everything `retryspec openapi` (and `build --openapi`) writes
// for one contract and one spec.
type Result struct {
	// Spec is the loaded spec, without its Doc: kin-openapi's model is
	// dropped once the spec is validated.
	Spec *Spec
	Plan *Plan
	// Overlay is the Overlay 1.0 document as YAML (JSON when asked).
	Overlay []byte
	// Merged is the spec with the additions inserted, in its own format.
	Merged []byte
}

// Render loads the spec at specPath and renders both outputs. overlayJSON
// asks for the overlay as JSON. The error is a *LoadError when the spec
// cannot be loaded. Contradictions are in Result.Plan.Findings.
func Render(c *contract.Contract, specPath string, opts LoadOptions, overlayJSON bool) (*Result, error) {
	s, err := Load(specPath, opts)
	if err != nil {
		return nil, err
	}
	// kin-openapi's model has done its work (the spec is valid): the plan
	// and both outputs work on the YAML tree and the bytes. Dropped, it
	// lets the collector take back most of the memory a large spec holds.
	s.Doc = nil
	p := NewPlan(c, s)
	merged, err := Merged(s, p)
	if err != nil {
		return nil, err
	}
	return &Result{Spec: s, Plan: p, Overlay: OverlayText(Overlay(c, s, p), overlayJSON), Merged: merged}, nil
}
