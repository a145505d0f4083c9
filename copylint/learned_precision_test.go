package copylint

import (
	"slices"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// The readings of this file were written after reading the false
// findings of the shipped reader on the development sets (heldout7 to
// heldout18 and the leave-one-set-out folds); the sentences are this
// test's own.

// TestLearnedBareAnswer: a question's bare answer ("A: No.") is read
// with the sentence that gives its reasons, as the labelled rows hold
// them; the question read without them is the very claim the answer
// denies. A bare "Yes." is still the claim.
func TestLearnedBareAnswer(t *testing.T) {
	got := unitTexts("q: is the entire api idempotent? a: no. reads are, and keyed transfers are. then more. and more.")
	want := []string{"q: is the entire api idempotent? a: no. reads are, and keyed transfers are.", "then more.", "and more."}
	if !slices.Equal(got, want) {
		t.Errorf("units %q, want %q", got, want)
	}
	checkPredicate(t, "bareAnswer", func(unit string) bool { return bareAnswer([]byte(unit)) }, map[string]bool{
		"q: is it? a: no.":             true,
		"is it? not at all.":           true,
		"is it? no, it is not at all.": false,
		"it is not.":                   false,
	})
	c := payoutsContract(t)
	m, _ := ShippedLearnedModel()
	if fam, p := m.Predict(c, "Q: Is the entire API idempotent? A: No."); fam != "api-idempotent" || p < LearnedThreshold {
		t.Fatalf("the model reads the question and its bare answer as %s at %.2f; the case tests nothing", fam, p)
	}
	for page, want := range map[string]int{
		"Q: Is the entire API idempotent? A: No. Reads are, and keyed transfers are.\n": 0,
		"Q: Is the entire API idempotent? A: Yes.\n":                                    1,
	} {
		if fs := LintSourceLearnedVeto(c, "faq.md", []byte(page), m, LearnedThreshold, LearnedFieldFamilies, LearnedVeto); len(fs) != want {
			t.Errorf("%q: %d findings, want %d: %v", page, len(fs), want, fs)
		}
	}
}

// TestLearnedDenialsAndSenses: a sentence the model reads as a family's
// claim that denies it by the family's own test, beside the claim the
// reader still reports: "exactly once" in the sense the exactly-once
// rule's unless list names, with nothing delivered (otherSense, asked
// directly: the model trained on 2026-12-07 reads its case as no
// claim, so no proposal reaches it); POST's
// idempotency denied with its predicate left out (deniesMethod); a key
// said to be required on a retry, or none needed for a read with no
// retry named (keyedOrRead); the header said to be
// no standard yet (deniesStandard).
func TestLearnedDenialsAndSenses(t *testing.T) {
	c := payoutsContract(t)
	l := learnedLinter(t, c)
	if !l.otherSense(RuleExactlyOnce, normalizedProse("You scan the QR code exactly once during setup.")) {
		t.Error(`"You scan the QR code exactly once during setup.": no other sense of "exactly once"`)
	}
	checkProposals(t, l, c, []proposalCase{
		{"Lumapay processes each payout exactly once.", "exactly-once", true},
		{"GET is idempotent by definition; POST isn't.", "method-idempotency", false},
		{"When you retry a transfer, you must resend the same idempotency key.", "keyless-retry", false},
		{"When you retry a transfer, you don't have to resend any idempotency key.", "keyless-retry", true},
		{"No idempotency key is needed when you fetch a payout's details.", "keyless-retry", false},
		{"No idempotency key is needed when you resend a payout.", "keyless-retry", true},
		{"We follow the IETF Idempotency-Key header spec; it is still an Internet-Draft.", "standard-claim", false},
		{"Lumapay implements the Idempotency-Key header exactly as the IETF RFC specifies.", "standard-claim", true},
	})
	checkPredicate(t, "deniesMethod", deniesMethod, map[string]bool{
		"by the spec, get is idempotent and post is not.":           true,
		"get: idempotent; post: no.":                                true,
		"posts aren't idempotent elsewhere; every lumapay post is.": false,
		"post requests are idempotent, so repeat them.":             false,
	})
	checkPredicate(t, "deniesStandard", deniesStandard, map[string]bool{
		"the ietf text remains an internet-draft.":          true,
		"the header is not yet a ratified standard.":        true,
		"the header is the ratified ietf standard.":         false,
		"we conform to the ietf draft, which is now final.": false,
	})
	checkPredicate(t, "requiresKey", requiresKey, map[string]bool{
		"your connector must send the key again when it retries.":   true,
		"the header is required on transfers.":                      true,
		"no idempotency key required: just resend.":                 false,
		"lumapay requires no key for retries.":                      false,
		"you never have to send a key to retry.":                    false,
		"q: must i send a key when i retry? a: no, just resend it.": false,
	})
}

// proposalCase is a sentence, the family the model must read it as (or
// the case tests nothing), and whether the reader makes a finding of it.
type proposalCase struct {
	sent, family string
	finding      bool
}

// checkProposals holds the reader of l to cases under contract c.
func checkProposals(t *testing.T, l *linter, c *contract.Contract, cases []proposalCase) {
	t.Helper()
	for _, tc := range cases {
		sent := normalizedProse(tc.sent)
		if fam, p := l.learned.m.predictNormalized(c, sent); fam != tc.family || p < LearnedThreshold {
			t.Errorf("%q: the model reads %s at %.2f; the case tests nothing", tc.sent, fam, p)
			continue
		}
		if h, _, ok := l.learnedPropose(sent, LearnedThreshold); ok != tc.finding {
			t.Errorf("%q: a finding %v (%q), want %v", tc.sent, ok, h.message, tc.finding)
		}
	}
}
