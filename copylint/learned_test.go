package copylint

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/internal/copyset"
)

func payoutsContract(t *testing.T) *contract.Contract {
	t.Helper()
	c, err := contract.Load(filepath.Join("..", "examples", "payouts", "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLearnedFeaturesAreContractRelative: a figure, an operation, a
// method, a status and the API's name become how they stand to the
// contract, so the same words give other tokens under another contract.
func TestLearnedFeaturesAreContractRelative(t *testing.T) {
	payouts := payoutsContract(t)
	// Another contract: a 60-day window, ten attempts, another name.
	other := *payouts
	other.Idempotency.ReplayWindow.D = 60 * 24 * time.Hour
	other.Retry.MaxAttempts = 10
	other.API.Name = "Otherpay"
	for _, tc := range []struct {
		c        *contract.Contract
		sent     string
		want     []string
		wantNone []string
	}{
		{payouts, "keys are kept for 30 days.", []string{tokDurOverWindow}, []string{"30", "day", tokNumber}},
		{payouts, "keys are kept for 24 hours.", []string{tokDurWindow}, nil},
		{payouts, "keys are kept for two hours.", []string{tokDurUnderWindow}, nil},
		{payouts, "the sdk gives up after ten minutes.", []string{tokDurOverElapsed}, nil},
		{payouts, "the sdk retries 5 times.", []string{tokCountOver}, []string{"5"}},
		{payouts, "the sdk makes 2 retries.", []string{tokCountWithin}, nil},
		{payouts, "the sdk makes 3 retries.", []string{tokCountOver}, nil}, // 4 attempts, the first counts
		{payouts, "the sdk retries twice.", []string{tokCountWithin}, nil},
		{payouts, "retry post /v1/transfers freely.", []string{tokOpKeyed}, []string{"post", "/v1/transfers"}},
		{payouts, "retry get /v1/transfers/{id} freely.", []string{tokOpRead}, nil},
		{payouts, "retry post /v1/reports/{id}/archive freely.", []string{tokOpUnsafe}, nil},
		{payouts, "retry post /v1/refunds freely.", []string{tokOpUnknown}, nil},
		{payouts, "post is idempotent.", []string{tokMethodCare}, nil},
		{payouts, "put is idempotent.", []string{tokMethodIdem}, nil},
		{payouts, "archiving a report twice is fine.", []string{tokNounUnsafe}, nil},
		{payouts, "lumapay keeps your idempotency-key for you.", []string{tokAPIName, tokKeyHeader}, []string{"lumapay"}},
		{payouts, "a 503 is retried, a 400 too.", []string{tokStatusRetried, tokStatusNot}, nil},
		{payouts, "rotate api keys every 90 days.", []string{tokAPIKey}, nil},
		{&other, "keys are kept for 30 days.", []string{tokDurUnderWindow}, []string{tokDurOverWindow}},
		{&other, "the sdk retries 5 times.", []string{tokCountWithin}, []string{tokCountOver}},
		{&other, "lumapay keeps your keys.", nil, []string{tokAPIName}},
	} {
		toks := learnedTokens(tc.sent, tc.c)
		for _, w := range tc.want {
			if !slices.Contains(toks, w) {
				t.Errorf("%q (%s): want token %s in %q", tc.sent, tc.c.API.Name, w, toks)
			}
		}
		for _, w := range tc.wantNone {
			if slices.Contains(toks, w) {
				t.Errorf("%q (%s): token %s should be gone from %q", tc.sent, tc.c.API.Name, w, toks)
			}
		}
	}
}

// TestLearnedNegationAndMarks: a negator marks the words after it up to
// the clause's end; a question, a hedge, an answer's polarity and a
// quoted phrase are marked.
func TestLearnedNegationAndMarks(t *testing.T) {
	c := payoutsContract(t)
	for _, tc := range []struct {
		sent     string
		want     []string
		wantNone []string
	}{
		{"we never resend a transfer, but the sdk adds a key.", []string{"never", "NOT_resend", "NOT_" + tokNounKeyed, "but", "sdk", "add"}, []string{"resend", "NOT_sdk", "NOT_add"}},
		{"you don't need a key to retry.", []string{"NOT_need", "NOT_key", "NOT_retry"}, []string{"need", "retry"}},
		{"retries may be safe.", []string{tokHedge, "may"}, nil},
		{"is every call safe to retry? no: archiving twice notifies twice.", []string{tokQuestion, tokAnswerNo}, []string{tokAnswerYes}},
		{"can i retry anything? yes, all of it.", []string{tokQuestion, tokAnswerYes}, nil},
		{`never write "every request is safe to retry".`, []string{tokQuote, "Q_every", "Q_safe"}, []string{"every", "NOT_every"}},
	} {
		toks := learnedTokens(tc.sent, c)
		for _, w := range tc.want {
			if !slices.Contains(toks, w) {
				t.Errorf("%q: want token %s in %q", tc.sent, w, toks)
			}
		}
		for _, w := range tc.wantNone {
			if slices.Contains(toks, w) {
				t.Errorf("%q: token %s should not be in %q", tc.sent, w, toks)
			}
		}
	}
}

// TestLearnedUnits: the splitter's cuts after a question or at a
// semicolon are joined into one reading unit, at most three sentences;
// the sentence after a bare answer ("not alone.") joins it too, without
// counting (TestLearnedBareAnswer).
func TestLearnedUnits(t *testing.T) {
	got := unitTexts("is post idempotent? not alone. run it again; no key is required. a; b; c; d.")
	want := []string{"is post idempotent? not alone. run it again; no key is required.", "a; b; c;", "d."}
	if !slices.Equal(got, want) {
		t.Errorf("units %q, want %q", got, want)
	}
}

// TestLearnedModelShipped: the embedded model decodes and stays small.
// That training the sets again gives it byte for byte is learngen's
// TestRegenerates: training once is a minute of CI's two cores, and
// the generator is what writes the file.
func TestLearnedModelShipped(t *testing.T) {
	if _, err := ShippedLearnedModel(); err != nil {
		t.Fatal(err)
	}
	// The bound grows with the training sets (copylint/README.md gives
	// the model's size); it is there to notice a change of encoding or
	// pruning that bloats the binary.
	if len(learnedModelJSON) > 1<<20 {
		t.Errorf("the embedded model is %d bytes; keep it under 1 MB", len(learnedModelJSON))
	}
}

// TestLearnedModelEncodeRoundTrip: weights written as integers in units
// of 1/scale decode to the very float64 values the trainer rounded to
// four decimals, negative, tiny and zero ones included.
func TestLearnedModelEncodeRoundTrip(t *testing.T) {
	m := &LearnedModel{
		Classes: []string{learnedNone, "exactly-once"},
		Bias:    []float64{4.5039, -0.5317},
		Weights: map[string][]float64{"a": {-0.0177, 0.1992}, "b c": {0, 12.3456}, "d": {-8.1508, 0.0001}},
	}
	data := m.Encode()
	if !bytes.Contains(data, []byte(`"a": [-177,1992]`)) {
		t.Errorf("weights not written as integers of 1/%d:\n%s", learnedScale, data)
	}
	got, err := DecodeLearnedModel(data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Bias, m.Bias) || !maps.EqualFunc(got.Weights, m.Weights, slices.Equal) {
		t.Errorf("round trip: got %v %v, want %v %v", got.Bias, got.Weights, m.Bias, m.Weights)
	}
}

// learnedLinter is a linter with the shipped reader on.
func learnedLinter(t *testing.T, c *contract.Contract) *linter {
	t.Helper()
	m, err := ShippedLearnedModel()
	if err != nil {
		t.Fatal(err)
	}
	l := newLinter(c, false)
	l.learned = &learnedReader{m: m, threshold: LearnedThreshold, families: LearnedFieldFamilies, terms: termsOf(c)}
	return l
}

// TestLearnedCatchesWhatRulesMiss: sentences written for this test (in
// no labelled set) that the phrase rules pass at this commit; the reader
// proposes them and the families' judges report them with the contract
// value and a fix in the contract's words.
func TestLearnedCatchesWhatRulesMiss(t *testing.T) {
	c := payoutsContract(t)
	l := learnedLinter(t, c)
	m, _ := ShippedLearnedModel()
	for _, tc := range []struct {
		sent, path, msg, fix string
	}{
		{"Lost the response? Fire the same payout call at us again, key or no key; we sort it out.",
			"endpoints[0].key (POST /v1/transfers)", "key: required", "send the same Idempotency-Key on every retry of POST /v1/transfers, within 24 hours"},
		{"Hang on to your payout keys: we remember each one for a full month.",
			"idempotency.replay_window", "replay_window is 24h", "24 hours"},
	} {
		h, _, ok := l.learnedPropose(normalizedProse(tc.sent), l.learned.threshold)
		if !ok {
			t.Errorf("%q: the reader proposes nothing", tc.sent)
			continue
		}
		if h.rule != RuleContradicts || h.path != tc.path || !strings.Contains(h.message, tc.msg) || !strings.Contains(h.message, "learned reader") || !strings.Contains(h.fix, tc.fix) {
			t.Errorf("%q: got %s %s %q fix %q", tc.sent, h.rule, h.path, h.message, h.fix)
		}
		// Through the linter: one finding on the line, the reader's when
		// the rules have none.
		fs := LintSourceLearned(c, "page.md", []byte(tc.sent+"\n"), m, LearnedThreshold, LearnedFieldFamilies)
		if len(fs) != 1 || fs[0].Line != 1 {
			t.Errorf("%q: want one finding on line 1, got %v", tc.sent, fs)
		}
		if rules := LintSource(c, "page.md", []byte(tc.sent+"\n")); len(rules) > 0 {
			t.Logf("%q: the rules find it now (%s); the reader adds nothing there", tc.sent, rules[0].Rule)
		}
	}
}

// TestLearnedLeavesNegatedAndHedged: a denial, a hedge with the
// contract's bound, a question answered no, and a short heading get no
// proposal.
func TestLearnedLeavesNegatedAndHedged(t *testing.T) {
	c := payoutsContract(t)
	l := learnedLinter(t, c)
	m, _ := ShippedLearnedModel()
	for _, sent := range []string{
		"Lost the response? Never fire the same payout call at us again without its key.",
		"Never resend a transfer without its key.",
		"You may resend a transfer with the same key within 24 hours.",
		"Can POST /v1/reports/{id}/archive be called again safely? No, it notifies twice.",
	} {
		if h, _, ok := l.learnedPropose(normalizedProse(sent), l.learned.threshold); ok {
			t.Errorf("%q: the reader proposes %s %q", sent, h.rule, h.message)
		}
	}
	// A heading holds too few words to be read, though the model alone
	// reads a claim in it.
	heading := "Send it again, keyless"
	if fam, _ := m.Predict(c, heading); fam == learnedNone {
		t.Fatalf("%q: the model reads no claim; the case tests nothing", heading)
	}
	if fs := LintSourceLearned(c, "page.md", []byte("# "+heading+"\n"), m, 0, LearnedFieldFamilies); len(fs) > 0 {
		t.Errorf("a heading got %v", fs)
	}
}

// TestLearnedDefault: LintSource (build's self-lint) reads with the
// learned reader exactly when LearnedDefault says so, and Lint's
// Options.Learned overrides it either way; without a contract there is no
// reader to turn on.
func TestLearnedDefault(t *testing.T) {
	c := payoutsContract(t)
	sent := "Hang on to your payout keys: we remember each one for a full month.\n" // no phrase rule reads it
	if got := learnedFinding(LintSource(c, "page.md", []byte(sent))); got != LearnedDefault {
		t.Errorf("LintSource read with the learned reader: %v, LearnedDefault %v", got, LearnedDefault)
	}
	page := filepath.Join(t.TempDir(), "page.md")
	if err := os.WriteFile(page, []byte(sent), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c    *contract.Contract
		opt  *bool
		want bool
	}{
		{c, nil, LearnedDefault},
		{c, ptr(true), true},
		{c, ptr(false), false},
		{nil, ptr(true), false},
	} {
		fs, err := Lint(context.Background(), tc.c, []string{page}, Options{Learned: tc.opt})
		if err != nil {
			t.Fatal(err)
		}
		if got := learnedFinding(fs); got != tc.want {
			t.Errorf("contract %v, Learned %v: a learned finding %v, want %v", tc.c != nil, tc.opt, got, tc.want)
		}
	}
}

// TestLearnedVetoOption: Options.LearnedVeto lets the reader drop a
// rules' finding in a sentence it reads as no claim, or keeps it; true
// turns the reader on unless Learned says false; nil is
// LearnedVetoDefault.
func TestLearnedVetoOption(t *testing.T) {
	c := payoutsContract(t)
	page := filepath.Join(t.TempDir(), "page.md")
	// Another system's loop set against this API's bound: the rules read
	// an endless retry, the reader no claim.
	sent := "Temporal can retry an activity indefinitely; Lumapay's SDKs deliberately do not.\n"
	if err := os.WriteFile(page, []byte(sent), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		learned, veto *bool
		kept          bool
	}{
		{ptr(true), ptr(false), true},
		{ptr(true), ptr(true), false},
		{nil, ptr(true), false},
		{ptr(false), ptr(true), true},
		{ptr(true), nil, !LearnedVetoDefault},
		{nil, nil, !(LearnedDefault && LearnedVetoDefault)},
	} {
		fs, err := Lint(context.Background(), c, []string{page}, Options{Learned: tc.learned, LearnedVeto: tc.veto})
		if err != nil {
			t.Fatal(err)
		}
		if kept := len(fs) == 1; kept != tc.kept || len(fs) > 1 {
			t.Errorf("Learned %v, LearnedVeto %v: findings %v, want the rules' kept %v", deref(tc.learned), deref(tc.veto), fs, tc.kept)
		}
	}
}

func deref(b *bool) string {
	if b == nil {
		return "nil"
	}
	return fmt.Sprint(*b)
}

func ptr[T any](v T) *T { return &v }

// learnedFinding reports whether a finding of fs is the learned reader's.
func learnedFinding(fs []findings.Finding) bool {
	return slices.ContainsFunc(fs, func(f findings.Finding) bool { return strings.Contains(f.Message, "learned reader") })
}

func TestDecodeLearnedModelRejects(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{`, "learned model: unexpected end of JSON input"},
		{`{"classes":["claim"],"bias":[0],"weights":{}}`, `want classes starting with "none"`},
		{`{"classes":["none","a"],"bias":[0],"weights":{}}`, "one bias per class"},
		{`{"classes":["none","a"],"bias":[0,0],"weights":{"x":[1]}}`, `feature "x" has 1 weights, want 2`},
		{`{"classes":["none","a"],"bias":[0,0],"weights":{"x":[1,2]}}`, "want a positive scale"},
	} {
		_, err := DecodeLearnedModel([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestLearnedFamiliesAndGuards: a reader reports only its families (one
// without retry-duration leaves a retry-loop claim to the rules), and a
// method claim about methods the contract keeps idempotent is no claim
// judgeMethod can weigh.
func TestLearnedFamiliesAndGuards(t *testing.T) {
	c := payoutsContract(t)
	l := learnedLinter(t, c)
	loop := normalizedProse("The SDK keeps retrying the transfer until it finally goes through.")
	l.learned.families = slices.DeleteFunc(slices.Clone(LearnedFieldFamilies), func(f string) bool { return f == "retry-duration" })
	if h, _, ok := l.learnedPropose(loop, l.learned.threshold); ok {
		t.Errorf("a reader without retry-duration reports a retry-loop claim: %q", h.message)
	}
	l.learned.families = nil
	if h, _, ok := l.learnedPropose(loop, l.learned.threshold); !ok || h.path != "retry.max_attempts" || !strings.Contains(h.message, "max_attempts: 3") {
		t.Errorf("every family: want the retry-loop claim judged against retry.max_attempts, got %v %q", ok, h.message)
	}
	put := normalizedProse("PUT and DELETE are idempotent methods in HTTP.")
	if fam, _ := l.learned.m.predictNormalized(c, put); fam != "method-idempotency" {
		t.Fatalf("the model reads %s; the case tests nothing", fam)
	}
	if h, _, ok := l.learnedPropose(put, l.learned.threshold); ok {
		t.Errorf("PUT and DELETE said idempotent: the reader reports %q", h.message)
	}
}

// TestLearnedJudgedByContract: a proposal is a finding only when the
// contract contradicts it. Under a contract whose only endpoint is a read
// (no key, nothing unsafe), the keyless claim the reader reports under
// the payouts contract contradicts nothing.
func TestLearnedJudgedByContract(t *testing.T) {
	payouts := payoutsContract(t)
	reads := *payouts
	reads.Endpoints = nil
	for _, e := range payouts.Endpoints {
		if e.Effect == contract.EffectRead {
			reads.Endpoints = append(reads.Endpoints, e)
		}
	}
	sent := normalizedProse("Lost the response? Fire the same payout call at us again, key or no key; we sort it out.")
	l := learnedLinter(t, &reads)
	if fam, p := l.learned.m.predictNormalized(&reads, sent); fam != "keyless-retry" || p < LearnedThreshold {
		t.Fatalf("the model reads %s at %.2f; the case tests nothing", fam, p)
	}
	if h, _, ok := l.learnedPropose(sent, l.learned.threshold); ok {
		t.Errorf("a read-only contract: the reader reports %q", h.message)
	}
}

// TestLearnedCautionsAndTopics: sentences the model reads as a claim of a
// shipped family at the threshold, which the reader leaves: a warning of
// the duplicate a keyless retry creates, one endpoint's idempotency (not
// the whole API's), a goal, and a page title (no sentence). The denial of
// the duplicate is still the keyless claim.
func TestLearnedCautionsAndTopics(t *testing.T) {
	c := payoutsContract(t)
	m, _ := ShippedLearnedModel()
	for _, tc := range []struct {
		name, page, family string
		finding            bool
	}{
		{"warning.md", "Resend the transfer without an idempotency key and it will create a second transfer.\n", "keyless-retry", false},
		{"denial.md", "Resend the transfer without an idempotency key and it will never create a second transfer.\n", "keyless-retry", true},
		{"one-endpoint.md", "The refunds endpoint is fully idempotent.\n", "api-idempotent", false},
		{"goal.md", "We aim to make every Lumapay endpoint idempotent.\n", "api-idempotent", false},
		{"title.html", "<html><head><title>Idempotent requests · Lumapay API</title></head><body></body></html>\n", "api-idempotent", false},
	} {
		if fam, p := m.Predict(c, stripTags(tc.page)); fam != tc.family || p < LearnedThreshold {
			t.Errorf("%s: the model reads %s at %.2f; the case tests nothing", tc.name, fam, p)
			continue
		}
		// The claim is reported, by the rules or the reader; a caution or
		// a topic by neither.
		fs := LintSourceLearned(c, tc.name, []byte(tc.page), m, LearnedThreshold, LearnedFieldFamilies)
		if got := len(fs) > 0; got != tc.finding {
			t.Errorf("%s: a finding %v, want %v (%v)", tc.name, got, tc.finding, fs)
		}
	}
	// The warning check itself: a duplicate outcome denied is no warning.
	checkPredicate(t, "warnsOfDuplicate", warnsOfDuplicate, map[string]bool{
		"resend it without a key and it will create a second transfer.":       true,
		"resend it without a key and you get charged twice.":                  true,
		"resend it without a key and it will never create a second transfer.": false,
		"resend it without a key; we do not make a duplicate.":                false,
		"resend it without a key, whenever you like.":                         false,
	})
}

// stripTags is the text of a one-line HTML page, for the model alone.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}

// reLearnWordAny is the pattern scanTokens spells out.
var reLearnWordAny = regexp.MustCompile(`[A-Z][A-Z_]+|[a-z0-9][a-z0-9'_-]*|[.,;:!?()"]|--`)

// FuzzScanTokens: the tokenizer's scanner splits any text as the
// pattern it spells out does.
func FuzzScanTokens(f *testing.F) {
	for _, s := range []string{"", "a", "A", "AB_C x", "don't-stop -- now", "NOT_x, (y)!", "\u00e9t\u00e9 10ms \"q\"", "a--b", "-", "_A", "Z_", "x\xff\xfey"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := scanTokens(s), reLearnWordAny.FindAllString(s, -1); !slices.Equal(got, want) {
			t.Fatalf("scanTokens(%q) = %q, want %q", s, got, want)
		}
	})
}

// reOnceWhen is the pattern onceWhen spells out.
var reOnceWhen = regexp.MustCompile(`^\s+(?:you|we|they|it|i|he|she|the|your|our|their|its|this|that|these|those|there|each|every|all)\b`)

// FuzzOnceWhen: onceWhen answers as the pattern it spells out does.
func FuzzOnceWhen(f *testing.F) {
	for _, s := range []string{"", " you upgrade", "you", "  the", " your", " yours", "\tit_", " it-", " \vwe", " théy", " every\u00e9", " i", " all1", "\f\r\nthose keys", " There"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := onceWhen(s), reOnceWhen.MatchString(s); got != want {
			t.Fatalf("onceWhen(%q) = %v, want %v", s, got, want)
		}
	})
}

// reLearnCount is the pattern countsOfTries spells out.
var reLearnCount = regexp.MustCompile(`\b(?:([0-9]+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|fifty|a hundred|hundred)\s+(?:more\s+|extra\s+|further\s+)?(retries|retry|attempts|attempt|tries|times)|(once|twice|thrice))\b`)

// FuzzCountsOfTries: the written-out counts of tries match as the
// pattern they spell out does, submatches included.
func FuzzCountsOfTries(f *testing.F) {
	for _, s := range []string{"", "3 retries", "retries up to 5 more  attempts", "once, twice, thrice", "a hundred times", "ten\tretrys", "often 2 tries", "one\fmore\rretry", "x3 times", "moreover 3 more retries", "12 extra", "_once", "4 further times_", "two twenty times"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := countsOfTries(s), reLearnCount.FindAllStringSubmatchIndex(s, -1)
		if len(got) != len(want) {
			t.Fatalf("countsOfTries(%q) = %v, want %v", s, got, want)
		}
		for i := range got {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("countsOfTries(%q) = %v, want %v", s, got, want)
			}
		}
	})
}

// TestLearnedThirdPartyReadings: sentences written for this test in the
// register of a third party's manual, each read by the model as a
// family's claim, which the reader reporting every family leaves, beside
// the claim it still reports: a delivery mode's glossary entry
// (definesMode), duplicates said to happen (expectsDuplicates), a denial
// of no second copy (namesDuplicate; "once" opening a clause is no
// count), something "safe" with no word for doing it again (namesRetry),
// and a loop bounded by a count without a figure (vagueCount).
func TestLearnedThirdPartyReadings(t *testing.T) {
	c := payoutsContract(t)
	l := learnedLinter(t, c)
	l.learned.families = nil
	for _, tc := range []struct {
		sent, family string
		threshold    float64 // the model reads the caution below LearnedThreshold
		finding      bool
	}{
		{"Exactly once — each event is processed one time and only one time.", "exactly-once", LearnedThreshold, false},
		{"Exactly-once delivery: Lumapay processes every payout one time, guaranteed.", "exactly-once", LearnedThreshold, true},
		{"Nothing is ever lost, though duplicate deliveries can happen during failures.", "no-duplicates", 0.5, false},
		{"Once you subscribe, your workspace will never be suspended for overuse.", "no-duplicates", LearnedThreshold, false},
		{"Once you subscribe, your workspace will never be charged twice.", "no-duplicates", LearnedThreshold, true},
		{"In the staging area this can be safely done at any hour.", "safe-to-retry", 0.6, false},
		{"Any request can be safely retried at any point in time.", "safe-to-retry", LearnedThreshold, true},
		{"The client will retry a number of times to reach the broker until the deadline passes.", "retry-duration", LearnedThreshold, false},
		{"The client will keep retrying to reach the broker until it succeeds.", "retry-duration", LearnedThreshold, true},
	} {
		sent := normalizedProse(tc.sent)
		if fam, p := l.learned.m.predictNormalized(c, sent); fam != tc.family || p < tc.threshold {
			t.Errorf("%q: the model reads %s at %.2f; the case tests nothing", tc.sent, fam, p)
			continue
		}
		if h, _, ok := l.learnedPropose(sent, tc.threshold); ok != tc.finding {
			t.Errorf("%q: a finding %v (%q), want %v", tc.sent, ok, h.message, tc.finding)
		}
	}
	// "Once" opening a clause is no count of tries; "sent once" is.
	if toks := learnedTokens("once you upgrade, the limit is gone.", c); slices.Contains(toks, tokCountWithin) {
		t.Errorf("\"once you upgrade\" reads as a count: %v", toks)
	}
	if toks := learnedTokens("the webhook is sent once.", c); !slices.Contains(toks, tokCountWithin) {
		t.Errorf("\"sent once\" reads as no count: %v", toks)
	}
	checkPredicate(t, "expectsDuplicates", expectsDuplicates, map[string]bool{
		"no data loss, but duplicates are expected during failures.": true,
		"you may receive duplicates after a failover.":               true,
		"you will never receive duplicates.":                         false,
		"there are no duplicates, and duplicates are impossible.":    false,
	})
}

// TestPredictTokensMatchesFeatures: predictTokens weighs, to the bit, the
// features learnedFeatures builds for training, on every labelled row.
func TestPredictTokensMatchesFeatures(t *testing.T) {
	c := payoutsContract(t)
	m, err := ShippedLearnedModel()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range labelledRowFiles(t) {
		if !strings.HasSuffix(f.name, ".md") {
			continue
		}
		sent := normalizedProse(string(f.data))
		fam, p := m.predictTokens(learnedTokens(sent, c))
		wantFam, wantP := featuresPrediction(m, learnedFeatures(sent, c))
		if fam != wantFam || p != wantP {
			t.Fatalf("%s: predictTokens reads %s at %v, the features %s at %v", f.name, fam, p, wantFam, wantP)
		}
		n++
	}
	if n < 1000 {
		t.Fatalf("only %d rows compared", n)
	}
}

// featuresPrediction is the model's reading of built features: the sum
// predictTokens makes without building them.
func featuresPrediction(m *LearnedModel, feats []string) (string, float64) {
	p := slices.Clone(m.Bias)
	v := 1 / math.Sqrt(float64(max(len(feats), 1)))
	for _, f := range feats {
		if ws, ok := m.Weights[f]; ok {
			for k := range p {
				p[k] += float64(ws[k] * v)
			}
		}
	}
	softmax(p)
	return m.reading(p)
}

// BenchmarkLearnedRead reads every sentence the reader trains on with the
// shipped model: the cost of one reading (tokens, then the model's sum),
// without parsing or the rules. It reports ns per sentence.
func BenchmarkLearnedRead(b *testing.B) {
	c, err := contract.Load(filepath.Join("..", "examples", "payouts", "retryspec.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	m, err := ShippedLearnedModel()
	if err != nil {
		b.Fatal(err)
	}
	sets, err := copyset.ReadAll(filepath.Join("..", "bench", "copyfield"), copyset.TrainingSets())
	if err != nil {
		b.Fatal(err)
	}
	var sents []string
	for _, rows := range sets {
		for _, r := range rows {
			sents = append(sents, normalizedProse(r.Sentence))
		}
	}
	r := &learnedReader{m: m, threshold: LearnedThreshold, terms: termsOf(c)}
	b.ResetTimer()
	for range b.N {
		for _, s := range sents {
			r.read(s)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(sents)), "ns/sentence")
}

// unitTexts is the reading units of text (learnedUnits).
func unitTexts(text string) []string {
	var out []string
	for _, s := range learnedUnits([]byte(text), sentences([]byte(text), nil)) {
		out = append(out, text[s.start:s.end])
	}
	return out
}

// checkPredicate holds read, named name, to cases: each sentence and
// whether read reports it.
func checkPredicate(t *testing.T, name string, read func(string) bool, cases map[string]bool) {
	t.Helper()
	for sent, want := range cases {
		if got := read(sent); got != want {
			t.Errorf("%s(%q) = %v, want %v", name, sent, got, want)
		}
	}
}

// TestLearnedGateWords: a claim whose only gate words are the gate's
// later ones ("hammer", "single time", "dupes") reaches the model, and
// the reader reports what the rules alone miss.
func TestLearnedGateWords(t *testing.T) {
	c := payoutsContract(t)
	m, err := ShippedLearnedModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, sent := range []string{
		"The Lumapay client will hammer away at a failing payout all night long.",
		"Each transfer is executed a single time, guaranteed.",
		"Dupes are impossible with Lumapay.",
	} {
		page := []byte(sent + "\n")
		if fs := LintSourceLearned(c, "page.md", page, nil, 0, nil); len(fs) != 0 {
			t.Errorf("%q: the rules alone find %v; the case tests nothing", sent, fs)
			continue
		}
		if fs := LintSourceLearnedVeto(c, "page.md", page, m, LearnedThreshold, LearnedFieldFamilies, LearnedVeto); len(fs) != 1 {
			t.Errorf("%q: %d findings with the reader, want 1: %v", sent, len(fs), fs)
		}
	}
}

// TestOpClassLookup: the tokenizer's lookup of a spelled-out operation
// gives the class the scan of every endpoint (opsIn) gives, for
// operations of every form a contract holds (a GraphQL mutation, a QUERY,
// one operation on two endpoints) and matches that end on a suffix, a
// longer path or a brace.
func TestOpClassLookup(t *testing.T) {
	c := payoutsContract(t)
	base := len(c.Endpoints)
	for i, op := range []string{"GET /v1/transfers/{id}/events", "QUERY /v1/search", "mutation createTransfer", "POST /v1/transfers", "DELETE /v1/x", "GET /v1/a.b"} {
		e := c.Endpoints[i%base]
		e.Operation = op
		c.Endpoints = append(c.Endpoints, e)
	}
	scan := func(match string) string {
		idx := opsIn(c, match)
		if len(idx) == 0 {
			return tokOpUnknown
		}
		return endpointClass(c.Endpoints[idx[0]], tokOpKeyed, tokOpUnsafe, tokOpRead)
	}
	terms := termsOf(c)
	seen := map[string]bool{}
	for _, e := range c.Endpoints {
		for _, m := range []string{"", "/", ".json", "/{id}", "-x", ":cancel", "{", "s"} {
			match := strings.ToLower(e.Operation) + m
			if loc := reLearnOp.FindStringIndex(match); loc != nil {
				match = match[loc[0]:loc[1]]
			}
			seen[match] = true
		}
	}
	for _, m := range []string{"post /v1/transfers", "put /nothing", "get /v1/a", "get /v1/a.b.c", "post /"} {
		seen[m] = true
	}
	for match := range seen {
		if got, want := terms.opClass(match), scan(match); got != want {
			t.Errorf("%q: lookup %s, scan %s", match, got, want)
		}
	}
	if len(seen) < 40 {
		t.Fatalf("only %d matches tried", len(seen))
	}
}
