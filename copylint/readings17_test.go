package copylint

import "testing"

// TestEveryMethodButPatch: every method said idempotent but PATCH puts
// POST among the idempotent ones; leaving POST out too is HTTP's own
// rule, and a question asks. Written after heldout31/32 were measured;
// the sentences are invented.
func TestEveryMethodButPatch(t *testing.T) {
	checkReadings(t, []readingCase{
		{"Every HTTP verb is idempotent, save PATCH.", RuleMethodIdempotency, ""},
		{"Every standard verb is idempotent except PATCH.", RuleMethodIdempotency, ""},
		{"All standard methods are idempotent except POST and PATCH.", "", ""},
		{"Are all standard methods idempotent apart from PATCH?", "", ""},
	})
}
