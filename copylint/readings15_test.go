package copylint

import "testing"

// TestQuotedWordingJudged: a claim in quotation marks that the sentence
// then calls a line, a sentence or a promise no one can keep names the
// wording as its topic ("Why ... is the riskiest line in a guide"); the
// same quote called a line the writer stands by, or a promise kept, is
// the claim. Written after heldout29/30 were measured, on their false
// positives; the sentences are invented.
func TestQuotedWordingJudged(t *testing.T) {
	checkReadings(t, []readingCase{
		{`Why "retries are always safe" is the riskiest line in an API guide.`, "", ""},
		{`"Retries are always safe" is the line we stand by.`, RuleContradicts, ""},
		{`"No duplicates, ever" is a promise no payments API can keep.`, "", ""},
		{`"No duplicates, ever" is a promise we keep.`, RuleAbsoluteGuarantee, ""},
		{`Why "exactly-once delivery" is a claim nobody can back up.`, "", ""},
	})
}
