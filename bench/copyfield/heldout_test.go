package copyfield

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/copylint"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/internal/copyset"
)

// heldOutFamilies are the claim families of heldout.tsv and the rules a
// claim of each may be reported under: a claim about a contract value is
// copy/contradicts-contract when a contract is loaded, and some families
// also have a contract-free rule of their own.
var heldOutFamilies = map[string][]string{
	"retry-duration":     {copylint.RuleContradicts, copylint.RuleRetryAnyError},
	"safe-to-retry":      {copylint.RuleContradicts, copylint.RuleMethodIdempotency},
	"keyless-retry":      {copylint.RuleContradicts, copylint.RuleMethodIdempotency},
	"api-idempotent":     {copylint.RuleContradicts},
	"no-duplicates":      {copylint.RuleAbsoluteGuarantee},
	"key-retention":      {copylint.RuleContradicts},
	"exactly-once":       {copylint.RuleExactlyOnce},
	"standard-claim":     {copylint.RuleStandardClaim},
	"method-idempotency": {copylint.RuleMethodIdempotency},
	"retry-any-error":    {copylint.RuleRetryAnyError},
}

type heldOutLine struct {
	family, verdict, source, sentence string
	file                              string
	line                              int // in file
}

func readHeldOut(t testing.TB, file string) []heldOutLine {
	t.Helper()
	rows, err := copyset.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []heldOutLine
	for _, r := range rows {
		if strings.TrimSpace(r.Source) == "" || strings.TrimSpace(r.Sentence) == "" {
			t.Fatalf("%s:%d: want family, verdict, source, sentence: the source or the sentence is empty", file, r.Line)
		}
		if _, ok := heldOutFamilies[r.Family]; !ok {
			t.Fatalf("%s:%d: unknown family %q", file, r.Line, r.Family)
		}
		switch r.Verdict {
		case "claim", "clean":
		case "bounded":
			if r.Family != "exactly-once" {
				t.Fatalf("%s:%d: only exactly-once claims can be bounded", file, r.Line)
			}
		default:
			t.Fatalf("%s:%d: verdict %q is not claim, bounded or clean", file, r.Line, r.Verdict)
		}
		out = append(out, heldOutLine{family: r.Family, verdict: r.Verdict, source: r.Source, sentence: r.Sentence, file: file, line: r.Line})
	}
	return out
}

// heldOutPage is the held-out set as one Markdown page about idempotent
// requests, one sentence a paragraph; line i*2+3 holds sentence i.
func heldOutPage(ls []heldOutLine) []byte {
	var b strings.Builder
	b.WriteString("# Idempotent requests\n")
	for _, l := range ls {
		b.WriteString("\n" + l.sentence + "\n")
	}
	return []byte(b.String())
}

// heldOutScore lints the page with the example contract and scores each
// family: a claim is found when a finding of one of its family's rules (of
// copy/exactly-once-bounded for a bounded claim) is on its line, a clean
// sentence is a false positive when any finding is on its line.
type familyScore struct{ claims, clean, tp, fp, fn int }

