package copyfield

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/copylint"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/internal/copyset"
	"github.com/retryspec/retryspec/internal/learnfold"
	"github.com/retryspec/retryspec/internal/testenv"
)

// The learned reader's measurement (issue 29): leave one set out. For
// each labelled set S, the reader is trained on every other set and S is
// linted with the rules alone and with the rules and the reader, at each
// threshold and veto, and the reader alone is scored on S too. The folds
// are copyset.RulesNeverTuned, the sets no rule was tuned on: there the
// rules' own misses and false positives are those of unseen copy, so the
// reader's additions and vetoes are measured as a user would meet them.
// LEARNED_ALL_FOLDS=1 adds every other set (on which the rules were
// tuned, so their figures there flatter the rules).
//
//	go test -v -run TestLearnedLeaveOneOut ./bench/copyfield

// learnedThresholds and learnedVetoes are the settings the measurement
// tries (veto 0: none).
var (
	learnedThresholds = []float64{0.5, 0.6, 0.7, 0.8, 0.9}
	learnedVetoes     = []float64{0, 0.9, 0.8, 0.7, 0.6, 0.5}
)

// learnedMinPrecision is the pooled precision on the folds a setting
// needs to be chosen: the 0.95 with a margin. Of those that have
// it, the setting with the most recall is chosen (F0.5 breaks ties): the
// issue asks for recall 0.9 at precision 0.95, and F0.5 alone chose a
// setting at 0.961 that gave up recall for precision beyond the goal.
const learnedMinPrecision = 0.955

// learnedMinThreshold is the lowest threshold the measurement chooses:
// below it the shipped reader adds findings on labels.tsv's manuals
// (TestLearnedFieldPrecision), whatever the folds say.
const learnedMinThreshold = 0.7

// learnedSlack is how far below the chosen setting's recall the shipped
// setting's may be.
const learnedSlack = 0.002

// fHalf is F0.5: the weighted harmonic mean of precision and recall in
// which precision counts twice.
func (s pr) fHalf() float64 {
	p, r := s.p(), s.r()
	if p+r == 0 {
		return 0
	}
	return 1.25 * p * r / (0.25*p + r)
}

type pr struct{ tp, fp, fn int }

func (s pr) p() float64 { return ratio(s.tp, s.tp+s.fp) }
func (s pr) r() float64 { return ratio(s.tp, s.tp+s.fn) }
func (s *pr) add(o pr)  { s.tp, s.fp, s.fn = s.tp+o.tp, s.fp+o.fp, s.fn+o.fn }

func (s pr) String() string { return fmt.Sprintf("P %.3f R %.3f", s.p(), s.r()) }

// setting is a threshold and a veto of the reader.
type setting struct{ threshold, veto float64 }

func (s setting) String() string { return fmt.Sprintf("@%.2f veto %.2f", s.threshold, s.veto) }

// shippedSetting is copylint's.
var shippedSetting = setting{copylint.LearnedThreshold, copylint.LearnedVeto}

// settings are every threshold with every veto.
func settings() []setting {
	var out []setting
	for _, th := range learnedThresholds {
		for _, v := range learnedVetoes {
			out = append(out, setting{th, v})
		}
	}
	return out
}

// scoreLint lints rows as one page and scores them as TestHeldOut does.
func scoreLint(t *testing.T, c *contract.Contract, set string, ls []heldOutLine, m *copylint.LearnedModel, st setting, families []string) (pr, []string) {
	return scoreFindings(t, ls, copylint.LintSourceLearnedVeto(c, set+".md", heldOutPage(ls), m, st.threshold, families, st.veto))
}

// scoreFindings scores the findings of the page of ls, pooled over the
// families.
func scoreFindings(t *testing.T, ls []heldOutLine, fs []findings.Finding) (pr, []string) {
	per, notes := heldOutScore(t, ls, fs)
	var all pr
	for _, s := range per {
		all.add(pr{s.tp, s.fp, s.fn})
	}
	return all, notes
}

