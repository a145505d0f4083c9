package copylint

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

// The clause analysis decides what a matched phrase does in its sentence.
// The phrase forms find candidate words cheaply; only a sentence a form
// matched gets here, so the cost is per candidate, never per byte of
// prose. It reads, around the match and within its clause:
//
//   - negation and its scope: a denial governs the claim only inside the
//     clause that holds it ("no retries needed, but we guarantee
//     exactly-once delivery" is a claim);
//   - the subject the phrase is about: a definition or an attribution names
//     the term without promising it ("what people call exactly-once is
//     really ...", "the so-called exactly-once guarantee");
//   - modality: a requirement or hypothesis is not a promise ("if you need
//     exactly-once processing, ...", "to achieve exactly-once you must");
//   - bounding phrases: a claim bounded to where it holds (a transaction, a
//     window, one key) is a different finding, or none.
//
// The word lists are data, in phrases.yaml's clause section, like the
// forms.

// clauseData is phrases.yaml's clause section.
type clauseData struct {
	Boundaries string `yaml:"boundaries"`
	Mention    string `yaml:"mention"`
	MentionAft string `yaml:"mention_after"`
	Modal      string `yaml:"modal"`
	Purpose    string `yaml:"purpose"`
	Control    string `yaml:"control"`
	Instruct   string `yaml:"instruction"`
	Topic      string `yaml:"topic"`
	TopicEnd   string `yaml:"topic_end"`
	Quoted     string `yaml:"quoted"`
	QuotedAft  string `yaml:"quoted_after"`
	HonestAft  string `yaml:"honest_after"`
}

type clauseRules struct {
	boundaries, mention, mentionAfter, modal, purpose *gatedRE
	control                                           *gatedRE
	instruction, topic, topicEnd                      *gatedRE
	quoted, quotedAfter, honestAfter                  *gatedRE
}

var (
	clauseOnce sync.Once
	clauseRE   *clauseRules
)

func clauseAnalysis() *clauseRules {
	clauseOnce.Do(func() {
		d := loadPhraseFile().Clause
		clauseRE = &clauseRules{
			boundaries:   newGatedRE(regexp.MustCompile(d.Boundaries)),
			mention:      newGatedRE(regexp.MustCompile(d.Mention)),
			mentionAfter: newGatedRE(regexp.MustCompile(anchored(d.MentionAft))),
			modal:        newGatedRE(regexp.MustCompile(d.Modal)),
			purpose:      newGatedRE(regexp.MustCompile(d.Purpose)),
			control:      newGatedRE(regexp.MustCompile(d.Control)),
			instruction:  newGatedRE(regexp.MustCompile(d.Instruct)),
			topic:        newGatedRE(regexp.MustCompile(d.Topic)),
			topicEnd:     newGatedRE(regexp.MustCompile(d.TopicEnd)),
			quoted:       newGatedRE(regexp.MustCompile(d.Quoted)),
			quotedAfter:  newGatedRE(regexp.MustCompile(anchored(d.QuotedAft))),
			honestAfter:  newGatedRE(regexp.MustCompile(anchored(d.HonestAft))),
		}
	})
	return clauseRE
}

// verdict is what the analysis makes of one match.
type verdict int

const (
	vClaim   verdict = iota // an unbounded promise
	vBounded                // a promise bounded to where it holds
	vHonest                 // denied or hypothetical
	vMention                // the term defined or attributed: the whole sentence is about the word
)

// clauseBefore is the part of sent before start that is in the same
// clause, at most 100 bytes.
func (c *clauseRules) clauseBefore(sent []byte, start int) []byte {
	from := start - 100
	if from < 0 {
		from = 0
	}
	before := sent[from:start]
	if locs := c.boundaries.FindAllIndex(before, -1); len(locs) > 0 {
		before = before[locs[len(locs)-1][1]:]
	}
	return before
}

// boundMemo holds a sentence's qualifier for one rule, found at most once
// however many matches the sentence has.
type boundMemo struct {
	done bool
	loc  []int
}

