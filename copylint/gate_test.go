package copylint

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
)

// The literal gate may only skip what the pattern cannot match: on every
// sentence and suffix and prefix of the project's corpus, each gated
// pattern answers as the bare pattern does.
func TestGateAgreesWithPattern(t *testing.T) {
	testenv.SkipUnderRace(t, "checks every gated pattern on every prefix and suffix of the claim corpus")
	c := clauseAnalysis()
	pats := map[string]*gatedRE{"mention": c.mention, "mention_after": c.mentionAfter, "modal": c.modal, "purpose": c.purpose, "boundaries": c.boundaries,
		"instruction": c.instruction, "topic": c.topic, "topic_end": c.topicEnd}
	for _, r := range newLinter(nil, false).rules {
		for name, g := range map[string]*gatedRE{"deny_before": r.denyBefore, "deny_after": r.denyAfter, "qualified": r.qualified} {
			if g != nil {
				pats[r.id+" "+name] = g
			}
		}
		for i, f := range r.forms {
			pats[fmt.Sprintf("%s form %d match", r.id, i+1)] = f.match
			for j, g := range f.needs {
				pats[fmt.Sprintf("%s form %d needs %d", r.id, i+1, j+1)] = g
			}
			for j, g := range f.unless {
				pats[fmt.Sprintf("%s form %d unless %d", r.id, i+1, j+1)] = g
			}
			if f.denyWithin != nil {
				pats[fmt.Sprintf("%s form %d deny_within", r.id, i+1)] = f.denyWithin
			}
		}
	}
	for re, g := range contractGates() {
		pats["contract "+re.String()[:min(40, len(re.String()))]] = g
	}
	if c, err := contract.Load(filepath.Join("..", "examples", "payouts", "retryspec.yaml")); err == nil {
		pats["contract header"] = newContractChecks(c).gHeaderish
	} else {
		t.Fatal(err)
	}
	gated := 0
	for name, g := range pats {
		if g.built().gate != nil {
			gated++
		}
		for _, tc := range claimCorpus {
			var n normText
			src := []byte(tc.text)
			normalize(src, 0, len(src), nil, false, &n)
			for i := 0; i <= len(n.text); i += 7 {
				for _, s := range [][]byte{n.text[:i], n.text[i:]} {
					if got, want := g.Match(s), g.re.Match(s); got != want {
						t.Errorf("%s on %q: gated %v, pattern %v", name, s, got, want)
					}
				}
			}
		}
	}
	if gated < len(pats)/2 {
		t.Errorf("only %d of %d patterns have a gate", gated, len(pats))
	}
	// A pattern with an optional word has no required literal from it.
	if l := requiredLiteralsOf(`\b(a|an)? ?(foo|bar)`); len(l) != 2 {
		t.Errorf("required literals %q, want foo and bar", l)
	}
	if l := requiredLiteralsOf(`x*`); l != nil {
		t.Errorf("x* requires %q", l)
	}
}

func requiredLiteralsOf(p string) []string {
	g := newGatedRE(regexp.MustCompile(p)).built()
	if g.gate == nil {
		return nil
	}
	st, _ := parseSimplified(p)
	return requiredLiterals(st)
}
