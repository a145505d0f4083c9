package copylint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/internal/copyset"
)

// The learned reader (issue 29, an experiment): a second reader that
// proposes claims the phrase rules miss. A softmax regression over the
// contract-relative features of learned_features.go predicts the family
// of a sentence's claim, or none; a proposal becomes a finding only when
// the contract gives that family something to contradict, with the
// family's own judge, message and fix, under the rule that family's
// findings carry. Where the rules found something, the reader may take
// it back: a sentence it reads as no claim, or as another family's claim,
// with the veto's confidence loses the findings of the rules that judge
// a promise (readRuled). The model is trained offline from the labelled
// sentences of bench/copyfield by internal/learngen and embedded
// (learned_model.go).

//go:generate go run ../internal/learngen -o learned_model.json

// learnedNone is the class of a sentence with no claim.
const learnedNone = "none"

// LearnedModel is a trained softmax regression: per feature, one weight
// per class.
type LearnedModel struct {
	Classes []string
	Bias    []float64
	Weights map[string][]float64

	indexOnce sync.Once
	ix        *learnedIndex // the weights by token id, for reading (index)
}

// LearnedSample is one labelled sentence for training: its text as
// written and the family of its claim, or "" for none.
type LearnedSample struct {
	Text   string
	Family string
}

// Samples are the training samples of labelled rows: a claim's family,
// or none for a clean or bounded sentence.
func Samples(rows []copyset.Row) []LearnedSample {
	out := make([]LearnedSample, len(rows))
	for i, r := range rows {
		out[i].Text = r.Sentence
		if r.Claim() {
			out[i].Family = r.Family
		}
	}
	return out
}

// TrainLearnedSets trains the reader on the named sets of dir (see
// internal/copyset), labelled against c, with the shipped options: what
// internal/learngen writes and what the tests regenerate.
func TrainLearnedSets(c *contract.Contract, dir string, sets []string) (*LearnedModel, error) {
	all, err := copyset.ReadAll(dir, sets)
	if err != nil {
		return nil, err
	}
	var samples []LearnedSample
	for _, s := range sets {
		samples = append(samples, Samples(all[s])...)
	}
	return TrainLearned(c, samples, LearnedTrainOptions{}), nil
}

// LearnedTrainOptions tune training; the zero value is the shipped
// setting.
type LearnedTrainOptions struct {
	Epochs   int     // full-batch gradient steps (default 3000)
	Rate     float64 // step size (default 30)
	L2       float64 // weight decay (default 1e-7)
	MinCount int     // a feature seen in fewer samples is dropped (default 3)
}

func (o *LearnedTrainOptions) defaults() {
	if o.Epochs == 0 {
		o.Epochs = 3000
	}
	if o.Rate == 0 {
		o.Rate = 30
	}
	if o.L2 == 0 {
		o.L2 = 1e-7
	}
	if o.MinCount == 0 {
		o.MinCount = 3
	}
}

// sampleFeatures are the features of a sample's text as the linter reads
// it: parsed as Markdown (the sets hold emphasis, inline HTML and MDX)
// and normalized, its sentences joined.
func sampleFeatures(c *contract.Contract, text string) []string {
	return learnedFeatures(normalizedProse(text), c)
}

// normalizedProse is text's prose as the linter matches it.
func normalizedProse(text string) string {
	src := []byte(text)
	d := markdownDocument(src, false)
	var n normText
	var b bytes.Buffer
	for _, blk := range d.blocks {
		normalize(d.mask, blk.start, blk.end, d.code, len(d.code) > 0, &n)
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.Write(n.text)
	}
	return b.String()
}

// TrainLearned trains the reader on samples labelled against c. It is
// deterministic: the same samples give the same model, bit for bit (the
// arithmetic is ordered and explicit conversions keep the compiler from
// fusing multiply-adds, which some architectures would round otherwise).
func TrainLearned(c *contract.Contract, samples []LearnedSample, o LearnedTrainOptions) *LearnedModel {
	o.defaults()
	classes, y := learnedClasses(samples)
	feats := make([][]string, len(samples))
	for i, s := range samples {
		feats[i] = sampleFeatures(c, s.Text)
	}
	vocab := learnedVocab(feats, o.MinCount)
	index := make(map[string]int, len(vocab))
	for i, f := range vocab {
		index[f] = i
	}
	// x[i] are the feature indexes of sample i, each worth val[i] =
	// 1/sqrt(n), n its count of features, known or not (as prediction
	// scales).
	x := make([][]int, len(samples))
	val := make([]float64, len(samples))
	for i := range samples {
		for _, f := range feats[i] {
			if j, ok := index[f]; ok {
				x[i] = append(x[i], j)
			}
		}
		val[i] = 1 / math.Sqrt(float64(max(len(feats[i]), 1)))
	}
	w, bias := descend(x, val, y, len(vocab), len(classes), o)
	return prunedModel(classes, vocab, w, bias)
}

// learnedClasses are none and the samples' families in name order (so
// the model does not depend on the samples' order), and each sample's
// class.
func learnedClasses(samples []LearnedSample) ([]string, []int) {
	seen := map[string]bool{}
	var fams []string
	for _, s := range samples {
		if s.Family != "" && !seen[s.Family] {
			seen[s.Family] = true
			fams = append(fams, s.Family)
		}
	}
	sort.Strings(fams)
	classes := append([]string{learnedNone}, fams...)
	y := make([]int, len(samples))
	for i, s := range samples {
		if s.Family != "" {
			y[i] = slices.Index(classes, s.Family)
		}
	}
	return classes, y
}

// learnedVocab is the features seen in at least minCount samples, sorted.
func learnedVocab(feats [][]string, minCount int) []string {
	count := map[string]int{}
	for _, fs := range feats {
		for _, f := range fs {
			count[f]++
		}
	}
	var vocab []string
	for f, n := range count {
		if n >= minCount {
			vocab = append(vocab, f)
		}
	}
	sort.Strings(vocab)
	return vocab
}

// descend runs full-batch gradient descent on the softmax loss; weights
// are feature-major (w[j*K+k]).
func descend(x [][]int, val []float64, y []int, features, K int, o LearnedTrainOptions) (w, bias []float64) {
	w = make([]float64, features*K)
	bias = make([]float64, K)
	grad := make([]float64, len(w))
	gbias := make([]float64, K)
	p := make([]float64, K)
	dv := make([]float64, K)
	n := float64(len(x))
	for range o.Epochs {
		clear(grad)
		clear(gbias)
		for i := range x {
			scores(w, bias, x[i], val[i], p)
			p[y[i]] -= 1 // the loss's gradient in the scores
			for k, d := range p {
				gbias[k] += d
				dv[k] = float64(d * val[i])
			}
			// Feature by feature, so each feature's K gradients are one
			// run of memory. Every cell still sums the samples in order,
			// so the model is the same to the bit as summed class by class.
			for _, j := range x[i] {
				g := grad[j*K : j*K+K]
				for k, d := range dv {
					g[k] += d
				}
			}
		}
		for j := range w {
			w[j] -= float64(o.Rate * (float64(grad[j]/n) + float64(o.L2*w[j])))
		}
		for k := range bias {
			bias[k] -= float64(o.Rate*gbias[k]) / n
		}
	}
	return w, bias
}

// prunedModel keeps the features whose weights can change a decision
// (one at least 0.02 in size), to keep the embedded model small, with
// four decimals.
func prunedModel(classes, vocab []string, w, bias []float64) *LearnedModel {
	K := len(classes)
	m := &LearnedModel{Classes: classes, Bias: round4(bias), Weights: map[string][]float64{}}
	for j, f := range vocab {
		ws := w[j*K : (j+1)*K]
		if slices.ContainsFunc(ws, func(v float64) bool { return math.Abs(v) >= 0.02 }) {
			m.Weights[f] = round4(ws)
		}
	}
	return m
}

func round4(ws []float64) []float64 {
	out := make([]float64, len(ws))
	for i, v := range ws {
		out[i] = math.Round(v*1e4) / 1e4
	}
	return out
}

// scores fills p with the class probabilities of one sample (feature
// indexes x, each worth v) under weights w (feature-major) and bias.
func scores(w, bias []float64, x []int, v float64, p []float64) {
	K := len(bias)
	copy(p, bias)
	for _, j := range x {
		for k, wk := range w[j*K : j*K+K] {
			p[k] += float64(wk * v)
		}
	}
	softmax(p)
}