// judge analyses the match sent[start:end] of rule r.
func (c *clauseRules) judge(r *compiledRule, sent []byte, start, end int, memo *boundMemo) (v verdict, bound []int) {
	// A question asks; it does not promise ("Does NATS guarantee message
	// delivery?", "Is the Idempotency-Key header a standard?"), whatever
	// the rule.
	if endsAsking(sent) {
		return vMention, nil
	}
	// A question joined to its answer (sentences, answerFollows): a match
	// inside the question asks; one that reaches the answer is what the
	// answer promises.
	if q := bytes.IndexByte(sent[end:], '?'); q >= 0 && (r.clause || end+q+1 < len(bytes.TrimRight(sent, " \"')"))) {
		return vHonest, nil
	}
	before := reassured(c.clauseBefore(sent, start))
	if r.clause && (c.mention.Match(before) || c.mentionAfter.Match(sent[end:]) || c.isTopic(sent, start, end)) {
		return vMention, nil
	}
	if r.denyBefore != nil && r.denyBefore.Match(before) {
		return vHonest, nil
	}
	// A clause that opens by forbidding the wording ("stop telling
	// customers that keys are kept for a week") quotes it, quotation
	// marks or not.
	// Whatever the rule, a quote of wording not to write is no claim
	// ('don't write "as defined in RFC 9110"'), nor is a clause that
	// forbids the wording.
	if reWordingBefore.Match(before) || c.quotedPhrase(sent, before, start, end) {
		return vHonest, nil
	}
	if r.denyAfter != nil && r.denyAfter.Match(sent[end:]) || c.honestAfter.Match(sent[end:]) || disowned(sent[end:]) {
		return vHonest, nil
	}
	if r.clause && (hardProblem(sent[end:]) || attributedBack(sent[:start], sent[end:])) {
		return vHonest, nil
	}
	if r.clause && c.modal.Match(before) {
		return vHonest, nil
	}
	// The bound is looked for near the match: a run-on "sentence" (a
	// table, a list without stops) can be thousands of bytes, and a bound
	// that far away is not this claim's.
	const reach = 300
	if len(sent) <= 2*reach {
		if !memo.done && r.qualified != nil {
			memo.loc = qualifiedAt(r.qualified, sent)
		}
		memo.done = true
		bound = memo.loc
	} else if r.qualified != nil {
		from, to := max(0, start-reach), min(len(sent), end+reach)
		if loc := qualifiedAt(r.qualified, sent[from:to]); loc != nil {
			bound = []int{loc[0] + from, loc[1] + from}
		}
	}
	// A requirement or a purpose is no promise by itself, but one that
	// names the mechanism bounding it ("the store is expected to enlist in
	// the transaction to ensure exactly-once behavior") says what holds
	// within that bound.
	if r.clause && c.purpose.Match(before) && !c.control.Match(before) && (bound == nil || c.instruction.Match(sent[end:])) {
		return vHonest, nil
	}
	// A bound inside the match is the claim's own words ("Must I send a
	// key on retries? Not at all." asks about the key it then lifts).
	if bound != nil && bound[0] >= start && bound[1] <= end {
		bound = nil
	}
	if bound != nil && bound[1] > end && thirdPartyScope(before, sent[end:min(len(sent), bound[1]+40)]) {
		return vHonest, nil
	}
	if bound != nil {
		return vBounded, bound
	}
	return vClaim, nil
}

// endsAsking reports whether sent ends in a question mark, before
// closing quotes and brackets: a question with no answer after it.
func endsAsking(sent []byte) bool {
	return bytes.HasSuffix(bytes.TrimRight(sent, " \"')"), []byte("?"))
}

// reReassurance opens a clause with a reassurance ("don't worry, ...",
// "never fear: ..."): its "don't" comforts the reader, it denies nothing
// in the claim that follows.
var reReassurance = regexp.MustCompile(`^\W*(please )?(don't|do not|never|no need to) (worry|fear|panic|stress|fret)( about (it|that|this|duplicates|a thing))?\W+`)

// reassured is before without an opening reassurance.
func reassured(before []byte) []byte {
	if loc := reReassurance.FindIndex(before); loc != nil {
		return before[loc[1]:]
	}
	return before
}

// reOwner is a possessive name just before a match ("Kafka's
// exactly-once semantics"), or a name that opens the clause as the
// subject of a verb of offering ("Kafka offers exactly-once ..."): whose
// guarantee the sentence states.
var reOwner = regexp.MustCompile(`\b([a-z][a-z0-9-]{2,})'s ?$|^\W*([a-z][a-z0-9-]{2,}) (offers|provides|supports|gives you|implements|guarantees|has|adds) ?$`)

// notThirdParty are possessives that name the page's own side or no
// system at all.
var notThirdParty = map[string]bool{"today": true, "one": true, "everyone": true, "customer": true, "user": true, "client": true, "api": true, "platform": true, "sdk": true, "company": true, "team": true, "service": true}