// scoreModel scores the reader alone on rows: a claim is found when the
// reader names its family at threshold, a clean sentence is a false
// positive when the reader names any family.
func scoreModel(c *contract.Contract, rows []copyset.Row, m *copylint.LearnedModel, threshold float64, families []string) pr {
	var s pr
	for _, r := range rows {
		if families != nil && !slices.Contains(families, r.Family) {
			continue // the reader is scored on its families
		}
		fam, p := m.Predict(c, r.Sentence)
		said := fam != "none" && p >= threshold && (families == nil || slices.Contains(families, fam))
		switch {
		case r.Claim() && said && fam == r.Family:
			s.tp++
		case r.Claim():
			s.fn++
			if said {
				s.fp++ // the wrong family
			}
		case said:
			s.fp++
		}
	}
	return s
}

func toHeldOut(rows []copyset.Row) []heldOutLine {
	out := make([]heldOutLine, len(rows))
	for i, r := range rows {
		out[i] = heldOutLine{family: r.Family, verdict: r.Verdict, source: r.Source, sentence: r.Sentence, file: r.Set + ".tsv", line: r.Line}
	}
	return out
}

// looFolds are the sets the measurement leaves out in turn.
func looFolds() []string {
	if os.Getenv("LEARNED_ALL_FOLDS") != "" {
		return copyset.Sets
	}
	return copyset.RulesNeverTuned
}

// foldModels trains one model per fold, on every other set and the
// training-only sets (copyset.Training), which are never a fold; the
// folds train side by side (internal/learnfold).
func foldModels(c *contract.Contract, all map[string][]copyset.Row, folds []string) map[string]*copylint.LearnedModel {
	samples := make([][]copylint.LearnedSample, len(folds))
	for i, s := range folds {
		for _, o := range copyset.TrainingSets() {
			if o != s {
				samples[i] = append(samples[i], copylint.Samples(all[o])...)
			}
		}
	}
	models := learnfold.Train(c, samples, copylint.LearnedTrainOptions{})
	out := map[string]*copylint.LearnedModel{}
	for i, s := range folds {
		out[s] = models[i]
	}
	return out
}

// TestLearnedLeaveOneOut prints the leave-one-set-out tables, for the
// reader reporting every family and for the shipped reader
// (copylint.LearnedFieldFamilies), and checks the shipped threshold and
// veto against the chosen setting for the shipped reader, pooled over the
// folds (chosenSetting): precision learnedMinPrecision or more, and recall
// within learnedSlack of the chosen setting's. The table also prints the
// rules' own F0.5 and how many findings the reader adds and drops, right
// and wrong.
func TestLearnedLeaveOneOut(t *testing.T) {
	testenv.SkipUnderRace(t, "trains a model per set")
	c := exampleContract(t)
	all, err := copyset.ReadAll(".", copyset.TrainingSets())
	if err != nil {
		t.Fatal(err)
	}
	folds := looFolds()
	models := foldModels(c, all, folds)
	for _, cfg := range []struct {
		name     string
		families []string
	}{{"every family", nil}, {"shipped families", copylint.LearnedFieldFamilies}} {
		try := os.Getenv("LEARNED_FAMILIES") // another subset, for choosing one
		if cfg.families != nil && try != "" {
			leaveOneOut(t, c, all, models, folds, "families "+try, strings.Split(try, ","))
			continue
		}
		f := leaveOneOut(t, c, all, models, folds, cfg.name, cfg.families)
		if cfg.families == nil && copylint.LearnedFieldFamilies != nil {
			continue
		}
		sureVeto(t, c, all, models, folds, f[setting{copylint.LearnedThreshold, 0}])
		best := chosenSetting(f)
		shipped, ok := f[shippedSetting]
		if !ok || shipped.p() < learnedMinPrecision || shipped.r() < f[best].r()-learnedSlack {
			t.Errorf("copylint's setting %s scores %s on the folds; the chosen setting %s scores %s (the most recall at precision %.3f or more)", shippedSetting, shipped, best, f[best], learnedMinPrecision)
		}
	}
}