func softmax(p []float64) {
	top := p[0]
	for _, v := range p {
		top = max(top, v)
	}
	sum := 0.0
	for k, v := range p {
		p[k] = math.Exp(v - top)
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
}

// Predict returns the family the model reads in text (as written) and its
// probability; learnedNone when it reads no claim.
func (m *LearnedModel) Predict(c *contract.Contract, text string) (string, float64) {
	return m.predictNormalized(c, normalizedProse(text))
}

func (m *LearnedModel) predictNormalized(c *contract.Contract, sent string) (string, float64) {
	return m.predictTokens(learnedTokens(sent, c))
}

// learnedScale is the unit of the encoded weights: Encode writes each
// weight (rounded to four decimals by prunedModel) as an integer count of
// 1/learnedScale, shorter than the decimal ("-177" for -0.0177), which
// decodes to the same float64.
const learnedScale = 10000

// Encode writes the model as JSON with a fixed layout (features sorted,
// weights as integers in units of 1/scale), so regenerating it from the
// same sets gives the same bytes.
func (m *LearnedModel) Encode() []byte {
	var b bytes.Buffer
	b.WriteString("{\n\"classes\": ")
	cj, _ := json.Marshal(m.Classes)
	b.Write(cj)
	b.WriteString(",\n\"scale\": " + strconv.Itoa(learnedScale))
	b.WriteString(",\n\"bias\": ")
	writeScaled(&b, m.Bias)
	b.WriteString(",\n\"weights\": {")
	var fs []string
	for f := range m.Weights {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		fj, _ := json.Marshal(f)
		b.WriteString("\n")
		b.Write(fj)
		b.WriteString(": ")
		writeScaled(&b, m.Weights[f])
	}
	b.WriteString("\n}\n}\n")
	return b.Bytes()
}

func writeScaled(b *bytes.Buffer, ws []float64) {
	b.WriteByte('[')
	for i, v := range ws {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(int64(math.Round(v*learnedScale)), 10))
	}
	b.WriteByte(']')
}

// DecodeLearnedModel reads a model Encode wrote.
func DecodeLearnedModel(data []byte) (*LearnedModel, error) {
	m, ok := scanEncoded(data)
	if !ok {
		m = encodedModel{}
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("learned model: %w", err)
		}
	}
	if len(m.Classes) == 0 || m.Classes[0] != learnedNone || len(m.Bias) != len(m.Classes) {
		return nil, fmt.Errorf("learned model: want classes starting with %q and one bias per class", learnedNone)
	}
	for f, ws := range m.Weights {
		if len(ws) != len(m.Classes) {
			return nil, fmt.Errorf("learned model: feature %q has %d weights, want %d", f, len(ws), len(m.Classes))
		}
	}
	if m.Scale <= 0 {
		return nil, fmt.Errorf("learned model: want a positive scale (the unit of the weights is 1/scale); run go generate ./copylint")
	}
	unscale(m.Bias, m.Scale)
	for _, ws := range m.Weights {
		unscale(ws, m.Scale)
	}
	return &LearnedModel{Classes: m.Classes, Bias: m.Bias, Weights: m.Weights}, nil
}

// unscale turns integer counts of 1/scale back into weights. Dividing
// gives the float64 nearest the decimal, as parsing "0.0177" does.
func unscale(ws []float64, scale float64) {
	for i, v := range ws {
		ws[i] = v / scale
	}
}

// learnedFamily is what a predicted family becomes: the rule its
// findings carry and the judge that reads the contract (nil: the rule's
// own message and fix, when applies says the contract bounds what the
// claim denies).
type learnedFamily struct {
	rule    string
	judge   func(c *contract.Contract, match, sentence string) (contradiction, bool)
	applies func(c *contract.Contract) bool
	// about, when set, says whether the sentence's tokens hold what the
	// judge compares: a method the contract marks, a loop the figures do
	// not bound.
	about func(toks []string) bool
	// warns, when set, says whether the sentence warns of the very
	// outcome the claim denies: a caution, not the claim.
	warns func(sent string) bool
	// names, when set, says whether the sentence names what the claim is
	// about (doing a request again, a second copy): one that does not
	// promises something else.
	names func(sent string) bool
	// denies, when set, says whether the sentence denies what the judge
	// would say it claims ("GET is idempotent and POST is not").
	denies func(sent string) bool
	// elsewhere, when set, says whether the sentence states the claim of
	// something the family's judge does not weigh: a credential's
	// lifetime, reads, a plan, a part of the API.
	elsewhere func(sent string) bool
}

// leaves reports whether the family's own tests read sent (with its
// tokens toks) as no claim of the family: not about it, a warning, naming
// nothing it is about, or a denial.
func (lf learnedFamily) leaves(sent string, toks []string) bool {
	return lf.about != nil && !lf.about(toks) || lf.warns != nil && lf.warns(sent) ||
		lf.names != nil && !lf.names(sent) || lf.denies != nil && lf.denies(sent) ||
		lf.elsewhere != nil && lf.elsewhere(sent)
}

// learnedFamilies maps the family names of the labelled sets to their
// judges. standard-claim has none: no contract value contradicts it.
var learnedFamilies = map[string]learnedFamily{
	"retry-duration":     {RuleContradicts, judgeRetryLoop, nil, endlessLoop, retriesOffOrEnd, namesExtent, nil, nil},
	"safe-to-retry":      {RuleContradicts, judgeSafeToRetry, nil, nil, nil, namesRetry, nil, readsOrSameKey},
	"keyless-retry":      {RuleContradicts, judgeKeyless, nil, nil, warnsKeyless, nil, keyedOrRead, scopedToReads},
	"api-idempotent":     {RuleContradicts, judgeWholeAPI, nil, wholeAPIScope, nil, nil, nil, partOfAPI},
	"key-retention":      {RuleContradicts, judgeRetention, nil, nil, nil, nil, nil, namesCredential},
	"method-idempotency": {RuleMethodIdempotency, judgeMethod, nil, methodNeedingCare, nil, namesNonIdempotentMethod, deniesMethod, nil},
	"retry-any-error":    {RuleRetryAnyError, judgeRetryStatus, nil, nil, retriesOffOrGivesUp, nil, nil, requeues},
	"no-duplicates":      {RuleAbsoluteGuarantee, nil, keyBounded, nil, expectsOrDoubts, namesDuplicate, nil, nil},
	"exactly-once":       {RuleExactlyOnce, nil, keyBounded, nil, nil, namesSingleRun, nil, shownOnce},
	// No ratified standard defines the header, whatever the contract says.
	"standard-claim": {RuleStandardClaim, nil, func(*contract.Contract) bool { return true }, nil, nil, nil, deniesStandard, nil},
}

// endlessLoop: a retry-duration claim the reader makes is a loop with
// no figure ("it never stops retrying a 503"), or one whose figure the
// tokens place beyond the contract's (a count over max_attempts, a time
// over max_elapsed). A figure they cannot place ("three automatic
// attempts": a word between the count and its noun) is the contract
// checks' to compare; read by its words, such a loop looked endless.
func endlessLoop(toks []string) bool {
	if !unboundedLoop(toks) {
		return false
	}
	if slices.Contains(toks, tokCountOver) || slices.Contains(toks, tokDurOverElapsed) {
		return true
	}
	return !slices.ContainsFunc(toks, func(t string) bool {
		return t == tokNumber || t == tokCountWithin || durTokens[t] || countWords[t]
	})
}

// judgeRetryLoop is judgeRetryUnbounded for the reader, whose loop may
// carry a figure beyond the contract's ("the client will try up to ten
// times"): the message says so instead of "without end".
//
// A job of the application's own that resubmits within the contract's
// longest_retry_chain ("our reconciliation job resubmits failed
// transfers for up to 6 hours") is the chain the contract states, not
// the client's loop.
func judgeRetryLoop(c *contract.Contract, match, sentence string) (contradiction, bool) {
	if chain := c.Idempotency.LongestRetryChain.Duration.D; chain > 0 && reResubmitter.MatchString(sentence) {
		if d, _, ok := retentionOf(sentence); ok && d <= chain {
			return contradiction{}, false
		}
	}
	x, ok := judgeRetryUnbounded(c, match, sentence)
	if ok && reFigure.MatchString(sentence) {
		x.message = fmt.Sprintf("says the client retries more often or for longer (%q) than the contract allows: %s", match, retryBound(&c.Retry))
	}
	return x, ok
}

// reResubmitter is a job of the application's own that sends a request
// again, beside the client's retries.
var reResubmitter = regexp.MustCompile(`\b(jobs?|workers?|queues?|cron\w*|batch\w*|reconciliation|schedulers?|webhook-triggered|re-?submits?)\b`)

// durTokens are the tokens of a time placed against the contract's.
var durTokens = map[string]bool{tokDurOverWindow: true, tokDurWindow: true, tokDurUnderWindow: true, tokDurOverElapsed: true, tokDurWithinElapse: true}

// countWords are counts in words the tokens keep as words ("three
// automatic attempts": an adjective between the count and its noun): the
// one-word figures of numberWords (not "a", "an" nor a vague "several")
// and of timesCount but "once", which also means "after" (onceWhen).
var countWords = func() map[string]bool {
	out := map[string]bool{}
	for w := range numberWords {
		if !strings.Contains(w, " ") && w != "a" && w != "an" && w != "several" {
			out[w] = true
		}
	}
	for w := range timesCount {
		if w != "once" {
			out[w] = true
		}
	}
	return out
}()

// reFigure is a count or a span in digits or countWords.
var reFigure = regexp.MustCompile(`\b(\d+|` + strings.Join(slices.Sorted(maps.Keys(countWords)), "|") + `)\b`)

// unboundedLoop: a sentence that states a count within max_attempts, or
// only a time within max_elapsed, states the contract's bound.
func unboundedLoop(toks []string) bool {
	has := func(t string) bool { return slices.Contains(toks, t) }
	if has(tokCountWithin) || vagueCount(toks) {
		return false
	}
	return !has(tokDurWithinElapse) || has(tokCountOver) || has(tokDurOverElapsed)
}

// reRetryWord is a word for doing a request again.
var reRetryWord = regexp.MustCompile(`\b(?:re-?tr|re-?sen|re-?submit|replay|again|repeat|re-?deliver|re-?issu|re-?run|re-?do\b|re-?fir|re-?appl|re-?attempt|re-?execut|re-?call|double-submit|twice|second time|more than once|(?:many|multiple|several) times|as often)`)