// thirdPartyScope reports whether a bounded guarantee is a named system's,
// stated within that system's own scope ("Kafka's exactly-once semantics
// hold inside Kafka transactions"): a fact about a third party, not the
// page's promise. The name must own the match and be named again
// after it, by the end of its bound or within 40 bytes of it ("for
// transactional reads and writes between Kafka topics").
func thirdPartyScope(before, bound []byte) bool {
	m := reOwner.FindSubmatch(before)
	if m == nil {
		return false
	}
	name := m[1]
	if name == nil {
		name = m[2] // the subject of a verb of offering: "kafka offers"
	}
	if notThirdParty[string(name)] {
		return false
	}
	// The bound names the owner again by its own name, or by a pronoun
	// of ownership ("Kafka offers exactly-once inside its own
	// transactions").
	return bytes.Contains(bound, name) || reOwnScope.Match(bound)
}

// disowned reports whether the clause after a claim, across a semicolon
// or a contrast, disowns it: the figure is not to be carried over ("...;
// don't carry that figure over to Lumapay"), or the page's own side is
// set against it with a bound of its own ("...; Lumapay's own client
// stops after three attempts"). The claim is another system's, stated
// as the contrast, not the page's promise. The same claim with the page's
// side agreeing ("Lumapay's own client does too") stays a claim.
func disowned(after []byte) bool { return reDisowned.Match(after) }

// disownedClause reports whether a clause, the one after a claim's
// semicolon, disowns the claim (disowned, without the join).
func disownedClause(clause []byte) bool { return reDisownedClause.Match(clause) }

const disownedWords = `(but )?((please )?(don't|do not|never) (carry|apply|assume|copy|take|bring|port|reuse|expect)( [a-z-]+){0,3}? (that|this|those|these|the same) (figure|number|value|window|limit|default|period|behaviou?r|setting)s?|(that|this|the same) (figure|number|value|default|window|limit|period)s? (doesn't|does not|won't|will not|don't|do not) (apply|carry over|hold)|([a-z0-9-]+'s|our|its|their) own (\w+ ){0,3}?(stops|gives up|quits|is capped|caps|retries (only|at most|up to)|makes (only|at most)|allows (only|at most)|keeps (\w+ ){0,2}(only|just)))\b`

var (
	reDisowned       = regexp.MustCompile(`^[^.;]*(; |, but |, whereas |, while )` + disownedWords)
	reDisownedClause = regexp.MustCompile(`^\W*` + disownedWords)
)

// hardProblem reports whether the words after a match call the term a
// problem, a challenge or a goal ("exactly-once delivery is a hard
// problem; we narrow it to ..."): the sentence names the term as a topic
// and promises nothing, unless it goes on to say the problem is solved
// ("... a hard problem, and we solved it").
func hardProblem(after []byte) bool {
	if !has(after, "problem", "question", "challenge", "puzzle", "goal") {
		return false
	}
	return reHardProblem.Match(after) && !reSolved.Match(after)
}

var (
	reHardProblem = regexp.MustCompile(`^"?\)?,?( [a-z-]+){0,2}? (is|was|are|were|remains?|stays?|has (long )?been|have (long )?been) (still )?(a |an |the |one of the )?([a-z]+ly )?(hard|hardest|difficult|unsolved|open|impossible|tricky|thorny|famous|notorious|classic|well-known|known|intractable|subtle|elusive|unreachable|unattainable|moving)( [a-z-]+){0,2}? (problems?|questions?|challenges?|puzzles?|goals?)\b`)
	reSolved      = regexp.MustCompile(`\b(solved|solves|cracked|cracks|beat|beats|conquered|tamed|fixed|nailed)\b`)
)

// attributedBack reports whether the words after a claim name its figure
// as a named system's own, the system the clause is about ("Adyen keeps
// keys for 7 days - that's Adyen's window", "Sidekiq retries forever
// (which is Sidekiq's default)"): a fact about another system, not the
// page's promise. The name must be the claim's subject, named before it,
// and not a word for the page's own side ("the client's default").
func attributedBack(before, after []byte) bool {
	if !bytes.Contains(after, []byte("'s ")) {
		return false
	}
	m := reAttributedAfter.FindSubmatch(after)
	if m == nil || notThirdParty[string(m[4])] {
		return false
	}
	return hasWord(before, m[4])
}

