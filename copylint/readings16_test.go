package copylint

import "testing"

// TestDisownedAndOthersReadings: a claim the sentence disowns (said to be
// untrue or a bug, promised by no one, ruled out by a clause of an
// agreement), a claim about someone's legacy client, and the word
// "idempotent" that belongs to another method (its table cell, its own
// clause) are no promise of the page; each has a twin that is one.
// Written after heldout29/30 were measured, on the rules' false findings
// there; the sentences are invented.
func TestDisownedAndOthersReadings(t *testing.T) {
	checkReadings(t, []readingCase{
		// the claim called untrue or a bug
		{`"Our SDK retries every error" is not true of any client we ship.`, "", ""},
		{`Retrying on every error is a bug, and the status table shows why.`, "", ""},
		{`Our SDK retries every error, and that is the design.`, RuleRetryAnyError, ""},
		// promised by no one
		{`I'd never tell you that double payouts are impossible.`, "", ""},
		{`We would never tell merchants double payouts are impossible; keys bound them.`, "", ""},
		{`We promise that double payouts are impossible.`, RuleAbsoluteGuarantee, ""},
		{`Acme does not guarantee that duplicates are impossible; it bounds them by key.`, "", ""},
		// a clause of an agreement ruling the reading out
		{`Nothing in these Terms shall be construed as making PATCH requests idempotent.`, "", ""},
		{`Under these Terms, PATCH requests are idempotent.`, RuleMethodIdempotency, ""},
		// a legacy client
		{`Our former in-house worker retried every error, 422s included, until we moved to the SDK.`, "", ""},
		{`Our worker retries every error, 422s included.`, RuleRetryAnyError, ""},
		// the word is another method's, or says no
		{`| GET | Idempotent: yes | PATCH | Idempotent: no |`, "", ""},
		{`| PATCH | Idempotent: yes |`, RuleMethodIdempotency, ""},
		{`DELETE is idempotent but not safe, and PATCH is neither.`, "", ""},
		{`A DELETE is idempotent by definition, while PATCH is neither safe nor idempotent.`, "", ""},
		{`The idempotent methods are PUT and DELETE, not PATCH.`, "", ""},
		{`PATCH is idempotent, like PUT.`, RuleMethodIdempotency, ""},
	})
}