// namesRetry: judgeSafeToRetry weighs a claim that requests may be sent
// again; a sentence with no word for doing so ("this can be safely done
// at any time") says something is safe, not that retrying is. Every
// safe-to-retry claim of the labelled sets names one.
func namesRetry(sent string) bool { return reRetryWord.MatchString(sent) }

// reExtent is a word for how long or how often something goes on: a
// count, a span, a limit, an end or the lack of one.
var reExtent = regexp.MustCompile(`\b(stop\w*|give[sn]? up|quits?|ceiling|limit\w*|caps?|capped|end\w*|until|forever|indefinitely|endless\w*|always|keeps?|keeping|persist\w*|times|attempts?|tries|long|days?|hours?|minutes?|weeks?|months?|clock|infinite\w*|unlimited|unbounded|as many|never|no matter|eventually|relentless\w*|tireless\w*)\b`)

// namesExtent reports whether sent says how long or how often retrying
// goes on: a retry-duration claim without one ("automatic retries cause
// no side effects") promises something else.
func namesExtent(sent string) bool { return reExtent.MatchString(sent) }

// vagueCount is a count of tries stated without a figure ("a number of
// times", "a few times", "several times"): finite, so a bound.
func vagueCount(toks []string) bool {
	for i := 1; i < len(toks); i++ {
		if toks[i] != "time" {
			continue
		}
		switch {
		case toks[i-1] == "few" || toks[i-1] == "several":
			return true
		case i >= 2 && toks[i-1] == "of" && (toks[i-2] == "number" || toks[i-2] == "couple"):
			return true
		}
	}
	return false
}

// reDuplicatesHappen states that duplicates occur: "duplicates are
// expected", "duplicate deliveries may happen", "you may receive
// duplicates".
var reDuplicatesHappen = regexp.MustCompile(`\bduplicates?(?:\s+[a-z]+s)?\s+(?:(?:are|is|will be|may be|can be|might be)\s+(?:expected|possible|guaranteed|likely|inevitable|normal|common)|(?:may|can|will|might|do|does)\s+(?:occur|happen|arrive|appear))\b|\b(?:may|can|will|might)\s+(?:receive|see|get|deliver|produce|create|cause|result in)\s+(?:a\s+|some\s+)?duplicates?\b`)

// expectsDuplicates: a sentence that says duplicates happen ("no data
// loss, but duplicates are expected") describes at-least-once delivery,
// the opposite of the no-duplicates claim; one that denies them ("you
// will never receive duplicates") is still the claim.
func expectsDuplicates(sent string) bool {
	loc := reDuplicatesHappen.FindStringIndex(sent)
	return loc != nil && !reNegatedBefore.MatchString(sent[:loc[0]])
}

// reDoubt says the writer cannot vouch for what follows: "you can't be
// sure", "we cannot guarantee", "there is no guarantee".
var reDoubt = regexp.MustCompile(`\b(?:can't|cannot|can not|couldn't|could not)\s+(?:be\s+)?(?:sure|certain|guarantee|promise)\b|\bno\s+(?:guarantee|way to (?:be sure|know|tell))\b`)

// expectsOrDoubts: a no-duplicates sentence that expects duplicates
// (expectsDuplicates) or doubts their absence ("you can't be sure a
// refund was not booked twice") cautions instead of promising.
func expectsOrDoubts(sent string) bool { return expectsDuplicates(sent) || reDoubt.MatchString(sent) }

// reDuplicateWord is a word for a second copy or for the single one:
// "duplicate", "double", "twice", "a second transfer", "only once", "one
// transfer per intent".
var reDuplicateWord = regexp.MustCompile(`\b(?:duplicat|dupe|de-?dup|doubl|twice|second|two|one|once|single|same|many times|again)`)

// namesDuplicate: the no-duplicates claim denies a second copy or
// promises a single one; a sentence that names neither ("your account
// will never be blocked") denies something else. "Once" that opens a
// clause ("once you upgrade") says when, not how many. Every
// no-duplicates claim of the labelled sets names one.
func namesDuplicate(sent string) bool {
	for _, loc := range reDuplicateWord.FindAllStringIndex(sent, -1) {
		if sent[loc[0]:loc[1]] != "once" || !onceWhen(sent[loc[1]:]) {
			return true
		}
	}
	return false
}

// reSingleRun names a single run or denies both a second and a missing
// one: "once", "one time", "a single time", "never twice and never
// dropped", "zero times or two times".
var reSingleRun = regexp.MustCompile(`\b(?:once|one(?: only)? time|single|exactly|twice|two times|zero times|fewer|dropped|missing|lost)\b`)

// namesSingleRun: an exactly-once claim names the one run it promises
// ("each transfer executes one time") or denies a second and a missing
// one; a sentence naming neither ("the worker re-tries the payout 2
// times") promises something else. Every exactly-once claim of the
// labelled sets names one.
func namesSingleRun(sent string) bool { return reSingleRun.MatchString(sent) }

// reShownOnce is a thing shown or placed once ("the secret is displayed
// exactly once", "the field must appear exactly once"), or a step run
// once per occasion of the user's ("runs exactly once, every time you
// deploy"): a count of where a thing is seen or of a scheduled step, not
// of how often the API does its work.
var reShownOnce = regexp.MustCompile(`\b(?:displayed|shown|shows|show|appears?|printed|listed|revealed|visible|viewable|declared|specified) (?:only )?(?:exactly )?(?:once|one time)\b|\b(?:exactly )?once,? (?:every|each) time (?:you|we|they|it is|a user|the user|someone) (?:deploy|build|install|log|sign|open|start|run|release|commit|push|merge)`)

// shownOnce: an exactly-once reading of a sentence that counts where a
// thing is shown or a step per occasion (reShownOnce) names another
// sense of "once".
func shownOnce(sent string) bool { return reShownOnce.MatchString(sent) }

// reModeDefinition opens a glossary entry of a delivery mode: its name,
// then a dash or a colon ("Exactly once — each event is processed one
// time").
var reModeDefinition = regexp.MustCompile(`^[^a-z0-9]*(?:exactly|at[- ]least|at[- ]most|effectively)[- ]once(?:[- ](?:delivery|semantics|processing))?[^a-z0-9]*[-:\x{2013}\x{2014}]`)

// reAddressee names the API's side or its reader: "we", "our", "you".
var reAddressee = regexp.MustCompile(`\b(?:we|our|us|you|your)\b`)

// definesMode: a glossary entry that defines a delivery mode without
// naming the API, its makers or its reader defines the term for any
// system (a broker's manual listing its semantics); naming them
// ("Exactly-once transfer: Lumapay's guarantee") makes it a promise.
func definesMode(c *contract.Contract, sent string) bool {
	loc := reModeDefinition.FindStringIndex(sent)
	if loc == nil {
		return false
	}
	rest := sent[loc[1]:]
	return !reAddressee.MatchString(rest) && (c.API.Name == "" || !strings.Contains(rest, strings.ToLower(c.API.Name)))
}

// reDuplicateOutcome is a retry's duplicate outcome stated as what
// happens or may: "it will create a second transfer", "you get charged
// twice", "you risk a second payout".
var reDuplicateOutcome = regexp.MustCompile(`\b(?:creates?|charges?|charged|sends?|makes?|results? in|gets?|causes?|leads? to|risks?|risking)\b[^.;]*\b(?:a second|twice|two|duplicates?|duplicated|double[sd]?|another)\b`)

// reNegatedBefore ends with a negator: what follows it is denied.
var reNegatedBefore = regexp.MustCompile(`\b(?:never|not|no|cannot|won't|can't|n't)\b\W*(?:\w+\W+){0,2}$`)

// warnsOfDuplicate: a sentence that says a keyless retry creates a
// duplicate warns against it ("resend it without a key and it will
// create a second transfer"); one that denies the duplicate ("... and
// it will never create a second transfer") is still the claim.
func warnsOfDuplicate(sent string) bool {
	loc := reDuplicateOutcome.FindStringIndex(sent)
	return loc != nil && !reNegatedBefore.MatchString(sent[:loc[0]])
}

// reUnprotected says that something is not protected: "is not
// protected", "isn't deduplicated", "unprotected", "no protection".
var reUnprotected = regexp.MustCompile(`\b(?:is|are|was|were|be)\s+not\s+(?:\w+\s+)?(?:protected|deduplicated|safe)\b|\b(?:isn't|aren't|wasn't|weren't)\s+(?:\w+\s+)?(?:protected|deduplicated|safe)\b|\bunprotected\b|\bno\s+protection\b`)

// warnsKeyless: a sentence that says a keyless retry duplicates its
// effect (warnsOfDuplicate) or goes unprotected ("a retry of that
// request is not protected at all: the server ran it with no key")
// warns against it.
func warnsKeyless(sent string) bool {
	return warnsOfDuplicate(sent) || reUnprotected.MatchString(sent)
}

// reRetriesOff says that retries are turned off: "retries off",
// "retries are disabled", "with retrying turned off", "disable retries".
var reRetriesOff = regexp.MustCompile(`\bretr(?:y|ies|ying)\s+(?:(?:is|are)\s+)?(?:off|disabled|turned off|switched off)\b|\b(?:disable[sd]?|turns? off|switch(?:es)? off)\s+(?:\w+\s+)?retr(?:y|ies|ying)\b`)