// reAttributedAfter: a dash, a comma, a colon or a parenthesis, then
// "that's NAME's window" (figure, default, policy, guarantee ...).
var reAttributedAfter = regexp.MustCompile(`^[^.;]{0,40}?( - |, |: | ?\()(that's|that is|this is|those are|these are|which is|which are|it's|it is)( just| only| simply| merely)? ([a-z][a-z0-9-]{2,})'s (own )?([a-z-]+ )?(figures?|numbers?|values?|windows?|limits?|defaults?|periods?|polic(y|ies)|rules?|ttls?|retention|guarantees?|promises?|behaviou?rs?|settings?|caps?|semantics|design|model)\b`)

// hasWord reports whether word occurs in s as a whole word.
func hasWord(s, word []byte) bool {
	for from := 0; ; {
		i := bytes.Index(s[from:], word)
		if i < 0 {
			return false
		}
		i += from
		if (i == 0 || !isWordByte(s[i-1])) && wordEnds(s, i+len(word)) {
			return true
		}
		from = i + 1
	}
}

// reOwnScope is a bound that points back at its owner ("its own
// transactions", "their own log").
var reOwnScope = regexp.MustCompile(`\b(its|their) own\b`)

// quotedPhrase says the match is a phrase in quotation marks that the
// clause names as wording said, written or removed ('we never say "no
// duplicates, ever"', 'we removed the old "retry until it succeeds"
// mode'): a quote of the claim, not the claim. The quote must hold the
// match and little else, so a quoted term inside a promise ('we offer
// "exactly-once" delivery') stays a claim: its clause names no wording.
func (c *clauseRules) quotedPhrase(sent, before []byte, start, end int) bool {
	const slack = 40 // bytes of the quote outside the match, each side
	open := quoteOpen(before)
	if open < 0 || len(before)-open-1 > slack {
		return false
	}
	after := sent[end:]
	i := quoteClose(after)
	if i < 0 || i > slack {
		return false
	}
	return c.quoted.Match(before[:open]) || c.quotedAfter.Match(after[i+1:]) ||
		open == 0 && labelledWording(sent[:start-len(before)])
}

// quoteOpen is the offset of the last opening quotation mark in before:
// a double one (curly ones are normalized to it), or a single one
// (curly ‘ is normalized to an apostrophe) that opens a word, so an
// apostrophe inside one ("don't") is not read as a quote; -1 if none.
func quoteOpen(before []byte) int {
	d := bytes.LastIndexByte(before, '"')
	for i := len(before) - 1; i > d; i-- {
		if before[i] == '\'' && (i == 0 || before[i-1] == ' ' || before[i-1] == '(') {
			return i
		}
	}
	return d
}

// quoteClose is the offset of the first closing quotation mark in after,
// double, or single where no word goes on after it ("it's" is no quote);
// -1 if none.
func quoteClose(after []byte) int {
	for i, b := range after {
		if b == '"' || b == '\'' && (i+1 == len(after) || !isWordByte(after[i+1])) {
			return i
		}
	}
	return -1
}

// labelledWording reports whether the text before a quote is a label,
// ended by a colon, that names what follows as wording not to use
// ('Banned phrase in release notes: "exactly-once delivery"'): the
// quote is the example, not the page's claim.
func labelledWording(prev []byte) bool {
	prev = bytes.TrimRight(prev, " ")
	if !bytes.HasSuffix(prev, []byte(":")) {
		return false
	}
	return reWordingLabel.Match(prev[:len(prev)-1])
}

// reWordingLabel is a label of wording withdrawn or forbidden ("banned
// phrase", "words to avoid", "don't write").
var reWordingLabel = regexp.MustCompile(`(\b(banned|forbidden|prohibited|disallowed|retired|deprecated|dropped|removed|rejected|outlawed)( [a-z-]+)? (phrases?|wording|words?|terms?|slogans?|taglines?|claims?|lines?|copy)|\b(phrases?|wording|words?|terms?|slogans?|claims?|lines?) (to avoid|we (dropped|removed|retired|banned)|not to use|never to use)|\b(don't|do not|never) (say|write|use|promise))\b[^:;"]{0,60}$`)

// isTopic says the sentence is a title naming the term as a topic: the
// term beside a problem or in a comparison, and at most a noun after it.
func (c *clauseRules) isTopic(sent []byte, start, end int) bool {
	return c.topicEnd.Match(sent[end:]) && c.topic.Match(sent[:start])
}

