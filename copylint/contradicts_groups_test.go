package copylint

import (
	"regexp"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestContradictsGroupNames: every group name matchSentence and
// parseProseDuration read exists in its pattern, so editing a pattern
// cannot leave a lookup returning nothing.
func TestContradictsGroupNames(t *testing.T) {
	k := newContractChecks(&contract.Contract{Idempotency: contract.Idempotency{Header: "Idempotency-Key"}})
	for _, c := range []struct {
		re    *regexp.Regexp
		names []string
	}{
		{reDuration, []string{"num", "unit", "word", "wordunit"}},
		{k.reHeaderish, []string{"name"}},
		{reAttempts, []string{"count", "countfirst"}},
		{reRetries, []string{"count", "times"}},
		{reBaseDelay, []string{"delay", "startdelay"}},
		{reCapDelay, []string{"delay"}},
		{reGiveUp, []string{"elapsed"}},
		{reFixedWait, []string{"wait"}},
	} {
		for _, name := range c.names {
			if c.re.SubexpIndex(name) < 1 {
				t.Errorf("pattern %.40q has no group %q", c.re, name)
			}
		}
	}
}