// retriesOff: a sentence that says the client's retries are off ("the
// SDKs ship with retries off") states no retry policy to weigh, neither
// which errors are retried nor for how long.
func retriesOff(sent string) bool { return reRetriesOff.MatchString(sent) }

// retriesOffOrGivesUp: a retry-any-error reading of a sentence whose
// client gives up with no word for trying again ("on every failure the
// gem logs the status and gives up") states the end of its retries, not
// a retry of every error; so does one whose retries are off.
func retriesOffOrGivesUp(sent string) bool {
	return retriesOff(sent) || reGivesUp.MatchString(sent) && !reRetryWord.MatchString(sent)
}

// reThenStops is a loop whose end follows it: "retries a dropped call
// for the next minute, then stops". With no figure in the sentence, the
// reader reads no endless loop there; with one ("for fifteen minutes,
// then stops"), the figure is weighed as before.
var reThenStops = regexp.MustCompile(`\b(?:then|and then|after which it) (?:stops|gives up|quits|ends|returns the error|surfaces the error|hands (?:you )?the error)\b`)

// reGivesUp is the client ending its retries: "before it gives up".
var reGivesUp = regexp.MustCompile(`\b(?:gives? up|giving up|gave up|quits?|quitting)\b`)

// reEndlessOrExtent is a loop said to have no end, or an extent stated or
// pointed at (a time, "how many", "defaults to", "up to"), whatever else
// it says: the figure is the contract checks' to weigh.
var reEndlessOrExtent = regexp.MustCompile(`\b(?:unlimited|forever|indefinitely|endless\w*|infinite\w*|no limit|without (?:a )?limit|seconds?|minutes?|hours?|days?|weeks?|months?|how many|how long|defaults?|max\w*|up to|more than)\b`)

// reNotBefore ends with a negator ("don't", "never", "not"), a word or
// two after it at most. reNegatedBefore misses a negator fused to its
// verb ("don't": no word boundary before n't); mending it there moves
// the readings that use it, which wants a measurement of its own.
var reNotBefore = regexp.MustCompile(`(?:\b(?:never|not|no|cannot)\b|n't)\W*(?:[\w']+\W+){0,2}$`)

// reStatusCode is an HTTP status, which is no count of tries.
var reStatusCode = regexp.MustCompile(`\b[1-5]\d\d\b`)

// retriesOffOrEnd: a sentence whose retries are off (retriesOff), or
// whose client gives up with no figure to weigh and no endless loop
// named ("the client will retry a 503 before it gives up"), states an
// end to the loop, not an endless one.
func retriesOffOrEnd(sent string) bool {
	if retriesOff(sent) || reThenStops.MatchString(sent) && !reFigure.MatchString(sent) {
		return true
	}
	loc := reGivesUp.FindStringIndex(sent)
	return loc != nil && !reNotBefore.MatchString(sent[:loc[0]]) &&
		!reEndlessOrExtent.MatchString(sent) && !reFigure.MatchString(reStatusCode.ReplaceAllString(sent, ""))
}

// reRequirement is a word that makes something needed: "must", "has
// to", "required", "insists on".
var reRequirement = regexp.MustCompile(`\b(?:must|have to|has to|had to|need to|needs to|do need|does need|required|requires|require|insists? on)\b`)

// reRequirementDenied ends with a negator and at most three words after
// it ("no idempotency key required", "you never have to"): wider than
// reNegatedBefore, which a requirement's denial outreaches by a word and
// by "without" and "nor". reNoneAfter opens with one ("requires no
// key").
var (
	reRequirementDenied = regexp.MustCompile(`(?:\b(?:never|not|no|nor|without|cannot)\b|n't)\W*(?:[\w'-]+\W+){0,3}$`)
	reNoneAfter         = regexp.MustCompile(`^\W*(?:no|none|nothing)\b`)
)

// requiresKey: judgeKeyless reads a sentence about a retry and a key as
// saying the retry needs no key; one that states a requirement nothing
// negates ("your connector must send the key again when it retries",
// "the header is required on transfers") says the opposite. Every
// keyless claim of the labelled sets that names a requirement negates
// it ("no key required", "you don't have to", "requires no key") or asks
// about it ("Must I send a key? No."): only the text after a question
// is read.
func requiresKey(sent string) bool {
	sent = sent[strings.LastIndexByte(sent, '?')+1:]
	for _, loc := range reRequirement.FindAllStringIndex(sent, -1) {
		if !reRequirementDenied.MatchString(sent[:loc[0]]) && !reNoneAfter.MatchString(sent[loc[1]:]) {
			return true
		}
	}
	return false
}

// reReadVerb is a word for reading a resource: "fetch", "poll", "look
// up", "GET /".
var reReadVerb = regexp.MustCompile(`\b(?:fetch\w*|reads?|reading|look(?:s|ing)? up|retriev\w*|poll\w*|lists?|listing|view\w*|quer(?:y|ies|ying))\b|\bget /`)

// keyedOrRead: judgeKeyless weighs the endpoints that need a key; a
// sentence that says the key is needed (requiresKey), or that reads a
// resource and names no doing again ("no key is needed to fetch a
// transfer by id"), says nothing of a keyless retry of one. Every keyless
// claim of the labelled sets that names a read names a retry too.
func keyedOrRead(sent string) bool {
	return requiresKey(sent) || reReadVerb.MatchString(sent) && !namesRetry(sent) || keyEnforced(sent) || keyDoesTheWork(sent)
}

// reRefusal is the server turning a request away: "refuses", "rejects",
// "is rejected".
var reRefusal = regexp.MustCompile(`\b(?:refuses?|refused|rejects?|rejected|turns? away|turned away|denies|denied)\b`)

// keyEnforced: a sentence in which the server refuses what a keyless
// claim would allow ("the server refuses a keyless retry of a transfer
// with 428") states the requirement; a denied refusal ("it never
// rejects a retry without a key", "we don't reject ...") is the claim.
func keyEnforced(sent string) bool {
	loc := reRefusal.FindStringIndex(sent)
	return loc != nil && !reNotBefore.MatchString(sent[:loc[0]])
}

// reByKey names the key as the means: "deduplicated by their
// Idempotency-Key", "with the same idempotency key".
var reByKey = regexp.MustCompile(`\b(?:by|with|using|via|through)\s+(?:their|its|the|your|a|an)?\s*(?:same\s+|original\s+)?idempotency[- ]keys?\b`)

// keyDoesTheWork: a sentence that names the key as what deduplicates a
// retry, and no doing without it, says the retry carries one.
func keyDoesTheWork(sent string) bool {
	return reByKey.MatchString(sent) && !strings.Contains(sent, "without")
}

// wholeAPIScope: judgeWholeAPI weighs a claim about the whole API; a
// sentence about one endpoint the contract may not hold ("the refunds
// endpoint is fully idempotent") names no scope it can weigh, and a goal
// or plan ("making the entire API idempotent is our goal") promises
// nothing yet (the phrase rule's unless list says the same).
func wholeAPIScope(toks []string) bool {
	scope := false
	for i, t := range toks {
		// The scope is the same under a negation ("there isn't a single
		// non-idempotent route in the API" is about every route).
		switch strings.TrimPrefix(t, tokNegPrefix) {
		case "goal", "aim", "plan", "roadmap", "yet":
			return false
		case tokAPIName, "api", "every", "all", "each", "any", "entire", "whole", "everything", "single":
			scope = true
		case tokNumber: // "100% idempotent"
			scope = scope || i+1 < len(toks) && strings.HasPrefix(toks[i+1], "idempot")
		}
	}
	return scope
}

// methodNeedingCare: judgeMethod compares the contract's endpoints with a
// claim about POST or every method; a sentence that names only methods
// the contract keeps idempotent (GET, PUT, DELETE here) claims nothing it
// contradicts, unless it makes the claim universal ("always", "every").
func methodNeedingCare(toks []string) bool {
	for _, t := range toks {
		switch t {
		case tokMethodCare, tokMethodNotIdem, tokOpKeyed, tokOpUnsafe, "all", "every", "each", "any", "always":
			return true
		}
	}
	return false
}

// reMethodDenied is POST or PATCH with its idempotency denied right
// after it, the predicate often left out: "POST is not", "POST isn't
// one", "POSTs do not", "POST: no", "POST and PATCH are
// non-idempotent".
var reMethodDenied = regexp.MustCompile(`\b(?:post|patch)(?:e?s)?(?: (?:requests?|methods?|calls?|verbs?))?(?: (?:is|are|does|do|did|was|were|stays?|remains?))? ?(?:not|n't)\b|\b(?:post|patch)(?:e?s)?: ?(?:no|not)\b|\b(?:post|patch)(?:e?s)?(?: (?:and|or) (?:post|patch)(?:e?s)?)? (?:is|are) (?:non-?idempotent|neither)\b`)

// reNotStandard says a header or a scheme is no standard, or not yet
// one: "not a ratified standard", "remains an Internet-Draft", "no RFC".
var reNotStandard = regexp.MustCompile(`\b(?:remains?|is still|still|is only|only|just) (?:an? )?(?:internet[- ])?draft\b|\b(?:not|no|never became|hasn't become|has not become) (?:yet )?(?:an? )?(?:ratified |official |formal |real |finished |final )?(?:standard|rfc)\b`)

