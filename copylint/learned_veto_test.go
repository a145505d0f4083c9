package copylint

import (
	"slices"
	"testing"
)

// TestLearnedVeto: a reader that reads every sentence as no claim (its
// bias says so) drops the claim families' findings at a veto it reaches,
// keeps them without a veto or below it, and never drops a finding of a
// rule it does not read (the bounded exactly-once warning).
func TestLearnedVeto(t *testing.T) {
	c := payoutsContract(t)
	none := &LearnedModel{Classes: []string{learnedNone, "exactly-once"}, Bias: []float64{3, -3}, Weights: map[string][]float64{}}
	page := []byte("# Delivery\n\nEvery transfer is processed exactly once, guaranteed by our platform.\n\n" +
		"Each message is processed exactly once within the deduplication window.\n")
	rulesOf := func(veto float64) []string {
		var out []string
		for _, f := range LintSourceLearnedVeto(c, "x.md", page, none, 0.99, nil, veto) {
			out = append(out, f.Rule)
		}
		return out
	}
	if got := rulesOf(0); !slices.Contains(got, RuleExactlyOnce) || !slices.Contains(got, RuleExactlyOnceBounded) {
		t.Fatalf("without a veto: got %v, want both exactly-once rules", got)
	}
	// p(none) is about 0.9975: a veto of 0.9 is reached, 0.999 is not.
	if got := rulesOf(0.9); slices.Contains(got, RuleExactlyOnce) || !slices.Contains(got, RuleExactlyOnceBounded) {
		t.Errorf("veto 0.9: got %v, want the bounded warning only", got)
	}
	if got := rulesOf(0.999); !slices.Contains(got, RuleExactlyOnce) {
		t.Errorf("veto 0.999 (above the model's 0.9975): got %v, want the claim kept", got)
	}
}

// TestLearnedStandardClaim: the reader reports a standard claim it reads
// with the rule's own message and fix, with or without a contract value.
func TestLearnedStandardClaim(t *testing.T) {
	c := payoutsContract(t)
	l := newLinter(c, false)
	std := &LearnedModel{Classes: []string{learnedNone, "standard-claim"}, Bias: []float64{-3, 3}, Weights: map[string][]float64{}}
	l.learned = &learnedReader{m: std, threshold: 0.9}
	h, _, ok := l.learnedPropose(normalizedProse("Our header is the by-the-book IETF way of doing it."))
	if !ok || h.rule != RuleStandardClaim || h.fix == "" {
		t.Fatalf("got %+v %v, want a %s finding with a fix", h, ok, RuleStandardClaim)
	}
}