// sureVeto prints the shipped reader with its sure veto (copy --learned
// --learned-veto=false) pooled over the folds, beside the same reader
// without a veto (noVeto): the claims and false findings the veto drops.
func sureVeto(t *testing.T, c *contract.Contract, all map[string][]copyset.Row, models map[string]*copylint.LearnedModel, folds []string, noVeto pr) {
	var sure pr
	for _, s := range folds {
		ls := toHeldOut(all[s])
		p, _ := scoreFindings(t, ls, copylint.LintSourceLearnedSure(c, s+".md", heldOutPage(ls), models[s], copylint.LearnedThreshold, copylint.LearnedFieldFamilies, copylint.LearnedSureVeto))
		sure.add(p)
	}
	fmt.Printf("  pooled, shipped families, sure veto %.2f: %s (F0.5 %.4f), claims found %d, false findings %d; against no veto, claims %+d, false findings %+d\n",
		copylint.LearnedSureVeto, sure, sure.fHalf(), sure.tp, sure.fp, sure.tp-noVeto.tp, sure.fp-noVeto.fp)
}

// chosenSetting is the setting with the most recall among those whose
// precision is learnedMinPrecision or more, F0.5 breaking ties; the most
// precise setting when none has it. Thresholds under learnedMinThreshold
// are not chosen.
func chosenSetting(f map[setting]pr) setting {
	all := slices.DeleteFunc(settings(), func(st setting) bool { _, ok := f[st]; return !ok || st.threshold < learnedMinThreshold })
	key := func(st setting) (bool, float64, float64) {
		s := f[st]
		return s.p() >= learnedMinPrecision, s.r(), s.fHalf()
	}
	best := all[0]
	for _, st := range all[1:] {
		okB, rB, fB := key(best)
		ok, r, fh := key(st)
		switch {
		case ok != okB:
			if ok {
				best = st
			}
		case !ok && f[st].p() > f[best].p(), ok && (r > rB || r == rB && fh > fB):
			best = st
		}
	}
	return best
}

// leaveOneOut prints one table and returns each setting's score of the
// rules with the reader, pooled over the folds.
func leaveOneOut(t *testing.T, c *contract.Contract, all map[string][]copyset.Row, models map[string]*copylint.LearnedModel, folds []string, name string, families []string) map[setting]pr {
	type row struct {
		rules pr
		with  map[setting]pr
		alone map[float64]pr
	}
	rows := map[string]*row{}
	for _, s := range folds {
		ls := toHeldOut(all[s])
		r := &row{with: map[setting]pr{}, alone: map[float64]pr{}}
		r.rules, _ = scoreLint(t, c, s, ls, nil, setting{}, nil)
		for _, st := range settings() {
			r.with[st], _ = scoreLint(t, c, s, ls, models[s], st, families)
		}
		for _, th := range learnedThresholds {
			r.alone[th] = scoreModel(c, all[s], models[s], th, families)
		}
		rows[s] = r
	}
	pooled := func(st setting) (rules, with, alone pr) {
		for _, s := range folds {
			rules.add(rows[s].rules)
			with.add(rows[s].with[st])
			alone.add(rows[s].alone[st.threshold])
		}
		return
	}
	f := map[setting]pr{}
	var b strings.Builder
	fmt.Fprintf(&b, "learned reader (%s), leave one set out; shipped %s\n", name, shippedSetting)
	for _, s := range folds {
		r := rows[s]
		fmt.Fprintf(&b, "  %-9s rules only %s | model alone", s, r.rules)
		for _, th := range learnedThresholds {
			fmt.Fprintf(&b, " @%.2f %s", th, r.alone[th])
		}
		fmt.Fprintf(&b, " | rules+model %s %s\n", shippedSetting, r.with[shippedSetting])
	}
	for _, st := range settings() {
		rules, with, alone := pooled(st)
		f[st] = with
		mark := ""
		if st == shippedSetting {
			mark = " (shipped)"
		}
		fmt.Fprintf(&b, "  pooled %s%s: rules only %s (F0.5 %.4f), rules+model %s (F0.5 %.4f), model alone %s; claims found %+d, false positives %+d\n",
			st, mark, rules, rules.fHalf(), with, with.fHalf(), alone, with.tp-rules.tp, with.fp-rules.fp)
	}
	fmt.Print(b.String())
	if os.Getenv("LEARNED_NOTES") != "" {
		for _, s := range strings.Split(os.Getenv("LEARNED_NOTES"), ",") {
			_, notes := scoreLint(t, c, s, toHeldOut(all[s]), models[s], shippedSetting, families)
			for _, n := range notes {
				fmt.Println("  ", n)
			}
		}
	}
	return f
}