// deniesStandard: a sentence that says the header is no standard yet
// ("the IETF work on the header remains an Internet-Draft") states what
// the standard-claim rule asks, whatever else it names (an RFC, the
// IETF). No standard claim of the labelled sets says so.
func deniesStandard(sent string) bool {
	return reNotStandard.MatchString(sent) || (reDraftSays.MatchString(sent) || reDraftTopic.MatchString(sent)) && !reConforms.MatchString(sent) ||
		reFollowsDraft.MatchString(sent) && !reStandardStatus.MatchString(sent)
}

// reFollowsDraft and reStandardStatus: a sentence in which the API
// follows what it calls a draft ("obeys the IETF draft for the header")
// and gives it no standing (a standard, an RFC, official, compliant),
// no letter-perfect match ("to the letter", "in any way", "quoted value
// and all") and no requirement of the draft's ("the draft mandates a
// 24-hour expiry", a claim about the draft) calls the header no
// standard; the standard-claim rule reads it the same way.
var (
	reFollowsDraft   = regexp.MustCompile(`\b(?:obey|follow|implement|support|use|track)s?\b[^.;]{0,24}\bdraft\b`)
	reStandardStatus = regexp.MustCompile(`\b(?:standard\w*|rfcs?|norms?|official\w*|ratified|certified|compl(?:y|ies|iant|iance)|conform\w*|to the letter|exactly|in any way|deviat\w*|strict\w*|and all|quot\w+|mandat\w*|requir\w*|fully|100 ?%)`)
)

// reDraftSays, reDraftTopic and reConforms: a sentence in which the IETF
// draft says or requires something ("the IETF draft requires the key to
// be quoted"), or that explains or cites the draft ("this guide explains
// the draft line by line"), and in which nothing conforms to it describes
// the draft, not this API; one that
// says the API follows it ("conforms to the IETF draft") contradicts a
// contract that departs from it, as the labelled sets read it.
var (
	reDraftSays  = regexp.MustCompile(`\bdraft (?:itself )?(?:requires|says|defines|specifies|asks for|recommends|suggests|uses|describes|expects|calls for)\b`)
	reDraftTopic = regexp.MustCompile(`\b(?:explains?|describes?|covers?|summari[sz]es?|discuss(?:es)?|walks? through|compares?|quotes?|cites?|links? to|mentions?)\b[^.;]{0,40}\bdraft\b`)
	reConforms   = regexp.MustCompile(`\b(?:what|exactly|matches|same|conform\w*|compl(?:y|ies|iant|iance)|follow\w*|obey\w*|implement\w*|per|adher\w*|honou?r\w*|respect\w*|as|like)\b`)
)

// reEveryPost is a claim over every POST or PATCH ("every Lumapay POST
// is"), which a denial of another API's POST does not take back.
var reEveryPost = regexp.MustCompile(`\b(?:every|all|each|any)(?: [a-z0-9'-]+){0,2}? (?:post|patch)(?:e?s)?\b`)

// deniesMethod: judgeMethod reads a sentence naming POST as claiming
// POST is idempotent; one that denies it ("by the HTTP spec, GET is
// idempotent and POST is not") states the standard, unless it makes
// a claim over every method or every POST as well.
func deniesMethod(sent string) bool {
	every := reEveryMethod.MatchString(sent) && !reOnlyOfAll.MatchString(sent)
	return reMethodDenied.MatchString(sent) && !every && !reEveryPost.MatchString(sent) || reExceptPost.MatchString(sent)
}

// reExceptPost takes POST out of a claim over every method ("all HTTP
// methods are idempotent except POST and PATCH"): HTTP's own rule.
var reExceptPost = regexp.MustCompile(`\bidempotent,? (?:except|but|save|other than|apart from|besides) (?:for )?post\b`)

// reOnlyOfAll picks some methods out of all ("of all HTTP methods, only
// POST and PATCH are not idempotent"): no claim over every method.
var reOnlyOfAll = regexp.MustCompile(`\bof (?:all|every|the)(?: [a-z0-9'-]+){0,2}? (?:http )?(?:methods|verbs),? only\b`)

// keyBounded reports whether the contract bounds a duplicate's absence
// by a key and a window: an endpoint needs a key, and keys expire.
func keyBounded(c *contract.Contract) bool {
	keyed, _ := notSafe(c)
	return len(keyed) > 0 && !c.Idempotency.ReplayWindow.IsZero()
}

// learnedReader is the model at a threshold, for one linter, with the
// families whose proposals it reports (nil: every family with a judge).
type learnedReader struct {
	m         *LearnedModel
	threshold float64
	families  []string
	// veto, when above zero, is the probability of no claim at which the
	// reader drops the rules' findings in a sentence (vetoable rules
	// only); zero keeps every rule finding.
	veto float64
	// vetoKeeps are vetoable rules whose findings this reader's veto
	// leaves to the rules all the same (sureVetoKeeps).
	vetoKeeps map[string]bool
	// terms are the contract's, for the tokenizer.
	terms *contractTerms
	// unscreened parses every Markdown, MDX and HTML file with a gate
	// word, the screen skipped: the reference TestLearnedScreenHidesNothing
	// compares the screen with.
	unscreened bool
}

// read is the model's reading of a normalized sentence, with its tokens.
func (r *learnedReader) read(sent string) (string, float64, []string) {
	toks := r.terms.tokens(sent)
	fam, p := r.m.predictTokens(toks)
	return fam, p, toks
}

// vetoable are the rules whose findings the reader may drop: those that
// judge what a sentence promises. Exactly-once and absolute-guarantee
// wording is flagged wherever it stands, a third party's manual included
// (labels.tsv labels Kafka's and NATS's "exactly-once" as claims), while
// the reader learned that a manual describing such a mode promises
// nothing of this API: vetoing them dropped labelled claims there
// (copylint/README.md, the reader's last section). The
// bounded warning and the suppression rules are no claims it reads.
var vetoable = map[string]bool{
	RuleContradicts: true, RuleStandardClaim: true, RuleMethodIdempotency: true, RuleRetryAnyError: true,
}

// readerWeighs reports whether the learned reader weighs the contract
// value at path: an endpoint's key or effect, or a figure its tokens
// place against the contract (a time against replay_window and
// max_elapsed, a count against max_attempts, a status against the
// statuses retried). A hit on any other value (the header's name, an
// error code, where the key goes, the backoff) compares a name or a
// figure the model never sees, and its veto leaves it.
func readerWeighs(path string) bool {
	return path == "" || strings.HasPrefix(path, "endpoints[") || weighedPaths[path]
}

var weighedPaths = map[string]bool{
	"idempotency.replay_window": true, "idempotency.reaper_after": true,
	"retry.max_attempts": true, "retry.max_elapsed": true,
	"retry.statuses": true,
}

// LearnedFieldFamilies are the families the shipped reader reports: those
// whose proposals, at the shipped threshold and veto, add no finding on
// the hand-labelled manuals of labels.tsv, labelled line or not
// (TestLearnedFieldPrecision prints the count per family for every
// family). Since neutral3.tsv and the readings that leave a delivery
// mode's glossary entry, duplicates said to happen, a no-duplicates
// claim naming no second copy, a safe claim naming no retry and a loop
// bounded by a vague count (learnedPropose), that was every family; both
// were written knowing labels.tsv's false positives, so labels.tsv no
// longer measures these families unseen. retry-duration was left out
// from Session 19 to 21 (the model reads an unlabelled NServiceBus line
// about retries and side effects as one); it is back since its claims
// must name how long or how often retrying goes on (namesExtent),
// written knowing that line too (copylint/README.md).
var LearnedFieldFamilies = []string{"api-idempotent", "exactly-once", "key-retention", "keyless-retry", "method-idempotency", "no-duplicates", "retry-any-error", "retry-duration", "safe-to-retry", "standard-claim"}

// learnedMinWords is the fewest words a unit needs: a heading or a
// table cell ("Exactly-once support", "duplicate events") is a topic,
// and the sets the model learned from hold sentences.
const learnedMinWords = 5

// learnedFragmentWords is the fewest words of a fragment the reader
// reads (a unit under learnedMinWords words or without its stop: a
// heading, a table cell, a chat line); learnedFragmentP is the
// probability a fragment under learnedMinWords words, a table row, or a
// fragment of fragmentFamilies needs: a heading or a table cell names a
// topic, and a comparison table's row sets labels beside figures. A
// longer fragment (a chat line or a list item without its stop) is read
// at the threshold: on the leave-one-set-out folds that finds more claims
// at the same precision (BENCHMARKS.md).
const (
	learnedFragmentWords = 3
	learnedFragmentP     = 0.99
)

// fragmentFamilies are read in a fragment only when the model is all but
// sure: an exactly-once heading or list item in a streaming platform's
// manual names the mode it documents ("Exactly-once semantics", Kafka's
// upgrade notes in labels.tsv), and the model reads it as the claim.
var fragmentFamilies = map[string]bool{"exactly-once": true}

// LearnedThreshold is the probability a proposal needs: chosen with
// LearnedVeto on the leave-one-set-out folds no rule was tuned on, as
// the setting with the most recall at the precision the issue asks for
// (bench/copyfield, TestLearnedLeaveOneOut), among the thresholds at
// which the reader adds nothing on labels.tsv.
const LearnedThreshold = 0.7