// qualifiedAt is the first qualifier of sent that is not itself negated
// ("without requiring distributed transactions" bounds nothing), or nil.
//
// The matches are asked for a few at a time (the first n of FindAllIndex
// are the same whatever n is): the first is nearly always the answer, and
// finding every match read the rest of the sentence for nothing.
func qualifiedAt(re *gatedRE, sent []byte) []int {
	for n, seen := 1, 0; ; n *= 4 {
		locs := re.FindAllIndex(sent, n)
		for _, loc := range locs[seen:] {
			from := loc[0] - 70
			if from < 0 {
				from = 0
			}
			to := loc[1] + 40
			if to > len(sent) {
				to = len(sent)
			}
			if !reNegatedBound.Match(sent[from:loc[0]]) && !reDelayBound.Match(sent[from:loc[0]]) && !reBetweenTries.Match(sent[loc[1]:to]) && !reComparedBound.Match(sent[from:loc[0]]) {
				return loc
			}
		}
		if len(locs) < n {
			return nil
		}
		seen = len(locs)
	}
}

// ("never need to send a key": the obligation lifted, not a bound)
var reNegatedBound = regexp.MustCompile(`(\b(without|no|not|alternative to|instead of|rather than|never (need|needs|have|has) to)\b|n't\b)[^,;]*$`)

// A bound named in a comparison ("exactly once, just as Kafka
// transactions do", "like a database transaction") is the other
// system's, compared with the claim: it does not bound the claim.
var reComparedBound = regexp.MustCompile(`\b(just as|exactly as|much as|just like|exactly like|much like|the way|like)( [a-z0-9'-]+){0,2} ?$`)

// A bound on the wait between attempts ("with backoff capped at 30
// seconds") bounds the wait, not the loop or the claim.
var reDelayBound = regexp.MustCompile(`\b(backoff|back-off|back(s|ing|ed)? off|delays?|waits?|pauses?|intervals?|sleeps?)( [a-z]+){0,3} ?$`)

// A bound the words after name as a wait ("to a maximum of thirty
// seconds between tries") bounds the wait too.
var reBetweenTries = regexp.MustCompile(`^( [a-z0-9.-]+){0,3}? (between|in between) (each |every |two |the |consecutive |successive )?(tries|attempts|retries|calls|requests|resends|re-sends)\b`)

// sourceText is the prose of the source range [start, end) as a reader
// sees it on one line: markup gone, white space runs one space.
func sourceText(mask []byte, start, end int) string {
	var b strings.Builder
	space := false
	for _, c := range mask[start:end] {
		switch c {
		case gone:
			continue
		case ' ', '\n', '\t', '\r':
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// reOnceTerm is the part of an exactly-once phrase that "effectively once"
// replaces.
var reOnceTerm = regexp.MustCompile(`(?i)\bexactly([ -])once\b|\bexactly one time\b|\bonce[ -]and[ -]only[ -]once\b|\bonce[ -]only\b|\b(only|just|precisely|strictly) once\b|\b(only|just|precisely|strictly) (ever )?((?:be |get |gets |is |are )?\w+) once\b`)

// effectivelyOnce rewrites a bounded exactly-once sentence: the term
// becomes "effectively once", the bound stays.
func effectivelyOnce(sentence string) string {
	return reOnceTerm.ReplaceAllStringFunc(sentence, func(m string) string {
		sub := reOnceTerm.FindStringSubmatch(m)
		out := "effectively once"
		switch {
		case sub[1] == "-":
			out = "effectively-once"
		case sub[5] != "":
			out = sub[5] + " effectively once"
		}
		if m[0] >= 'A' && m[0] <= 'Z' {
			out = strings.ToUpper(out[:1]) + out[1:]
		}
		return out
	})
}

// boundedFix is the fix of a bounded exactly-once finding: the sentence
// rewritten, and the bound it keeps.
func boundedFix(n *normText, s span, bound []int) string {
	a, b := n.sourceSpan(s.start, s.end)
	sentence := sourceText(n.mask, a, b)
	ba, bb := n.sourceSpan(s.start+bound[0], s.start+bound[1])
	boundText := sourceText(n.mask, ba, bb)
	if len(sentence) > 300 {
		sentence = sentence[:300]
		if i := bytes.LastIndexByte([]byte(sentence), ' '); i > 200 {
			sentence = sentence[:i]
		}
		sentence += " ..."
	}
	return `write "effectively once" and keep the bound it states (` + boundText + `): "` + effectivelyOnce(sentence) + `"`
}