// TestLearnedFieldPrecision lints the files of labels.tsv with the example
// contract, the rules alone and with the shipped reader, and requires
// every finding the reader adds on a labelled line to be one of that
// line's labels: the reader keeps precision 1.000 on the hand labels.
// It prints the same count for the reader reporting every family, per
// family, which says which families are field-safe: a family ships
// (copylint.LearnedFieldFamilies) when it adds nothing here at the
// threshold and veto TestLearnedLeaveOneOut holds, and since neutral3.tsv
// and the readings that followed it every family does, so the two
// counts agree. labels.tsv is never trained on, but neutral3.tsv and
// those readings were written knowing its false positives, so it no
// longer measures them unseen. Like TestField it needs ../shared.
func TestLearnedFieldPrecision(t *testing.T) {
	corpus := fieldCorpus(t)
	m, err := copylint.ShippedLearnedModel()
	if err != nil {
		t.Fatal(err)
	}
	c := exampleContract(t)
	byPath := map[string]map[int]label{}
	for _, l := range readLabels(t) {
		if byPath[l.path] == nil {
			byPath[l.path] = map[int]label{}
		}
		byPath[l.path][l.line] = l
	}
	for _, cfg := range []struct {
		name     string
		families []string
		veto     float64
	}{
		{"every family", nil, copylint.LearnedVeto},
		{"shipped families", copylint.LearnedFieldFamilies, copylint.LearnedVeto},
		{"shipped families, no veto", copylint.LearnedFieldFamilies, 0},
	} {
		per := fieldAdded(t, c, corpus, byPath, m, cfg.families, cfg.veto)
		var all fieldCount
		for _, fam := range slices.Sorted(maps.Keys(per)) {
			n := per[fam]
			all.right, all.wrong, all.unlabelled = all.right+n.right, all.wrong+n.wrong, all.unlabelled+n.unlabelled
			fmt.Printf("  %s, %s: %d right, %d wrong on labelled lines, %d on unlabelled lines\n", cfg.name, fam, n.right, n.wrong, n.unlabelled)
			for _, w := range n.notes {
				if cfg.families != nil {
					t.Error(w)
				} else {
					t.Log(w)
				}
			}
		}
		fmt.Printf("learned reader (%s) on labels.tsv: %d findings added on labelled lines (%d right, %d wrong), %d on unlabelled lines\n", cfg.name, all.right+all.wrong, all.right, all.wrong, all.unlabelled)
	}
}

// fieldCount counts the findings the reader adds on the hand-labelled
// files; notes name the wrong ones and those on unlabelled lines.
type fieldCount struct {
	right, wrong, unlabelled int
	notes                    []string
}

// reLearnedFamily is the family a reader finding's message names.
var reLearnedFamily = regexp.MustCompile(`read by the learned reader as an? ([a-z-]+) claim`)

// fieldAdded lints each labelled file with the rules alone and with the
// reader at the shipped threshold reporting families (with its veto at
// veto; 0: none), and counts what the reader adds, per family it read.
func fieldAdded(t *testing.T, c *contract.Contract, corpus string, byPath map[string]map[int]label, m *copylint.LearnedModel, families []string, veto float64) map[string]*fieldCount {
	per := map[string]*fieldCount{}
	for path, lines := range byPath {
		data, err := os.ReadFile(filepath.Join(corpus, path))
		if err != nil {
			t.Fatal(err)
		}
		before := map[string]findings.Finding{}
		for _, f := range copylint.LintSourceLearned(c, path, data, nil, 0, nil) {
			before[fmt.Sprint(f.Line, f.Column, f.Rule)] = f
		}
		after := copylint.LintSourceLearnedVeto(c, path, data, m, copylint.LearnedThreshold, families, veto)
		vetoed(per, path, lines, before, after)
		for _, f := range after {
			if _, ok := before[fmt.Sprint(f.Line, f.Column, f.Rule)]; ok {
				continue
			}
			fam := "?"
			if x := reLearnedFamily.FindStringSubmatch(f.Message); x != nil {
				fam = x[1]
			}
			if per[fam] == nil {
				per[fam] = &fieldCount{}
			}
			n := per[fam]
			l, ok := lines[f.Line]
			switch {
			case !ok:
				n.unlabelled++
				n.notes = append(n.notes, fmt.Sprintf("reader finding on an unlabelled line %s:%d: %s", path, f.Line, f.Message))
			case strings.Contains(","+strings.Join(l.rules, ",")+",", ","+f.Rule+","):
				n.right++
			default:
				n.wrong++
				n.notes = append(n.notes, fmt.Sprintf("reader false positive %s at %s:%d (labelled %s: %s)", f.Rule, path, f.Line, labelText(l), l.reason))
			}
		}
	}
	return per
}