func heldOutScore(t testing.TB, ls []heldOutLine, fs []findings.Finding) (map[string]*familyScore, []string) {
	byLine := map[int]map[string]bool{}
	for _, f := range fs {
		if byLine[f.Line] == nil {
			byLine[f.Line] = map[string]bool{}
		}
		byLine[f.Line][f.Rule] = true
	}
	per := map[string]*familyScore{}
	for fam := range heldOutFamilies {
		per[fam] = &familyScore{}
	}
	var notes []string
	for i, l := range ls {
		got := byLine[i*2+3]
		s := per[l.family]
		switch l.verdict {
		case "clean":
			s.clean++
			if len(got) > 0 {
				s.fp++
				notes = append(notes, fmt.Sprintf("false positive %v at %s:%d (%s)", keys(got), l.file, l.line, l.family))
			}
		default:
			s.claims++
			want := heldOutFamilies[l.family]
			if l.verdict == "bounded" {
				want = []string{copylint.RuleExactlyOnceBounded}
			}
			found := false
			for _, r := range want {
				found = found || got[r]
			}
			if found {
				s.tp++
			} else {
				s.fn++
				notes = append(notes, fmt.Sprintf("missed %s claim at %s:%d (got %v)", l.family, l.file, l.line, keys(got)))
			}
		}
	}
	return per, notes
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// heldOutTable formats the scores per family and overall.
func heldOutTable(per map[string]*familyScore) (string, float64, float64) {
	var fams []string
	for f := range per {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	var b strings.Builder
	var all familyScore
	for _, f := range fams {
		s := per[f]
		all.claims, all.clean, all.tp, all.fp, all.fn = all.claims+s.claims, all.clean+s.clean, all.tp+s.tp, all.fp+s.fp, all.fn+s.fn
		fmt.Fprintf(&b, "  %-20s claims=%3d clean=%3d tp=%3d fp=%2d fn=%2d precision=%.3f recall=%.3f\n", f, s.claims, s.clean, s.tp, s.fp, s.fn, ratio(s.tp, s.tp+s.fp), ratio(s.tp, s.tp+s.fn))
	}
	p, r := ratio(all.tp, all.tp+all.fp), ratio(all.tp, all.tp+all.fn)
	fmt.Fprintf(&b, "  %-20s claims=%3d clean=%3d tp=%3d fp=%2d fn=%2d precision=%.3f recall=%.3f\n", "overall", all.claims, all.clean, all.tp, all.fp, all.fn, p, r)
	return b.String(), p, r
}

// TestHeldOut measures the copy lint on the held-out sentences of
// heldout.tsv (written before the claim families' rules and never used to
// write them), with the example contract loaded. It needs nothing outside
// the repository. It prints recall and precision per family.
func TestHeldOut(t *testing.T) {
	measureHeldOut(t, "heldout.tsv", 150, heldOutMinPrecision, heldOutMinRecall)
}

// The floors on the held-out set: issue 29's goals (recall 0.9, precision
// 0.95); BENCHMARKS.md has the figures measured before and after.
const heldOutMinPrecision, heldOutMinRecall = 0.95, 0.90

// TestHeldOutFresh measures the lint on heldout2.tsv: sentences of the
// three families that stayed under the goal on heldout.tsv
// (retry-duration, method-idempotency, keyless-retry), written before the
// rule changes that looked at heldout.tsv's misses and never used to make
// them. It reports per family; it fails below the precision goal
// or below the recall measured when the set was written (a regression
// floor, not the goal: BENCHMARKS.md has the figures).
func TestHeldOutFresh(t *testing.T) {
	measureHeldOut(t, "heldout2.tsv", 60, heldOutMinPrecision, freshMinRecall)
}

// freshMinRecall is a floor against regressions on heldout2.tsv: 0.447
// when it was written, 1.000 since it became the development set of the
// recognisers that read what a sentence asserts (so it no longer measures
// generalisation: heldout3.tsv does).
const freshMinRecall = 0.97

// TestHeldOutThird measures the lint on heldout3.tsv: sentences of every
// claim family in other authorship styles (FAQ answers, changelogs,
// support replies), written before the rule changes that looked at
// heldout2.tsv's misses and never used to make them; since the change
// that reads a promise by its parts it is a development set too. Like
// TestHeldOutFresh, its floors are regression floors: the figures last
// measured, rounded down (BENCHMARKS.md has them).
func TestHeldOutThird(t *testing.T) {
	measureHeldOut(t, "heldout3.tsv", 60, thirdMinPrecision, thirdMinRecall)
}

// thirdMinPrecision and thirdMinRecall are regression floors on
// heldout3.tsv: 0.842 / 0.381 when it was written, 0.846 / 0.524 after
// the recognisers developed on heldout2.tsv, 0.977 / 1.000 on 2026-12-03
// after the families read a promise by its parts and an FAQ answer with
// its question (rounded down). heldout3.tsv was the development set of
// that change, so these figures no longer measure generalisation: a set
// written after it does. The one false positive left is line 40, "each
// API call it makes is retried no more than three times", which the
// attempt check reads as 3 retries (4 attempts) against max_attempts 3,
// as the contract counts.
const thirdMinPrecision, thirdMinRecall = 0.97, 1.00

// TestHeldOutFourth measures the lint on heldout4.tsv: 80 sentences in
// yet other authorship styles (dashboard text, API reference fields,
// onboarding emails, status posts, partner guides), written by another
// author and first measured unseen (recall 0.696, precision 0.914 on the
// rules developed on heldout3.tsv). The change that reads a promise's
// grammar (control verbs, passive and causative voice, negated harm,
// durations in halves and as adjectives, counts with adjectives, quotes
// named by what follows them) was then tuned on its misses and on
// dev5.tsv, so it is now a development set like the others, and its
// floors are regression floors: the figures after that change, rounded
// down (BENCHMARKS.md has them). A set written after it measures.
func TestHeldOutFourth(t *testing.T) {
	measureHeldOut(t, "heldout4.tsv", 60, fourthMinPrecision, fourthMinRecall)
}

// fourthMinPrecision and fourthMinRecall: 1.000 / 0.978 measured, less a
// small margin. The one miss left is line 55, whose retry and key sit in
// two clauses joined by a semicolon, which splits sentences.
const fourthMinPrecision, fourthMinRecall = 0.97, 0.95

// TestHeldOutFifth measures the lint on heldout5.tsv: 168 sentences in
// genres the earlier sets lack (changelogs, pricing pages, social posts,
// support macros, app-store text, non-native English, MDX and HTML
// fragments), written by an engineer who read neither the rules nor the
// other sets. heldout5 was unseen until Session 12's measurement (0.896
// precision / 0.625 recall, on the promise-grammar change tuned on
// heldout4.tsv and dev5.tsv) and became a development set in the next
// round: the method-idempotent, retry-status and endpoint-safe-to-retry
// families, fragment questions joined to their answers, "exactly once"
// in other senses and figures in questions or quotes were tuned on its
// misses. Its floors are regression floors now, like the other sets'; a
// set written after that round measures generalisation.
func TestHeldOutFifth(t *testing.T) {
	measureHeldOut(t, "heldout5.tsv", 150, fifthMinPrecision, fifthMinRecall)
}

// fifthMinPrecision and fifthMinRecall: 0.896 / 0.625 measured unseen
// (BENCHMARKS.md, "Copy lint on a fifth unseen set"); 1.000 / 0.979
// after the round that tuned on it, less a small margin. The two misses
// left: line 132 ("up to forty-eight hours later", a duration after the
// key and before "later") and line 137 (a table row whose cells hold the
// subject and the figure apart).
const fifthMinPrecision, fifthMinRecall = 0.97, 0.95

// TestHeldOutSixth measures the lint on heldout6.tsv: 172 sentences (93
// claims, 79 clean) written on 2026-12-06 by an evaluator who read neither
// the rules nor the other sets, before the round that tuned on
// heldout5.tsv landed. Measured unseen: 0.943 precision / 0.538 recall on
// the lint before that round, 0.951 / 0.624 after it (BENCHMARKS.md, "Copy
// lint on a sixth unseen set").
//
// In the next round heldout6 became a development set: its misses and
// false positives were studied and read as classes (TestSixthSetReadings
// in copylint), which took it to 1.000 / 0.935 with every earlier set,
// the hand labels and the shared corpora unchanged. It no longer measures
// generalisation; the floors keep that figure, less a small margin, as a
// guard against regressions.
func TestHeldOutSixth(t *testing.T) {
	measureHeldOut(t, "heldout6.tsv", 150, sixthMinPrecision, sixthMinRecall)
}

const sixthMinPrecision, sixthMinRecall = 0.99, 0.92

// TestHeldOutSeventh measures the lint on heldout7.tsv: 170 sentences (91
// claims, 79 clean) written on 2026-12-06 by an evaluator who read neither
// the rules nor the other sets, while the round that tuned on
// heldout6.tsv was under way and before it landed. Measured unseen: 0.953
// precision / 0.670 recall before that round, 0.957 / 0.725 after it
// (BENCHMARKS.md, "Copy lint on a seventh unseen set").
//
// In the next round heldout7 became a development set: its misses were
// read as general readings, not as phrasings (structured copy read as
// attributes and values, counts in any spelling, concept lexicons, a
// keyless promise across a semicolon, POST reasoned idempotent; TestStructuredCopyReadings
// and the tests beside it in copylint, none with heldout7's wording),
// which took it to 1.000 / 1.000. It no longer measures generalisation;
// the floors keep that figure, less a small margin, against regressions.
func TestHeldOutSeventh(t *testing.T) {
	measureHeldOut(t, "heldout7.tsv", 150, seventhMinPrecision, seventhMinRecall)
}

const seventhMinPrecision, seventhMinRecall = 0.98, 0.97

// TestHeldOutEighth and TestHeldOutNinth measure the lint on heldout8.tsv
// (191 sentences: launch posts, pricing pages, SDK READMEs, comparison
// pages, FAQ entries) and heldout9.tsv (190: support replies, forum
// answers, postmortems, changelogs, API reference text, sales emails),
// written on 2026-12-06 by two evaluators who read neither the rules nor
// the other sets, before the round that tuned on heldout7 landed.
// Measured unseen (BENCHMARKS.md, "Copy lint on the eighth and ninth
// unseen sets"): heldout8 0.903 precision / 0.650 recall before that round
// and 0.944 / 0.680 after it; heldout9 0.894 / 0.590 before and
// 0.909 / 0.600 after.
//
// In the next round both became development sets: their false positives
// and misses were read as general readings (meta-talk about wording, a
// harm or a denial after the claim, the contract's own bound stated, a
// third party's guarantee within its own scope, concept lexicons for
// keyless retries, retry safety, statuses, standards, PATCH and vague
// durations; the tests in copylint/readings10_test.go, none with these
// sets' wording), which took heldout8 to 1.000 / 0.780 and heldout9 to
// 1.000 / 0.750. They no longer measure generalisation; the floors keep
// the latest figures, less a small margin, against regressions.
//
// The round after that (copylint/readings11_test.go: a question answered
// by its affirmative, comparisons by ellipsis or pronoun, "can't ...
// twice", loop metaphors, defaults with an opt-in ceiling) took heldout8
// to 1.000 / 0.890 and heldout9 to 1.000 / 0.800.
//
// The heldout12 round (copylint/readings13_test.go: precision first,
// then general recall readings, none with these sets' wording) took
// heldout8 to 1.000 / 0.940 and heldout9 to 1.000 / 0.910; the floors
// keep those figures less 0.02.
func TestHeldOutEighth(t *testing.T) {
	measureHeldOut(t, "heldout8.tsv", 150, eighthMinPrecision, eighthMinRecall)
}

const eighthMinPrecision, eighthMinRecall = 0.98, 0.92

func TestHeldOutNinth(t *testing.T) {
	measureHeldOut(t, "heldout9.tsv", 150, ninthMinPrecision, ninthMinRecall)
}

const ninthMinPrecision, ninthMinRecall = 0.98, 0.89

// TestHeldOutTenth measures the lint on heldout10.tsv: 190 sentences (100
// claims, 90 clean) in genres no earlier set focused on (app-store text,
// press releases, job posts, SLA and terms paragraphs, tutorial
// transcripts, dashboard banners, sales battlecards), written on
// 2026-12-06 by an evaluator who read neither the rules nor any set's
// sentences, while the round that tuned on heldout8 and heldout9 was under
// way. Measured unseen (BENCHMARKS.md, "Copy lint on the eighth, ninth and
// tenth unseen sets"): 0.886 precision / 0.620 recall at the start of the
// session, 0.901 / 0.640 after the round tuned on heldout7, 0.907 / 0.680
// after the round tuned on heldout8 and heldout9. It then became a
// development set with them: the next round took it to 0.987 / 0.750.
// The floors keep the last, less a margin: 1.000 / 0.860 after the
// heldout12 round (copylint/readings13_test.go), less 0.02.
func TestHeldOutTenth(t *testing.T) {
	measureHeldOut(t, "heldout10.tsv", 150, tenthMinPrecision, tenthMinRecall)
}

const tenthMinPrecision, tenthMinRecall = 0.98, 0.84

// TestHeldOutEleventh measures heldout11.tsv, 190 sentences written on
// 2026-12-06 by an evaluator who read neither the rules nor any set's
// sentences, while a round tuned on heldout8 to heldout10 was under way.
// Measured unseen once, before and after that round (BENCHMARKS.md, "Copy
// lint on an eleventh and a twelfth unseen set"); it then became the
// development set of the next round (readings12_test.go). The floors keep
// the figures after the latest round (1.000 / 0.980 after the heldout12
// round, readings13_test.go), less 0.02.
func TestHeldOutEleventh(t *testing.T) {
	measureHeldOut(t, "heldout11.tsv", 150, eleventhMinPrecision, eleventhMinRecall)
}

const eleventhMinPrecision, eleventhMinRecall = 0.98, 0.96

// TestHeldOutTwelfth measures heldout12.tsv, 190 sentences written on
// 2026-12-06 by an evaluator who read neither the rules nor any set's
// sentences, while the round tuned on heldout11 was under way. Measured
// unseen at the session's start and after each of its two rounds
// (BENCHMARKS.md, "Copy lint on an eleventh and a twelfth unseen set");
// one fix it showed afterwards, a figure with a thousands separator, took
// a false positive away. It then became the development set of the
// heldout12 round (copylint/readings13_test.go: its four false positives
// read as general readings, then recall), which took it from 0.944 /
// 0.680 to 1.000 / 0.890; it no longer measures generalisation. The
// floors keep the last figures, less 0.02. The learned reader trains on
// it since.
func TestHeldOutTwelfth(t *testing.T) {
	measureHeldOut(t, "heldout12.tsv", 150, twelfthMinPrecision, twelfthMinRecall)
}

const twelfthMinPrecision, twelfthMinRecall = 0.98, 0.87

// TestHeldOutThirteenth and TestHeldOutFourteenth measure heldout13.tsv
// and heldout14.tsv, 190 sentences each written on 2026-12-06 by two
// evaluators who read neither the rules nor any set's sentences:
// heldout13 before any change of that afternoon, heldout14 after the
// learned reader's training sets were written. Each was measured once at
// the afternoon's final code, unseen by rules and reader (BENCHMARKS.md,
// "Copy lint on eight training sets written blind, and two more unseen
// sets"); the floors were the rules' figures then, less 0.02. The learned
// reader trains on them since (internal/copyset Sets; not among
// RulesNeverTuned).
//
// They then became the development sets of the readings14 round
// (copylint/readings14_test.go: their false positives first, then general
// recall readings, none with these sets' wording; figures in BENCHMARKS.md);
// they no longer measure generalisation. The floors keep the round's
// figures less 0.02.
func TestHeldOutThirteenth(t *testing.T) {
	measureHeldOut(t, "heldout13.tsv", 150, thirteenthMinPrecision, thirteenthMinRecall)
}

const thirteenthMinPrecision, thirteenthMinRecall = 0.98, 0.89

func TestHeldOutFourteenth(t *testing.T) {
	measureHeldOut(t, "heldout14.tsv", 150, fourteenthMinPrecision, fourteenthMinRecall)
}

const fourteenthMinPrecision, fourteenthMinRecall = 0.98, 0.94

// TestHeldOutFifteenth and TestHeldOutSixteenth measure heldout15.tsv
// and heldout16.tsv, 190 sentences each written blind on 2026-12-06 by
// two evaluator sessions before any change of that evening, and measured
// once per configuration at its end (BENCHMARKS.md, "Copy lint on two
// more blind sets, and the learned reader's cost"). The floors are the
// rules' figures then, less 0.02. The learned reader trains on them
// since, and they are leave-one-set-out folds that choose its threshold
// and veto (internal/copyset RulesNeverTuned); these tests lint with the
// rules alone.
func TestHeldOutFifteenth(t *testing.T) {
	measureHeldOut(t, "heldout15.tsv", 150, fifteenthMinPrecision, fifteenthMinRecall)
}

const fifteenthMinPrecision, fifteenthMinRecall = 0.91, 0.72

func TestHeldOutSixteenth(t *testing.T) {
	measureHeldOut(t, "heldout16.tsv", 150, sixteenthMinPrecision, sixteenthMinRecall)
}

const sixteenthMinPrecision, sixteenthMinRecall = 0.89, 0.74

// TestHeldOutSeventeenth and TestHeldOutEighteenth measure heldout17.tsv
// and heldout18.tsv, 190 sentences each written blind on 2026-12-06 by
// two evaluator sessions before any change of that night, and measured
// once per configuration at its end (BENCHMARKS.md, "Copy lint on two
// more blind sets, after a faster reader and six more training sets").
// The floors are the rules' figures then, less 0.02; the learned reader
// trains on them since 2026-12-07 (they measure the rules).
func TestHeldOutSeventeenth(t *testing.T) {
	measureHeldOut(t, "heldout17.tsv", 150, seventeenthMinPrecision, seventeenthMinRecall)
}

const seventeenthMinPrecision, seventeenthMinRecall = 0.91, 0.72

func TestHeldOutEighteenth(t *testing.T) {
	measureHeldOut(t, "heldout18.tsv", 150, eighteenthMinPrecision, eighteenthMinRecall)
}

const eighteenthMinPrecision, eighteenthMinRecall = 0.87, 0.79

// TestHeldOutNineteenth and TestHeldOutTwentieth measure heldout19.tsv
// and heldout20.tsv, 190 sentences each written blind on 2026-12-06 by
// two evaluator sessions before any change of that session, and measured
// once per configuration at its end (BENCHMARKS.md, "Copy lint on two
// more blind sets, with a cheaper reader that reads fewer false
// claims"). The floors are the rules' figures then, less 0.02; the
// learned reader trains on them since 2026-12-07.
func TestHeldOutNineteenth(t *testing.T) {
	measureHeldOut(t, "heldout19.tsv", 150, nineteenthMinPrecision, nineteenthMinRecall)
}

const nineteenthMinPrecision, nineteenthMinRecall = 0.85, 0.70

func TestHeldOutTwentieth(t *testing.T) {
	measureHeldOut(t, "heldout20.tsv", 150, twentiethMinPrecision, twentiethMinRecall)
}

const twentiethMinPrecision, twentiethMinRecall = 0.94, 0.71

// TestHeldOutTwentyFirst and TestHeldOutTwentySecond measure heldout21.tsv
// and heldout22.tsv, 190 sentences each written blind on 2026-12-07 by
// two evaluator sessions before any change of that session, and measured
// once per configuration (BENCHMARKS.md, "Copy lint on four more blind
// sets: the reader against copylint's own tests"). The
// floors are the rules' figures then, less 0.02.
func TestHeldOutTwentyFirst(t *testing.T) {
	measureHeldOut(t, "heldout21.tsv", 150, twentyFirstMinPrecision, twentyFirstMinRecall)
}

const twentyFirstMinPrecision, twentyFirstMinRecall = 0.84, 0.61

func TestHeldOutTwentySecond(t *testing.T) {
	measureHeldOut(t, "heldout22.tsv", 150, twentySecondMinPrecision, twentySecondMinRecall)
}

const twentySecondMinPrecision, twentySecondMinRecall = 0.92, 0.70

// TestHeldOutTwentyThird and TestHeldOutTwentyFourth measure heldout23.tsv
// and heldout24.tsv, written blind on 2026-12-07 after heldout21/22 were
// measured and before the reader's second round of that session, and
// measured once per configuration at its end (BENCHMARKS.md, the same
// section). The floors are the rules' figures then, less 0.02.
func TestHeldOutTwentyThird(t *testing.T) {
	measureHeldOut(t, "heldout23.tsv", 150, twentyThirdMinPrecision, twentyThirdMinRecall)
}

const twentyThirdMinPrecision, twentyThirdMinRecall = 0.84, 0.57

func TestHeldOutTwentyFourth(t *testing.T) {
	measureHeldOut(t, "heldout24.tsv", 150, twentyFourthMinPrecision, twentyFourthMinRecall)
}

const twentyFourthMinPrecision, twentyFourthMinRecall = 0.87, 0.65

// TestHeldOutTwentyFifth and TestHeldOutTwentySixth measure heldout25.tsv
// and heldout26.tsv, 190 sentences each written blind on 2026-12-07 by
// two evaluator sessions before any change of that session, and measured
// once per configuration (BENCHMARKS.md, "Copy lint on two more blind
// sets: the reader trained on six more sets"). The floors are the rules'
// figures then, less 0.02.
func TestHeldOutTwentyFifth(t *testing.T) {
	measureHeldOut(t, "heldout25.tsv", 150, twentyFifthMinPrecision, twentyFifthMinRecall)
}

const twentyFifthMinPrecision, twentyFifthMinRecall = 0.83, 0.58

func TestHeldOutTwentySixth(t *testing.T) {
	measureHeldOut(t, "heldout26.tsv", 150, twentySixthMinPrecision, twentySixthMinRecall)
}

const twentySixthMinPrecision, twentySixthMinRecall = 0.88, 0.64

// TestHeldOutTwentySeventh and TestHeldOutTwentyEighth measure
// heldout27.tsv and heldout28.tsv, 190 sentences each written blind on
// 2026-12-07 by two evaluator sessions before the reader's guards of
// that session, and measured once per configuration (BENCHMARKS.md,
// "Copy lint on heldout27 and heldout28"). The floors are the rules'
// figures then, less 0.02.
func TestHeldOutTwentySeventh(t *testing.T) {
	measureHeldOut(t, "heldout27.tsv", 150, twentySeventhMinPrecision, twentySeventhMinRecall)
}

const twentySeventhMinPrecision, twentySeventhMinRecall = 0.94, 0.72

func TestHeldOutTwentyEighth(t *testing.T) {
	measureHeldOut(t, "heldout28.tsv", 150, twentyEighthMinPrecision, twentyEighthMinRecall)
}

const twentyEighthMinPrecision, twentyEighthMinRecall = 0.88, 0.64

// TestHeldOutTwentyNinth and TestHeldOutThirtieth measure heldout29.tsv
// and heldout30.tsv, 190 sentences each written blind on 2026-12-07 by
// two evaluator sessions before that session's changes to the reader,
// and measured once per configuration (BENCHMARKS.md, "Copy lint on
// heldout29 and heldout30"). The floors are the rules' figures then,
// less 0.02.
func TestHeldOutTwentyNinth(t *testing.T) {
	measureHeldOut(t, "heldout29.tsv", 150, twentyNinthMinPrecision, twentyNinthMinRecall)
}

const twentyNinthMinPrecision, twentyNinthMinRecall = 0.83, 0.67

func TestHeldOutThirtieth(t *testing.T) {
	measureHeldOut(t, "heldout30.tsv", 150, thirtiethMinPrecision, thirtiethMinRecall)
}

const thirtiethMinPrecision, thirtiethMinRecall = 0.83, 0.63

// measureHeldOut lints the sentences of file as one page with the example
// contract, prints the families it holds, and fails below at least
// sentences, precision minPrecision or recall minRecall.
func measureHeldOut(t *testing.T, file string, atLeast int, minPrecision, minRecall float64) {
	ls := readHeldOut(t, file)
	if len(ls) < atLeast {
		t.Fatalf("only %d sentences in %s; the measurement needs at least %d", len(ls), file, atLeast)
	}
	fs := copylint.LintSource(exampleContract(t), file+".md", heldOutPage(ls))
	per, notes := heldOutScore(t, ls, fs)
	for _, n := range notes {
		t.Log(n)
	}
	for fam, s := range per {
		if s.claims+s.clean == 0 {
			delete(per, fam)
		}
	}
	table, p, r := heldOutTable(per)
	fmt.Printf("copy held-out measurement: %d sentences (%s), example contract\n%s", len(ls), file, table)
	if p < minPrecision || r < minRecall {
		t.Errorf("held-out precision %.3f / recall %.3f below the floor %.2f / %.2f", p, r, minPrecision, minRecall)
	}
}

// TestDevFifth measures the lint on dev5.tsv: sentences in genres the
// earlier sets lack (changelogs, pricing pages, social posts, support
// macros, app-store text, non-native English, British spelling, Markdown
// list items with emphasis, inline HTML and MDX), written by the engineer
// who then tuned the lint on them. It is a development set from the
// start: its floors are regression floors (BENCHMARKS.md has the figures).
func TestDevFifth(t *testing.T) {
	measureHeldOut(t, "dev5.tsv", 100, devFifthMinPrecision, devFifthMinRecall)
}

// devFifthMinPrecision and devFifthMinRecall: on its first 109 lines
// 0.979 / 0.657 before the change it was written for and 1.000 / 0.986
// after; its last 44 lines, written after that, 1.000 / 0.429 before the
// concept forms and 1.000 / 0.893 after; all 153 lines 1.000 / 0.959.
// Floors a small margin under the last.
const devFifthMinPrecision, devFifthMinRecall = 0.97, 0.94

// TestHeldOutThirtyFirst and TestHeldOutThirtySecond measure heldout31.tsv
// and heldout32.tsv, 190 sentences each written blind on 2026-12-07 by
// two evaluator sessions before that session's changes to the lint, and
// measured once per configuration (BENCHMARKS.md, "Copy lint on heldout31
// and heldout32"). The floors are the rules' figures then, less 0.02.
func TestHeldOutThirtyFirst(t *testing.T) {
	measureHeldOut(t, "heldout31.tsv", 150, thirtyFirstMinPrecision, thirtyFirstMinRecall)
}

const thirtyFirstMinPrecision, thirtyFirstMinRecall = 0.94, 0.73

func TestHeldOutThirtySecond(t *testing.T) {
	measureHeldOut(t, "heldout32.tsv", 150, thirtySecondMinPrecision, thirtySecondMinRecall)
}

const thirtySecondMinPrecision, thirtySecondMinRecall = 0.92, 0.62

// TestHeldOutThirtyThird and TestHeldOutThirtyFourth measure heldout33.tsv
// and heldout34.tsv, 190 sentences each written blind on 2026-12-07 by
// two evaluator sessions before that session's changes to the lint, and
// measured once per configuration (BENCHMARKS.md, "Copy lint on heldout33
// and heldout34"). The floors are the rules' figures then, less 0.02.
func TestHeldOutThirtyThird(t *testing.T) {
	measureHeldOut(t, "heldout33.tsv", 150, thirtyThirdMinPrecision, thirtyThirdMinRecall)
}

const thirtyThirdMinPrecision, thirtyThirdMinRecall = 0.87, 0.68

func TestHeldOutThirtyFourth(t *testing.T) {
	measureHeldOut(t, "heldout34.tsv", 150, thirtyFourthMinPrecision, thirtyFourthMinRecall)
}

const thirtyFourthMinPrecision, thirtyFourthMinRecall = 0.91, 0.70

// TestHeldOutThirtyFifth and TestHeldOutThirtySixth measure heldout35.tsv
// and heldout36.tsv, 190 sentences each written blind on 2026-12-07 by
// two evaluator sessions before that session's changes to the lint, and
// measured once per configuration (BENCHMARKS.md, "Copy lint on heldout35
// and heldout36"). The floors are the rules' figures then, less 0.02.
func TestHeldOutThirtyFifth(t *testing.T) {
	measureHeldOut(t, "heldout35.tsv", 150, thirtyFifthMinPrecision, thirtyFifthMinRecall)
}

const thirtyFifthMinPrecision, thirtyFifthMinRecall = 0.86, 0.71

func TestHeldOutThirtySixth(t *testing.T) {
	measureHeldOut(t, "heldout36.tsv", 150, thirtySixthMinPrecision, thirtySixthMinRecall)
}

const thirtySixthMinPrecision, thirtySixthMinRecall = 0.94, 0.72

// TestHeldOutThirtySeventh and TestHeldOutThirtyEighth measure
// heldout37.tsv and heldout38.tsv, 190 sentences each written blind on
// 2026-12-07 by two evaluator sessions before that session's changes to
// the lint, and measured once per configuration (BENCHMARKS.md, "Copy lint
// on heldout37 and heldout38"). The floors are the rules' figures then,
// less 0.02.
func TestHeldOutThirtySeventh(t *testing.T) {
	measureHeldOut(t, "heldout37.tsv", 150, thirtySeventhMinPrecision, thirtySeventhMinRecall)
}

const thirtySeventhMinPrecision, thirtySeventhMinRecall = 0.88, 0.77

func TestHeldOutThirtyEighth(t *testing.T) {
	measureHeldOut(t, "heldout38.tsv", 150, thirtyEighthMinPrecision, thirtyEighthMinRecall)
}

const thirtyEighthMinPrecision, thirtyEighthMinRecall = 0.87, 0.67

// TestHeldOutThirtyNinth and TestHeldOutFortieth measure heldout39.tsv
// and heldout40.tsv, 190 sentences each written blind on 2026-12-08 by
// two evaluator sessions before that session's measurement, and measured
// once per configuration (BENCHMARKS.md, "Copy lint on heldout39 and
// heldout40"). The floors are the rules' figures then, less 0.02.
func TestHeldOutThirtyNinth(t *testing.T) {
	measureHeldOut(t, "heldout39.tsv", 150, thirtyNinthMinPrecision, thirtyNinthMinRecall)
}

const thirtyNinthMinPrecision, thirtyNinthMinRecall = 0.88, 0.79

func TestHeldOutFortieth(t *testing.T) {
	measureHeldOut(t, "heldout40.tsv", 150, fortiethMinPrecision, fortiethMinRecall)
}

const fortiethMinPrecision, fortiethMinRecall = 0.83, 0.77