// LearnedVeto is the probability of no claim at which the reader drops
// the rules' findings in a sentence, chosen with LearnedThreshold: the
// wide veto (Options.LearnedVeto, copy --learned-veto).
const LearnedVeto = 0.7

// LearnedSureVeto is the veto of the reader without --learned-veto: a
// sentence loses the rules' findings only when the model is all but sure
// it makes no claim, and a method-idempotency finding is left to the
// rules (sureVetoKeeps). On the leave-one-out folds and on heldout29 to
// heldout38 it dropped no claim, and it drops none of the claims
// copylint's tests hold, which the wide veto does (copylint/README.md,
// "A sure veto, and a reader too slow to turn on").
const LearnedSureVeto = 0.99

// sureVetoKeeps are the rules whose findings the sure veto leaves: a
// method's class in RFC 9110 is a fact the model reads from a handful of
// sentences (it is all but sure "TRACE is the only standard verb that is
// not idempotent" makes no claim), and on the folds no false
// method-idempotency finding reaches LearnedSureVeto.
var sureVetoKeeps = map[string]bool{RuleMethodIdempotency: true}

// learnedGate holds the words a sentence needs before the model reads it:
// what a claim about retries, duplicates or keys cannot do without.
var learnedGate = newAnchorSet(learnedGateWords, learnedGateTags())

// learnedGateTags gives every gate word the same tag: a word without one
// would be no anchor.
func learnedGateTags() []uint64 {
	out := make([]uint64, len(learnedGateWords))
	for i := range out {
		out[i] = 1
	}
	return out
}

// learnedGateWords are learnedGate's words, matched anywhere in a word.
// The last lines carry claims the first ones miss ("a dozen tries",
// "never gives up", "processed a single time", "dupes"); a word
// as common as "time" or "error" would send most prose to the model
// (BENCHMARKS.md has what both sets of words cost).
var learnedGateWords = []string{
	"retr", "idempot", "duplicat", "twice", "once", "resen", "re-sen", "resubmit",
	"replay", "double", "key", "charge", "safe", "again", "attempt", "repeat",
	"dupe", "rerun", "re-run", "one time", "single time", "two times", "many times", "second time",
	"tries", "trying", "give up", "gives up", "giving up", "hammer", "ietf",
}

// parseAll reports whether a plain-text file must be read whole for the
// reader: it holds a gate word (the phrase rules' prefilter cannot see
// the model's claims).
func (r *learnedReader) parseAll(src []byte) bool {
	return r != nil && learnedGate.match(src)
}

// learnedScreenMargin is how far below its threshold the reader reads a
// file's raw text before parsing it: the raw text keeps link targets,
// headings run into their paragraphs and table pipes, which move a
// sentence's probability a little, so the screen asks for less than the
// reading does.
const learnedScreenMargin = 0.25

// learnedScreen reports whether a Markdown, MDX or HTML file in which the
// rules' raw pass found nothing must be parsed for the reader: a sentence
// of its raw text (tags, emphasis and, where safe, fenced code left out,
// as the raw pass does) reads as a claim of a reported family at the
// threshold less learnedScreenMargin. Parsing is most of a file's cost,
// and most files with a gate word hold no claim. A file that may hide a
// word (hidingAt) is always parsed: its raw bytes do not show it.
func (l *linter) learnedScreen(src []byte, f format, sc *scratch, hiding []int) bool {
	r := l.learned
	if r == nil || l.c == nil {
		return false
	}
	// The raw pass's scan (prefilter) found the gate words of the file
	// with the rules' anchors; a block is read when one ends in it (a
	// word that starts before it too: reading more is always safe).
	if !slices.ContainsFunc(sc.docHits, func(h anchorHit) bool { return h.tags&tagLearnedGate != 0 }) {
		return false
	}
	if len(hiding) > 0 || r.unscreened {
		return true
	}
	var fences []span
	if f == formatMarkdown && !l.lintCode && !readsAsText(src) {
		fences = rawFences(src)
	}
	if cap(sc.raw) < len(src) {
		sc.raw = make([]byte, len(src), len(src)+4096)
	}
	m := sc.raw[:len(src)]
	sc.blocks = rawBlocks(src, fences, sc.blocks[:0])
	defer func() { sc.blocks = sc.blocks[:0] }()
	n := &sc.n
	from := 0
	for _, b := range sc.blocks {
		if tagsIn(sc.docHits, b.start, b.end, &from)&tagLearnedGate == 0 {
			continue
		}
		rawMaskRange(m, src, b.start, b.end)
		if f != formatHTML {
			blankLinkTargets(m, b.start, b.end)
		}
		// An MDX expression ("{id}" in a path) is code the parsed text
		// leaves out: its words would move the reading.
		if f == formatMDX {
			blankBraces(m, b.start, b.end)
		}
		normalize(m, b.start, b.end, nil, false, n)
		sc.sents = learnedUnits(n.text, sentences(n.text, sc.sents[:0]))
		for _, s := range sc.sents {
			if r.screens(n.text[s.start:s.end]) {
				return true
			}
		}
	}
	return false
}

// blankLinkTargets blanks the destinations of the Markdown links in
// m[start:end] ("[text](https://...)" keeps "[text]"): a long URL's words
// inside a sentence weigh on every family's score (the features are
// normalized by their count), where the parsed sentence holds only the
// link's text.
func blankLinkTargets(m []byte, start, end int) {
	for i := start; i+1 < end; i++ {
		if m[i] != ']' || m[i+1] != '(' {
			continue
		}
		j := i + 2
		for j < end && j-i < 2048 && m[j] != ')' && m[j] != '\n' {
			j++
		}
		if j < end && m[j] == ')' {
			blank(m, i+1, j+1)
			i = j
		}
	}
}

// screens reports whether the raw sentence sent may be a claim the reader
// reports: a reported family reads at the threshold less the margin,
// whether or not it is the likeliest class. The raw text holds words the
// parsed one drops (a code span's value), and they can tip a sentence
// read as a claim once parsed to none.
func (r *learnedReader) screens(sent []byte) bool {
	if !learnedGate.match(sent) || bytes.Count(sent, []byte(" "))+1 < learnedFragmentWords {
		return false
	}
	var pBuf [16]float64
	probs := r.m.classProbs(r.terms.tokens(string(sent)), pBuf[:0])
	for k, fam := range r.m.Classes {
		if fam != learnedNone && probs[k] >= r.threshold-learnedScreenMargin && (r.families == nil || slices.Contains(r.families, fam)) {
			return true
		}
	}
	return false
}