// vetoed counts, under "veto", the rules' findings the reader dropped:
// one on a line labelled with its rule is a claim lost (a note), one
// elsewhere a false positive removed.
func vetoed(per map[string]*fieldCount, path string, lines map[int]label, before map[string]findings.Finding, after []findings.Finding) {
	kept := map[string]bool{}
	for _, f := range after {
		kept[fmt.Sprint(f.Line, f.Column, f.Rule)] = true
	}
	for k, f := range before {
		if kept[k] {
			continue
		}
		if per["veto"] == nil {
			per["veto"] = &fieldCount{}
		}
		n := per["veto"]
		if l, ok := lines[f.Line]; ok && strings.Contains(","+strings.Join(l.rules, ",")+",", ","+f.Rule+",") {
			n.wrong++
			n.notes = append(n.notes, fmt.Sprintf("reader vetoed a labelled claim %s at %s:%d (%s)", f.Rule, path, f.Line, labelText(l)))
		} else {
			n.right++
		}
	}
}

// BenchmarkMatchBufferLearned is BenchmarkMatchBuffer with the shipped
// learned reader on: the cost of the second reader.
func BenchmarkMatchBufferLearned(b *testing.B) {
	buf := matchBuffer(b)
	c := exampleContract(b)
	m, err := copylint.ShippedLearnedModel()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		copylint.LintSourceLearned(c, "all.md", buf, m, copylint.LearnedThreshold, copylint.LearnedFieldFamilies)
	}
}

// BenchmarkMatchBufferOff is the same buffer through LintSourceLearned
// with no reader, for a like-for-like comparison.
func BenchmarkMatchBufferOff(b *testing.B) {
	buf := matchBuffer(b)
	c := exampleContract(b)
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		copylint.LintSourceLearned(c, "all.md", buf, nil, 0, nil)
	}
}

// matchBuffer is BenchmarkMatchBuffer's input: the NServiceBus and NATS
// docs concatenated.
func matchBuffer(b *testing.B) []byte {
	data := testenv.SharedData(b)
	var buf []byte
	for _, dir := range []string{"corpus/Particular-docs.particular.net", "corpus/nats-io-nats.docs"} {
		_ = filepath.WalkDir(filepath.Join(data, dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(p) == ".md" {
				x, _ := os.ReadFile(p)
				buf = append(buf, x...)
				buf = append(buf, '\n', '\n')
			}
			return nil
		})
	}
	return buf
}

// TestChosenSetting: the chosen setting has the most recall of those
// precise enough, F0.5 breaking ties, and the most precise when none is.
func TestChosenSetting(t *testing.T) {
	a, b, c := setting{0.7, 0.6}, setting{0.8, 0.6}, setting{0.9, 0.9}
	for _, tc := range []struct {
		name string
		f    map[setting]pr
		want setting
	}{
		{"most recall of the precise", map[setting]pr{a: {tp: 90, fp: 4, fn: 10}, b: {tp: 85, fp: 3, fn: 15}, c: {tp: 95, fp: 20, fn: 5}}, a},
		{"tie on recall: F0.5", map[setting]pr{a: {tp: 90, fp: 4, fn: 10}, b: {tp: 90, fp: 2, fn: 10}, c: {tp: 95, fp: 20, fn: 5}}, b},
		{"none precise: the most precise", map[setting]pr{a: {tp: 90, fp: 9, fn: 10}, b: {tp: 80, fp: 6, fn: 20}, c: {tp: 95, fp: 20, fn: 5}}, b},
		{"under the lowest threshold: not chosen", map[setting]pr{{0.5, 0.6}: {tp: 99, fp: 1, fn: 1}, a: {tp: 90, fp: 4, fn: 10}}, a},
	} {
		if got := chosenSetting(tc.f); got != tc.want {
			t.Errorf("%s: chose %s, want %s", tc.name, got, tc.want)
		}
	}
}