// learnedHits adds the reader's proposals in d's sentences that hold no
// finding yet and, with a veto, drops the rules' findings in the
// sentences it reads as no claim. A sentence with a finding that waived
// reports waived (by a suppression) is left as the rules read it. It
// normalizes in sc's buffers, which the rules'
// matching (matchBlocks) is done with.
func (l *linter) learnedHits(d *document, hits []hit, sc *scratch, waived func(hit) bool) []hit {
	r := l.learned
	if r == nil || l.c == nil {
		return hits
	}
	spans := make([][2]int, len(hits))
	for i, h := range hits {
		spans[i] = [2]int{h.start, h.end}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	n, sents := &sc.n, sc.sents
	defer func() { sc.sents = sents }()
	var added []hit
	var vetoed [][2]int
	for _, b := range d.blocks {
		if !learnedGate.match(d.mask[b.start:b.end]) {
			continue
		}
		skipCode := len(d.code) > 0 && !l.lintCode && codeIn(d.code, b)
		normalize(d.mask, b.start, b.end, d.code, skipCode, n)
		sents = learnedUnits(n.text, sentences(n.text, sents[:0]))
		for _, s := range sents {
			sent := n.text[s.start:s.end]
			start, end := n.sourceSpan(s.start, s.end)
			var v unitReading
			if spanHit(spans, start, end) {
				if slices.ContainsFunc(hits, func(h hit) bool { return h.start < end && h.end > start && waived(h) }) {
					continue
				}
				v = l.readRuled(string(sent), hits, start, end)
			} else {
				v = l.readUnruled(sent)
			}
			if v.veto {
				vetoed = append(vetoed, [2]int{start, end})
			}
			if v.add {
				h := v.h
				h.start, h.end = start, end
				if v.at != nil {
					h.start, h.end = n.sourceSpan(s.start+v.at[0], s.start+v.at[1])
				}
				added = append(added, h)
			}
		}
	}
	if len(vetoed) > 0 {
		hits = slices.DeleteFunc(hits, func(h hit) bool {
			return vetoable[h.rule] && !r.vetoKeeps[h.rule] && readerWeighs(h.path) && slices.ContainsFunc(vetoed, func(v [2]int) bool { return h.start < v[1] && h.end > v[0] })
		})
	}
	return append(hits, added...)
}

// unitReading is what the reader makes of one sentence: a finding to add
// (pointing at at within the sentence when the judge says where), and
// whether the rules' vetoable findings there are dropped.
type unitReading struct {
	h         hit
	at        []int
	add, veto bool
}

// readRuled reads a sentence that holds the rules' findings (hits, in
// [start, end) of the source): one the model reads as another family's
// claim at the threshold gets the model's finding beside theirs: a
// sentence can make two claims ("it retries 500 errors up to four
// times": a status and a count), and each is reported. With a veto, a
// sentence the model reads as no claim at the veto loses the rules'
// findings.
func (l *linter) readRuled(sent string, hits []hit, start, end int) unitReading {
	r := l.learned
	// A fragment, a table row or a record ("Retries: at most 9") is no
	// sentence of the kind the model learned from: the rules' reading of
	// it stands.
	if !proseSentence([]byte(sent)) {
		return unitReading{}
	}
	fam, p, _ := r.read(sent)
	switch {
	case fam == learnedNone:
		return unitReading{veto: r.veto > 0 && p >= r.veto}
	case !ruleIn(hits, start, end, learnedFamilies[fam].rule) && onlyVetoable(hits, start, end):
		h, at, ok := l.learnedPropose(sent, r.threshold)
		return unitReading{h: h, at: at, add: ok}
	}
	return unitReading{}
}

// readUnruled reads a sentence that holds no finding: a proposal of the
// model's becomes one. A short fragment (a heading, a table cell), a
// table row and a fragment of fragmentFamilies are read only when the
// model is all but sure.
func (l *linter) readUnruled(sent []byte) unitReading {
	if !learnedGate.match(sent) {
		return unitReading{}
	}
	words := bytes.Count(sent, []byte(" ")) + 1
	fragment := words < learnedMinWords || !endsSentence(sent)
	// A fragment joined by a middle dot is a title or a breadcrumb
	// ("Idempotent requests · Lumapay API"): names, no promise.
	if fragment && (words < learnedFragmentWords || bytes.Contains(sent, []byte("\u00b7"))) {
		return unitReading{}
	}
	fam, p, toks := l.learned.read(string(sent))
	short := words < learnedMinWords || bytes.IndexByte(sent, '|') >= 0
	if fragment && (fragmentFamilies[fam] || short) && p < learnedFragmentP {
		return unitReading{}
	}
	h, at, ok := l.proposeReading(string(sent), fam, p, toks, l.learned.threshold)
	return unitReading{h: h, at: at, add: ok}
}

// ruleIn reports whether a hit of rule overlaps [start, end).
func ruleIn(hits []hit, start, end int, rule string) bool {
	return slices.ContainsFunc(hits, func(h hit) bool { return h.rule == rule && h.start < end && h.end > start })
}

// onlyVetoable reports whether every hit overlapping [start, end) is of
// a rule the reader may veto.
func onlyVetoable(hits []hit, start, end int) bool {
	return !slices.ContainsFunc(hits, func(h hit) bool { return !vetoable[h.rule] && h.start < end && h.end > start })
}

// proseSentence reports whether a unit reads as a sentence of prose: it
// ends as one and has learnedMinWords words or more.
func proseSentence(sent []byte) bool {
	return bytes.Count(sent, []byte(" "))+1 >= learnedMinWords && endsSentence(sent)
}

// endsSentence reports whether a unit ends as a sentence does (. ! ? ;
// or :, before closing quotes, brackets or emphasis): a page title, a
// heading, a link or a table cell ("Idempotent requests · Example API")
// names a topic and promises nothing.
func endsSentence(sent []byte) bool {
	t := bytes.TrimRight(sent, " \t\n\"')]*_\u201d\u2019")
	return len(t) > 0 && strings.IndexByte(".!?;:", t[len(t)-1]) >= 0
}

// learnedUnits joins the sentences the splitter cut at a semicolon or
// after a question into one reading unit (at most three sentences, and
// the sentence after a bare answer, bareAnswer): the
// labelled sets the model learns from hold a question with its answer
// and both sides of a semicolon as one row, and a claim's parts often sit
// on both sides ("run the command again; no key is required").
func learnedUnits(text []byte, sents []span) []span {
	out := sents[:0]
	joined := 0
	for _, s := range sents {
		if len(out) > 0 && joined < 2 {
			last := &out[len(out)-1]
			if c := text[last.end-1]; c == ';' || c == '?' {
				last.end = s.end
				joined++
				continue
			}
			// The reasons of a bare answer are its own sentence: they
			// join without counting, so a semicolon in them still joins.
			if bareAnswer(text[last.start:last.end]) {
				last.end = s.end
				continue
			}
		}
		out = append(out, s)
		joined = 0
	}
	return out
}

// bareAnswerWords is the most words a bare answer has ("No.", "A: Not
// at all.").
const bareAnswerWords = 3

// bareAnswer reports whether a unit ends in a question's bare answer
// ("Is the whole API idempotent? A: No."): the answer's reasons follow in
// the next sentence, and the question read without them reads as the
// very claim the answer denies. The labelled rows hold a question, its
// answer and its reasons as one row.
func bareAnswer(unit []byte) bool {
	q := bytes.LastIndexByte(unit, '?')
	if q < 0 {
		return false
	}
	answer := bytes.TrimSpace(unit[q+1:])
	return len(answer) > 0 && bytes.Count(answer, []byte(" "))+1 <= bareAnswerWords
}

// spanHit reports whether a span of spans (sorted by start) overlaps
// [start, end).
func spanHit(spans [][2]int, start, end int) bool {
	i := sort.Search(len(spans), func(i int) bool { return spans[i][0] >= end })
	for j := i - 1; j >= 0; j-- {
		if spans[j][1] > start {
			return true
		}
		if j < i-64 { // hits are short; a long one was seen by now
			break
		}
	}
	return false
}

// learnedPropose reads one sentence: the finding its predicted family
// gives against the contract, and where inside the sentence it points.
func (l *linter) learnedPropose(sent string, threshold float64) (hit, []int, bool) {
	fam, p, toks := l.learned.read(sent)
	return l.proposeReading(sent, fam, p, toks, threshold)
}

// proposeReading is learnedPropose with the model's reading of sent
// (family fam at probability p, from tokens toks) at hand.
func (l *linter) proposeReading(sent, fam string, p float64, toks []string, threshold float64) (hit, []int, bool) {
	// Most sentences read as no claim: the checks below read the
	// sentence again, and none of them can make a finding of it.
	if fam == learnedNone || p < threshold {
		return hit{}, nil, false
	}
	lf, ok := learnedFamilies[fam]
	if !ok || l.learned.families != nil && !slices.Contains(l.learned.families, fam) || definesMode(l.c, sent) || lf.leaves(sent, toks) {
		return hit{}, nil, false
	}
	if senseRules[lf.rule] && l.otherSense(lf.rule, sent) || l.readsAsName(sent, fam, threshold) || l.ruledOut(lf.rule, []byte(sent)) {
		return hit{}, nil, false
	}
	// A question with no answer asks and promises nothing, as the rules
	// read it (clauseRules.judge).
	if endsAsking([]byte(sent)) {
		return hit{}, nil, false
	}
	note := fmt.Sprintf(" (read by the learned reader as a %s claim, p %.2f)", fam, p)
	if lf.judge == nil {
		if !lf.applies(l.c) {
			return hit{}, nil, false
		}
		for i := range l.rules {
			if l.rules[i].id == lf.rule {
				return hit{rule: lf.rule, message: l.rules[i].message + note, fix: l.fixes[lf.rule]}, nil, true
			}
		}
		return hit{}, nil, false
	}
	x, ok := lf.judge(l.c, sent, sent)
	if !ok {
		return hit{}, nil, false
	}
	if x.at != nil && reportedAt([]byte(sent), x.at[0], x.at[1]) {
		return hit{}, nil, false
	}
	return hit{rule: lf.rule, message: x.message + note, fix: x.fix, path: x.path}, x.at, true
}

// reIdempotentMethod is a method RFC 9110 makes idempotent.
var reIdempotentMethod = regexp.MustCompile(`\b(put|delete|get|head|options|trace)s?\b`)

// namesNonIdempotentMethod reports whether sent names what a
// method-idempotency claim is about: POST, PATCH, every method, or no
// method by name at all ("the archive call is idempotent by its verb").
// A sentence naming only methods the standard makes idempotent ("a PUT
// or DELETE that appends is trusted to be idempotent because of its
// method", a rule's own page) says nothing of POST, which the judge
// would report.
func namesNonIdempotentMethod(sent string) bool {
	return reNamedMethod.MatchString(sent) || reEveryMethod.MatchString(sent) || !reIdempotentMethod.MatchString(sent)
}

// reRequeue is a sender queueing a failed delivery for another try
// ("queues and retries any POSTs that respond with a 5XX status", a
// webhook platform's manual): the sender's redelivery, not the
// client's retry policy that retry.statuses states. Written knowing
// that labels.tsv line (copylint/README.md).
var reRequeue = regexp.MustCompile(`\bqueue[sd]?\s+(?:and|&)\s+retr|\bre-?queue`)

func requeues(sent string) bool { return reRequeue.MatchString(sent) }

// reCredential is a credential called a key: an API key is kept for
// months, and says nothing of idempotency keys.
var reCredential = regexp.MustCompile(`\b(api|secret|access|publishable|restricted|signing|encryption|ssh|license|licence|oauth|session)[ -]keys?\b`)

// namesCredential reports whether sent is about a credential, not an
// idempotency key.
func namesCredential(sent string) bool {
	return reCredential.MatchString(sent) && !strings.Contains(sent, "idempoten")
}

// rePlanned states a plan, not what holds today ("we are working toward
// every endpoint being idempotent", "next quarter, all endpoints will
// be").
var rePlanned = regexp.MustCompile(`\b(working|moving|headed|heading|striving) (toward|towards)\b|\b(someday|some day|eventually|next (year|quarter|release|version)|road ?map|in the future)\b|\b(plan|plans|planned|planning|aim|aims|intend|intends|hope|hopes) to\b`)

// reSubset narrows a claim about the API to a part of it: an exception
// ("every operation, except bulk exports, ..."), or the calls of one
// kind ("for the calls that create money movements").
var reSubset = regexp.MustCompile(`\b(except|excluding|other than|apart from|save for|with the exception of)\b|\bfor (the|those) (calls|endpoints|operations|requests|routes) (that|which)\b`)

// partOfAPI reports whether a claim about the API is one about a part
// of it (scopedToReads, reSubset) or a plan (rePlanned).
func partOfAPI(sent string) bool {
	return rePlanned.MatchString(sent) || reSubset.MatchString(sent) || scopedToReads(sent)
}

// reReads names reads as a claim's scope: GET or read requests, routes
// or endpoints, lookups and queries, reading a resource again, webhook
// events (which the contract does not cover). "get" alone is most often
// the verb ("you get the original back").
var (
	reReads  = regexp.MustCompile(`\b(get|head|read|read-only) (requests?|calls?|endpoints?|routes?|operations?|methods?)\b|\b(lookups?|queries)\b|\bto read (a|an|the|your)\b|\bwebhook events?\b`)
	reWrites = regexp.MustCompile(`\b(writes?|creat\w*|actions?|post|archiv\w*)\b`)
)

// reSameKey is a retry said to carry the same key: "as long as you reuse
// the same key".
var reSameKey = regexp.MustCompile(`\bsame (?:idempotency[- ])?key\b`)

// readsOrSameKey: a safe-to-retry reading of a sentence scoped to reads,
// or one that makes the retry's safety hang on the same key ("harmless
// no matter which operation you call, as long as you reuse the same
// key"), states the contract's own terms, as the rule's exceptions read
// them.
func readsOrSameKey(sent string) bool {
	return scopedToReads(sent) || reSameKey.MatchString(sent) || retriesOneOperation(sent)
}

// reRetriedObject is the object of a retry: "retrying a refund", "a
// retry of the capture", "resending your payout".
var reRetriedObject = regexp.MustCompile(`\b(?:retrying|retry of|resending|re-sending|repeating|replaying) (?:a|an|the|this|that|your|one) (?:single )?([a-z-]+)(?: ([a-z-]+))?`)

// genericObjects are the objects of a retry that stand for any request:
// "retrying a request is safe", "retrying a Lumapay call" are the
// universal claim.
var genericObjects = map[string]bool{"request": true, "call": true, "api": true, "operation": true, "write": true, "action": true, "message": true, "job": true, "thing": true, "failed": true, "timed-out": true, "request's": true, "http": true, "post": true, "endpoint": true}

// retriesOneOperation reports whether the retry a sentence calls safe is
// of one operation it names ("retrying a refund is safe"): a claim about
// that operation, which the rules judge by the endpoint it names
// (endpoint-safe-to-retry), not one about every request.
func retriesOneOperation(sent string) bool {
	m := reRetriedObject.FindStringSubmatch(sent)
	return m != nil && !genericObjects[m[1]] && !genericObjects[m[2]]
}

// scopedToReads reports whether sent scopes its claim to reads ("every
// GET request is safe to replay") and names no write: reads are safe to
// repeat.
func scopedToReads(sent string) bool { return reReads.MatchString(sent) && !reWrites.MatchString(sent) }

// reportedAt reports whether the figure at [start, end) of sent is
// reported, not promised, as the contract checks read it: quoted or
// named as wording not to write, or another system's figure (attributed
// back to it, or disowned after it). A figure inside a question is left
// to the answer the unit holds with it ("Same key within 48 hours? You
// get the original response.") and a question with no answer to
// endsAsking.
func reportedAt(sent []byte, start, end int) bool {
	return quotedWording(sent, start, end) || mentionedWording(sent, start) ||
		attributedBack(sent[:start], sent[end:]) || disowned(sent[end:])
}

// reSlashName is a name of the form group/kebab-name ("copy/exactly-once",
// "sdk/retries-off"): a rule of a catalog, a setting. Its words name
// something; they promise nothing. A path ("/v1/payout-batches") and a
// pair of methods ("PUT/DELETE") are no such name (slashNames).
var reSlashName = regexp.MustCompile(`[a-z][a-z0-9]*/[a-z0-9]+(?:-[a-z0-9]+)+`)

// slashNames are the group/kebab-name names of sent: the matches of
// reSlashName that start a word and are not part of a path.
func slashNames(sent string) [][]int {
	var out [][]int
	for _, loc := range reSlashName.FindAllStringIndex(sent, -1) {
		if before := loc[0] - 1; before >= 0 && (strings.IndexByte("/._-", sent[before]) >= 0 || isWordByte(sent[before])) {
			continue
		}
		if loc[1] < len(sent) && (sent[loc[1]] == '/' || isWordByte(sent[loc[1]])) {
			continue
		}
		out = append(out, loc)
	}
	return out
}

// readsAsName reports whether sent reads as a claim of fam only through
// the words of a group/kebab-name ("copy/exactly-once · Lumapay", a rule
// page's title): with each name read as the word "name", the sentence is
// no such claim. The phrase rules leave a term inside such a name alone
// too.
func (l *linter) readsAsName(sent, fam string, threshold float64) bool {
	if !strings.Contains(sent, "/") {
		return false
	}
	names := slashNames(sent)
	if len(names) == 0 {
		return false
	}
	var b strings.Builder
	from := 0
	for _, loc := range names {
		b.WriteString(sent[from:loc[0]])
		b.WriteString("name")
		from = loc[1]
	}
	b.WriteString(sent[from:])
	f, p, _ := l.learned.read(b.String())
	return f != fam || p < threshold
}

// senseRules are the rules whose phrase forms' unless lists name other
// senses of the phrase ("enter your card exactly once", "copied into
// the cache exactly once"). Other rules' unless lists name honest
// contexts the model reads on its own; heeding them too dropped far more
// right findings than wrong ones (copylint/README.md, "Readings of the
// reader's false findings").
var senseRules = map[string]bool{RuleExactlyOnce: true}

// otherSense reports whether a phrase form of rule matches sent, its
// unless list reads the phrase in another sense ("enter your bank
// details exactly once") and its needs find nothing the phrase is about
// (a delivery, a processing, a transfer): the rule weighed the words
// and found them about something else, which the model, reading words
// without their order, does not see.
func (l *linter) otherSense(rule, sent string) bool {
	b := []byte(sent)
	for i := range l.rules {
		if l.rules[i].id != rule {
			continue
		}
		for _, f := range l.rules[i].forms {
			if len(f.unless) > 0 && f.match.Match(b) && anyMatch(f.unless, b) && !allMatch(f.needs, b) {
				return true
			}
		}
	}
	return false
}

// ruledOut reports whether rule's phrase forms find a claim's words in
// sent and the clause analysis reads each of them as no promise of the
// page, only a mention: a clause of an agreement that rules the reading
// out, a claim told of a former or in-house client, one called untrue.
// The rules weighed those words in their clause; the model reads no
// clause, so it does not overrule them.
func (l *linter) ruledOut(rule string, sent []byte) bool {
	cl := clauseAnalysis()
	cleared := false
	for i := range l.rules {
		r := &l.rules[i]
		if r.id != rule {
			continue
		}
		var memo boundMemo
		for _, f := range r.forms {
			if !f.match.Match(sent) || !allMatch(f.needs, sent) || anyMatch(f.unless, sent) {
				continue
			}
			for _, loc := range f.match.FindAllIndex(sent, -1) {
				if v, _ := cl.judge(r, sent, loc[0], loc[1], &memo); v != vMention {
					return false
				}
				cleared = true
			}
		}
	}
	return cleared
}

// LintSourceLearned is LintSource with the learned reader m at threshold
// reporting the families named (nil: every family with a judge); nil m:
// the rules alone, whatever LearnedDefault says. For the measurement in
// bench/copyfield, and for site's quote detector.
func LintSourceLearned(c *contract.Contract, name string, data []byte, m *LearnedModel, threshold float64, families []string) []findings.Finding {
	return LintSourceLearnedVeto(c, name, data, m, threshold, families, 0)
}

// LintSourceLearnedVeto is LintSourceLearned with the reader's veto at
// probability veto (0: none).
func LintSourceLearnedVeto(c *contract.Contract, name string, data []byte, m *LearnedModel, threshold float64, families []string, veto float64) []findings.Finding {
	return lintSourceWith(c, name, data, m, &learnedReader{threshold: threshold, families: families, veto: veto})
}

// LintSourceLearnedSure is LintSourceLearnedVeto with the sure veto's
// rules: the findings of sureVetoKeeps are never dropped.
func LintSourceLearnedSure(c *contract.Contract, name string, data []byte, m *LearnedModel, threshold float64, families []string, veto float64) []findings.Finding {
	return lintSourceWith(c, name, data, m, &learnedReader{threshold: threshold, families: families, veto: veto, vetoKeeps: sureVetoKeeps})
}

// lintSourceWith lints data with the rules and, when m is not nil, the
// reader r with model m.
func lintSourceWith(c *contract.Contract, name string, data []byte, m *LearnedModel, r *learnedReader) []findings.Finding {
	l := newLinter(c, false)
	l.learned = nil
	if m != nil {
		r.m, r.terms = m, termsOf(c)
		l.learned = r
	}
	fs := l.lintSource(name, data, nil, nil)
	findings.Sort(fs)
	return fs
}
