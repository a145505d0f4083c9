package copylint

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retryspec/retryspec/contract"
)

// contractChecks is copy/contradicts-contract: figures and names in prose
// checked against the loaded contract. Each check reads one sentence and
// reports both figures: what the copy says and what the contract says.
type contractChecks struct {
	c           *contract.Contract
	header      string // lower case
	replay      string // lower case; "" when the contract has none
	codes       map[string]bool
	codeList    string
	schedule    string
	reHeaderish *regexp.Regexp
	gHeaderish  *gatedRE
	// about finds aboutWords and the header: the sentences the checks
	// read.
	about *anchorSet
}

func newContractChecks(c *contract.Contract) *contractChecks {
	k := &contractChecks{c: c, header: strings.ToLower(c.Idempotency.Header), replay: strings.ToLower(c.Idempotency.ReplayHeader), codes: map[string]bool{}}
	for _, cf := range c.AnsweredConflicts() {
		if cf.Code != "" {
			k.codes[cf.Code] = true
		}
	}
	var list []string
	for code := range k.codes {
		list = append(list, code)
	}
	sort.Strings(list)
	k.codeList = strings.Join(list, ", ")
	b := &c.Retry.Backoff
	k.schedule = fmt.Sprintf("start at %s, multiply by %g, cap at %s, %s jitter", b.Base, b.Multiplier, b.Cap, b.Jitter)
	// A name in the idempotency-header family: the contract's own header,
	// or any hyphenated name built around "idempotency".
	if v, ok := aboutSets.Load(k.header); ok {
		k.about = v.(*anchorSet)
	} else {
		words := append([]string(nil), aboutWords...)
		if k.header != "" {
			words = append(words, k.header)
		}
		ones := make([]uint64, len(words))
		for i := range ones {
			ones[i] = 1
		}
		k.about = newAnchorSet(words, ones)
		aboutSets.Store(k.header, k.about)
	}
	k.reHeaderish = regexp.MustCompile(`(?:^|[^a-z0-9_.-])(?P<name>(?:x-)?(?:[a-z0-9]+-)*idempoten(?:cy|t)(?:-[a-z0-9]+)*-(?:key|token|id|replayed|replay)|` + regexp.QuoteMeta(k.header) + `)(?:[^a-z0-9_-]|$)`)
	k.gHeaderish = newGatedRE(k.reHeaderish)
	return k
}

// anchorGroup is a set of words and the tag they carry.
type anchorGroup struct {
	tag   uint64
	words []string
}

// anchors are the words of the checks' gates (matchSentence), by group:
// a check reads only a sentence about keys, windows or retrying (one of
// the words of aboutWords), and can fire only on one with a word of the
// idempotency family, or with a figure and a word about keys or retrying
// (see linter.contractMay). Each list is a superset of what matchSentence
// tests: number words without the space hasDigitOrNumberWord wants, the
// unit alone for "a day".
func (k *contractChecks) anchors() []anchorGroup {
	idem := []string{"idempoten"}
	if k.header != "" {
		idem = append(idem, k.header)
	}
	num := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "one", "two", "three", "four", "five", "six",
		"seven", "eight", "nine", "ten", "twelve", "fifteen", "twenty", "thirty", "sixty", "ninety", "forty",
		"seventy", "fourteen", "dozen", "eleven", "teen", "fifty", "eighty", "hundred", "thousand", "day", "week", "hour", "minute", "month", "year", "fortnight"}
	return []anchorGroup{
		{tagCIdem, idem},
		{tagCKey, []string{"key"}},
		{tagCRetry, append([]string{"retr", "attempt", "tries", "trying", "backoff", "wait", "delay", "give up", "gives up", "resubmit", "resen", "re-sen"}, append(loopMetaphors, persistVerbs...)...)},
		{tagCOther, []string{"expir", "window", "ttl", "stop retrying"}},
		{tagCIdemW, []string{"idempot"}},
		{tagCReplay, []string{"replay"}},
		{tagCNum, num},
	}
}

// aboutSets caches contractChecks.about by header: build lints every page
// it writes with a linter of its own.
var aboutSets sync.Map // header -> *anchorSet

// aboutWords are the words of a sentence the checks read: one about keys,
// windows or retrying. A sentence without one ("replay messages at the
// rate they arrived, 1 minute apart") states no figure of the contract.
var aboutWords = append([]string{"idempoten", "key", "expir", "window", "ttl", "attempt", "retr", "tries", "trying", "backoff", "delay", "wait", "give up", "gives up", "stop retrying", "resubmit", "resen", "re-sen"}, append(loopMetaphors, persistVerbs...)...)

// loopMetaphors are the verbs copy uses for a retry loop after "keeps"
// ("the client keeps knocking for ten minutes"): reRetryFor reads them
// as retrying when a client, a request or "it" keeps doing them (a
// courier who keeps knocking retries nothing), so the checks' gates let
// them through.
var loopMetaphors = []string{"knocking", "hammering", "pounding", "banging", "chasing", "pestering", "nudging", "plugging away"}

// persistVerbs are the verbs of a retry loop that lasts ("our SDKs
// persist for five minutes", "retries carry on for an hour"): reRetryFor
// reads them after retries or a client as its subject.
var persistVerbs = []string{"persist", "carry on", "carries on", "carried on"}

var (
	// A duration in prose: "24 hours", "24-hour", "72h", "7d", "one week",
	// "a day", "250ms", "1.5 seconds".
	reDuration = regexp.MustCompile(`\b(?:(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)[ -]?(?P<unit>milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|fortnights?|months?|years?)|(?P<word>half an?|(?:a )?couple of|several|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|eighteen|twenty|twenty-four|thirty|thirty-six|forty|forty-five|forty-eight|fifty|sixty|seventy-two|ninety)[ -](?:full |whole |entire |single )?(?P<wordunit>milliseconds?|seconds?|minutes?|hours?|days?|weeks?|fortnights?|months?|years?))\b`)

	// A time without end, said about keys: "kept forever".
	reForever = regexp.MustCompile(`\b(forever|for ever|permanently|indefinitely|never expir\w*|no expir\w*|without (an )?expir\w*)\b`)

	// The sentence talks about how long keys are remembered.
	reKeyLife     = regexp.MustCompile(`\b(keys?|idempoten\w*|replay(ed)?)\b`)
	reKeyLifeVerb = regexp.MustCompile(`\b(expir\w*|window|ttl|valid|stored?|kept|keep|retain\w*|remember\w*|last|lasts|live|lives|honou?r\w*|recogni[sz]\w*|replay\w*|dedup\w*|reus\w*|within|after|for)\b`)
	// Sentences about timing other than key life are the backoff check's.
	reNotKeyLife = regexp.MustCompile(`\b(timeouts?|backoff|lock\w*|rate[ -]limit\w*|delay\w*|jitter|p99|latency|deadline|wait\w*|sleep\w*|attempts?|in[ -]flight|abandoned)\b`)
	reReaper     = regexp.MustCompile(`\b(reap\w*|purg\w*|delet\w*|remov\w*|clean\w*|recover\w*|retain\w*|retention|garbage|audit\w*|archiv\w*|investigat\w*|outliv\w*|outlast\w*)\b|\bonly (the (first|last) [a-z0-9 -]{1,20} )?(replay|honou?r|return|dedupe?|deduplicat)\w*\b`)

	reRetryish = regexp.MustCompile(`\b(retr\w*|re-?sen\w*|resubmit\w*|attempt\w*|tries|trying|backoff|wait\w*|delay\w*|give up|gives up)\b`)
	// Attempt counts: "up to 5 attempts", "3 retries", "retry 4 times".
	reAttempts = regexp.MustCompile(`\b(up to|at most|a maximum of|maximum of|max(?:imum)?|no more than|a total of|total of|after|limit of|limited to)( a total of)? (?P<count>` + countAlt + `) (total )?(attempts|tries)\b|\b(?P<countfirst>` + countAlt + `) (total |automatic |automated )?(attempts|tries) (in total|total|at most|max(imum)?|(per|on (every|each|any|all)|for (every|each|any|all)) (api |http |single )?(calls?|requests?|operations?|transfers?|payouts?|payments?))\b|\b(?:attempts?|attempted|tries|tried) (?:it |them |(?:the|a|an|each|every|this|that|your|any)(?: [a-z-]+)? (?:requests?|calls?|transfers?|payouts?|payments?|operations?|jobs?) )?(?:up to |at most |a maximum of |no more than |as many as )?(?P<counttimes>` + countAlt + `) times\b|\b(makes?|making|sends?|gets?|allows?) (?P<countmade>` + countAlt + `) (total )?(attempts|tries)\b`)
	reRetries  = regexp.MustCompile(`\b(?P<count>` + countAlt + `) (more |automatic )?(retries|retry attempts)\b|\b(?:re-?tr(?:y|ies|ied)|re-?sen(?:d|ds|t)|resubmit(?:s|ted)?|(?:keeps?|kept|keeping|persists? in|persisted in|persisting in|continues?|continued|goes on|went on) (?:re-?try|re-?send|resubmitt)ing)(?: it| them|(?: (?:the|a|an|each|every|any|failed|failing|timed-out)){1,2} (?:requests?|calls?|transfers?|payouts?|payments?|operations?)| requests| calls)? (?:up to |at most |a maximum of |no more than |as many as )?(?P<times>` + countAlt + `) (?:more )?times\b|\b(?:makes?|making|gets?|sends?|tries|adds?|allows?) (?P<more>` + countAlt + `) more\b(?: (?:attempts|tries|times|retries))?`)

	reBaseDelay = regexp.MustCompile(`\b(initial|base|first|starting) (retry )?(delay|backoff|wait|interval)( is| of| at|:)? (?:about |around )?(?P<delay>` + durationAlt + `)|\bstart(?:s|ing)? (?:at|with|from) (?:a )?(?P<startdelay>` + durationAlt + `)( delay| wait| backoff)?`)
	reCapDelay  = regexp.MustCompile(`\b(capped at|caps? (?:out )?at|cap of|maximum (?:retry )?(?:delay|backoff|wait|interval)(?: is| of|:)?|max(?:imum)? (?:delay|backoff|wait) (?:is |of )?|never (?:waits? )?(?:longer|more) than|no (?:longer|more) than) (?:about )?(?P<delay>` + durationAlt + `)`)
	reFixedWait = regexp.MustCompile(`\b(?:retry|retries|retrying|wait|waits|waiting|sleep|pause) (?:for |after |every )?(?P<wait>` + durationAlt + `)`)
	// How long the loop goes on: "keeps retrying for up to 5 minutes",
	// against max_elapsed.
	// The retry may be any verb of sending again ("attempted again for up
	// to four hours"), or the duration may come first ("ten minutes of
	// retries").
	reRetryFor = regexp.MustCompile(`\b(?:re-?tr(?:y|ies|ied|ying)|re-?submit(?:s|ted|ting)?|re-?sen(?:d|ds|t|ding)|re-?attempt(?:s|ed|ing)?|(?:attempt|tri|submitt|sent|post)(?:ed)? again|(?:keeps?|kept|keeping) (?:on )?(?:retrying|trying|resubmitting|resending)|\b(?:sdks?|clients?|librar(?:y|ies)|workers?|requests?|calls?|webhooks?|it|they)(?: [a-z0-9'-]+){0,3}? (?:keeps?|kept|keeping) (?:on )?(?:` + strings.Join(loopMetaphors, "|") + `)|\b(?:retries|retrying|retry loops?|retry attempts|sdks?|clients?|librar(?:y|ies)|ours)(?: that| which)? (?:persist(?:s|ed|ing)?|carr(?:y|ies|ied) on))(?: [a-z0-9'-]+){0,6}? (?:for|over) (?:(?:up to |at most |no (?:longer|more) than |as long as |as much as |a total of |the next |roughly |about |around |nearly |almost )?(?P<elapsed>` + durationAlt + `)|(?P<vague>` + vagueUnits + `)\b|the (?:next|following|coming|whole|entire|full) (?P<oneunit>` + oneUnits + `)\b)|\b(?P<elapsedof>` + durationAlt + `) of (?:retries|retrying|retry attempts|re-?tries|resending|resubmission)\b`)
	reGiveUp   = regexp.MustCompile(`\b(?:give up|gives up|stop retrying|stops retrying|retrying stops) (?:after|within|at) (?P<elapsed>` + durationAlt + `)`)

	// A sentence whose subject is another provider quotes that provider's
	// figures and codes, not this API's.
	reOtherProvider = regexp.MustCompile(`\b(stripe|resend|twilio|adyen|paypal|square|shopify|github|aws|amazon|google|braintree|plaid|checkout\.com)('s)? (\w+ ){0,3}(rejects?|returns?|answers?|responds?|sends?|uses?|names?|calls?|codes?)\b[^;]*$`)

	// A denial of a place before a header name, in its clause: "in the
	// body, not in an Idempotency-Key header".
	// The name said to be a header: "the Idempotency-Key header", "a
	// header named Idempotency-Key". A bare "the same Idempotency-Key"
	// names the key, in the words every catalogue example uses.
	reHeaderAfter  = regexp.MustCompile(`^\W{0,3}(http |request )?headers?\b`)
	reHeaderBefore = regexp.MustCompile(`\bheaders?( named| called|:)?\W{0,3}$`)
	reDeniedPlace  = regexp.MustCompile(`\b(not|no|never|instead of|rather than|unlike|without|don't|do not|doesn't|does not)\b[^,;:.]{0,40}$`)

	// A name said to be set, or named as a field or an option, before or
	// after it: "`idempotency_level` is set per method", "the
	// idempotency_mode option". An error code is returned, not set.
	reSettingAfter  = regexp.MustCompile(`^"?\)? ?(field|option|setting|parameter|param|flag|property|attribute|annotation|enum|column|config\w*)\b|^"?\)? (is|are|can be|must be|may be|gets|get) (set|configured|declared|specified|enabled|disabled|toggled|annotated|assigned)\b`)
	reSettingBefore = regexp.MustCompile(`\b(field|option|setting|parameter|param|flag|property|attribute|annotation|set|sets|setting|configure|configures|enable|enables|toggle|toggles)( the)? "?$`)

	reErrorCode = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`)
)

// contractGates are the literal gates (gate.go) of the checks' patterns,
// built on first use: a sentence without the words a pattern needs never
// reaches the regexp engine.
var contractGates = sync.OnceValue(func() map[*regexp.Regexp]*gatedRE {
	m := map[*regexp.Regexp]*gatedRE{}
	for _, re := range []*regexp.Regexp{reDuration, reKeyLife, reKeyLifeVerb, reNotKeyLife, reReaper, reRetryish, reAttempts,
		reRetries, reBaseDelay, reCapDelay, reFixedWait, reGiveUp, reRetryFor, reOtherProvider, reErrorCode} {
		m[re] = newGatedRE(re)
	}
	return m
})

// findSub is re.FindStringSubmatchIndex(str) behind re's gate; b holds
// the bytes of str.
func findSub(re *regexp.Regexp, b []byte, str string) []int {
	if !can(re, b) {
		return nil
	}
	return re.FindStringSubmatchIndex(str)
}

// findAll is re.FindAllStringIndex(str, -1) behind re's gate.
func findAll(re *regexp.Regexp, b []byte, str string) [][]int {
	if !can(re, b) {
		return nil
	}
	return re.FindAllStringIndex(str, -1)
}

// can reports whether re may match b: false only when its gate proves it
// cannot.
func can(re *regexp.Regexp, b []byte) bool {
	g, ok := contractGates()[re]
	return !ok || g.pass(b)
}

// vagueUnits are a unit without its figure ("kept retrying for hours"),
// read as the least they mean: a couple of them.
const vagueUnits = `hours|days|weeks|months`

// oneUnits are a unit said once after "the next" (or "the following",
// "the whole"): "keeps resending for the next hour" is one hour. Only
// after "for" or "over" is it a span: "retried the next day" names a
// time, not how long the loop lasts.
const oneUnits = `minute|hour|day|week|fortnight|month|year`

// oneUnitLeads are the words before a oneUnits unit that make it a span.
var oneUnitLeads = []string{" for the next", " over the next", " for the following", " over the following", " for the coming", " over the coming", " for the whole", " for the entire", " for the full", " over the whole", " over the entire"}

// durationAlt is reDuration's body for use inside other patterns.
const durationAlt = `(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?[ -]?(?:milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|fortnights?|months?|years?)|(?:half an?|(?:a )?couple of|several|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|eighteen|twenty|twenty-four|thirty|thirty-six|forty|forty-five|forty-eight|fifty|sixty|seventy-two|ninety)[ -](?:full |whole |entire |single )?(?:milliseconds?|seconds?|minutes?|hours?|days?|weeks?|fortnights?|months?|years?))\b`

// countAlt is a count in digits or in words, compounds included ("185",
// "a dozen", "twenty-five", "one hundred and eighty-five"): a writer
// spells a figure as they like, and each spelling is read by
// spelledNumber.
const countAlt = `\d+|(?:an? )?` + numWordAlt + `(?:(?:[ -]|,? and )` + numWordAlt + `)*`

// numWordAlt is one number word of a spelled count.
const numWordAlt = `(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|dozen)`

// spelledValues are the values of the number words of numWordAlt below
// a hundred.
var spelledValues = map[string]int{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
	"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

// spelledNumber reads a count in words: "one hundred and eighty-five",
// "a dozen", "twenty-five", "two thousand", "a hundred".
func spelledNumber(s string) (float64, bool) {
	words := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '-' || r == ',' })
	total, cur, seen := 0, 0, false
	for i, w := range words {
		switch v, ok := spelledValues[w]; {
		case ok:
			cur += v
		case (w == "a" || w == "an") && i == 0:
			cur = 1
			continue
		case w == "and" && seen:
			continue
		case w == "hundred":
			cur = max(cur, 1) * 100
		case w == "dozen":
			cur = max(cur, 1) * 12
		case w == "thousand":
			total += max(cur, 1) * 1000
			cur = 0
		default:
			return 0, false
		}
		seen = true
	}
	return float64(total + cur), seen
}

var numberWords = map[string]float64{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "twelve": 12, "fourteen": 14, "fifteen": 15, "twenty": 20,
	"twenty-four": 24, "thirty": 30, "half a": 0.5, "half an": 0.5, "a couple of": 2, "couple of": 2, "eleven": 11, "eighteen": 18,
	"thirty-six": 36, "forty": 40, "forty-five": 45, "fifty": 50, "dozen": 12, "a dozen": 12, "forty-eight": 48, "sixty": 60, "seventy-two": 72, "ninety": 90,
	// A vague count is read as the least it can mean: "several hours" is
	// at least three, "a few days" at least two.
	"several": 3, "a few": 2,
}

func proseNumber(s string) (float64, bool) {
	if v, ok := numberWords[s]; ok {
		return v, true
	}
	// A figure may group its thousands with commas ("1,440 minutes").
	if v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64); err == nil {
		return v, true
	}
	return spelledNumber(s)
}

// parseProseDuration reads one reDuration match.
func parseProseDuration(s string) (time.Duration, bool) {
	m := reDuration.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	num, unit := m[reDuration.SubexpIndex("num")], m[reDuration.SubexpIndex("unit")]
	if num == "" {
		num, unit = m[reDuration.SubexpIndex("word")], m[reDuration.SubexpIndex("wordunit")]
	}
	v, ok := proseNumber(num)
	if !ok {
		return 0, false
	}
	var size time.Duration
	switch strings.TrimSuffix(unit, "s") {
	case "millisecond", "m": // "ms" trimmed to "m"
		size = time.Millisecond
		if unit == "m" {
			size = time.Minute
		}
	case "", "second", "sec":
		size = time.Second
	case "minute", "min":
		size = time.Minute
	case "hour", "hr", "h":
		size = time.Hour
	case "day", "d":
		size = 24 * time.Hour
	case "week", "w", "wk":
		size = 7 * 24 * time.Hour
	case "fortnight":
		size = 14 * 24 * time.Hour
	case "month": // as retention pages count a month
		size = 30 * 24 * time.Hour
	case "year":
		size = 365 * 24 * time.Hour
	default:
		return 0, false
	}
	return time.Duration(v * float64(size)), true
}

// human writes a duration the way copy states it: whole days from two days
// up ("7 days"), hours below that ("24 hours", as providers write their
// windows), else the contract's own prose form.
func human(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d >= 2*day && d%day == 0:
		return itoa(int(d/day)) + " days"
	case d >= 2*time.Hour && d%time.Hour == 0:
		return itoa(int(d/time.Hour)) + " hours"
	}
	return contract.HumanDuration(d)
}

// matchSentence runs the contract checks on sentence s of n; tags are the
// anchor tags of the sentence (linter.contractMay), whose word groups are
// supersets of the word tests below: a group's bit unset, its test is
// false without a search.
func (k *contractChecks) matchSentence(n *normText, s span, tags uint64, hits []hit) []hit {
	sent := n.text[s.start:s.end]
	if !k.about.match(sent) {
		return hits
	}
	x := &sentence{k: k, n: n, s: s, sent: sent, str: string(sent), hits: hits}
	// Cheap gates first: most sentences name no figure and no header.
	hasNumber := tags&tagCNum != 0 && hasDigitOrNumberWord(sent)
	keyLife := x.keyLife(hasNumber)
	x.header()
	x.errorCode()
	metaphor := has(sent, loopMetaphors...) || has(sent, persistVerbs...)
	if !hasNumber || keyLife || tags&tagCRetry == 0 || !has(sent, "retr", "attempt", "tries", "trying", "backoff", "wait", "delay", "give up", "gives up", "resubmit", "resen", "re-sen") && !metaphor {
		return x.hits
	}
	// Every pattern of attempts states a count before a word about
	// attempts, and every pattern of delays a duration: a byte scan for
	// each spares most sentences the regexp engine (a quarter of the
	// checks' time went to patterns that then matched nothing).
	counts, durations := countBeforeAttemptWord(sent), hasDuration(sent)
	if !counts && !durations || !retryish(sent) && !metaphor {
		return x.hits
	}
	if counts {
		x.attempts()
	}
	if durations {
		x.delays()
	}
	return x.hits
}

// sentence is one sentence under the contract checks, and the hits so far.
type sentence struct {
	k    *contractChecks
	n    *normText
	s    span
	sent []byte
	str  string
	hits []hit
}

// add reports the text at loc (offsets in the sentence).
func (x *sentence) add(loc []int, path, msg, fix string) {
	if asked(x.sent, loc[1]) || quotedWording(x.sent, loc[0], loc[1]) || mentionedWording(x.sent, loc[0]) || attributedBack(x.sent[:loc[0]], x.sent[loc[1]:]) {
		return
	}
	a, b := x.n.sourceSpan(x.s.start+loc[0], x.s.start+loc[1])
	x.hits = append(x.hits, hit{rule: RuleContradicts, start: a, end: b, message: msg, fix: fix, path: path})
}

// keyLife checks a duration said about keys or the window against
// replay_window (or reaper_after, when the sentence is about retention),
// and reports whether the sentence is about key life at all. "Keys" alone
// are idempotency keys only on a page (block) about them: "API keys
// expire after 90 days" is not a window.
func (x *sentence) keyLife(hasNumber bool) bool {
	k, sent, str, idem := x.k, x.sent, x.str, &x.k.c.Idempotency
	aboutKeys := has(sent, "idempot", "replay") || (k.header != "" && bytes.Contains(sent, []byte(k.header))) ||
		(bytes.Contains(sent, []byte("key")) && (bytes.Contains(x.n.text, []byte("idempot")) || replayByMeaning(sent)))
	keyLife := hasNumber && aboutKeys && can(reKeyLife, sent) && reKeyLife.MatchString(str) && can(reKeyLifeVerb, sent) && reKeyLifeVerb.MatchString(str) &&
		!(can(reNotKeyLife, sent) && reNotKeyLife.MatchString(str))
	if keyLife && !idem.ReplayWindow.IsZero() {
		var locs [][]int
		if can(reDuration, sent) {
			locs = durationSpans(str)
		}
		windowSaid := x.saysDuration(locs, idem.ReplayWindow.D)
		for _, loc := range locs {
			d, ok := parseProseDuration(str[loc[0]:loc[1]])
			if !ok || d == idem.ReplayWindow.D || windowSaid && x.retryChainSpan(loc, d) {
				continue
			}
			if !idem.ReaperAfter.IsZero() && d == idem.ReaperAfter.D && can(reReaper, sent) && reReaper.MatchString(str) {
				continue
			}
			x.add(loc, "idempotency.replay_window",
				fmt.Sprintf("says %q about idempotency keys or the replay window, but the contract's replay_window is %s (%s)", str[loc[0]:loc[1]], idem.ReplayWindow, human(idem.ReplayWindow.D)),
				fmt.Sprintf("write the contract's figure: keys are honoured for %s (replay_window: %s)", human(idem.ReplayWindow.D), idem.ReplayWindow))
			break
		}
	}
	return keyLife
}

// reChainSpan ends at a span a retry lasts: "may be retried for up to",
// "keeps resending over".
var reChainSpan = regexp.MustCompile(`\b(?:re-?tr(?:y|ies|ied|ying)|re-?sen(?:d|ds|t|ding)|re-?submit(?:s|ted|ting)?|re-?attempt(?:s|ed|ing)?)(?: [a-z0-9'-]+){0,3}? (?:for|over|during|within) (?:up to |at most |about |roughly )?$`)

// retryChainSpan reports whether the duration d at loc is the contract's
// longest retry chain said as how long one intent is retried ("one
// intent may be retried for up to 6 hours"): in a sentence that states
// the contract's window too, that is the chain the window covers, not
// the window ("keys let you retry for up to 6 hours" alone still is).
func (x *sentence) retryChainSpan(loc []int, d time.Duration) bool {
	chain := x.k.c.Idempotency.LongestRetryChain.Duration
	return !chain.IsZero() && d == chain.D && reChainSpan.MatchString(x.str[:loc[0]])
}

// saysDuration reports whether one of the durations at locs is d.
func (x *sentence) saysDuration(locs [][]int, d time.Duration) bool {
	for _, loc := range locs {
		if v, ok := parseProseDuration(x.str[loc[0]:loc[1]]); ok && v == d {
			return true
		}
	}
	return false
}

// replayByMeaning reports whether sent says what a replay does without
// the word: a repeat that gets "the original response" back. A key in
// such a sentence is the idempotency key ("reuse the same key for a week
// and get the original response back"), whatever the page is about.
func replayByMeaning(sent []byte) bool {
	return has(sent, "original response", "same response", "first response", "original result", "same result", "cached response", "stored response")
}

// header checks header names in the idempotency family that are not the
// contract's.
func (x *sentence) header() {
	k, sent, str, c := x.k, x.sent, x.str, x.k.c
	hasIdem := bytes.Contains(sent, []byte("idempot")) || (k.header != "" && bytes.Contains(sent, []byte(k.header)))
	if !hasIdem {
		return
	}
	inBody := c.Idempotency.InBody()
	if !k.gHeaderish.pass(sent) || !inBody && !k.otherHeaderName(sent) {
		return
	}
	for _, m := range k.reHeaderish.FindAllStringSubmatchIndex(str, -1) {
		loc := groupAt(k.reHeaderish, m, "name")
		name := str[loc[0]:loc[1]]
		if k.replay != "" && name == k.replay || !strings.Contains(name, "-") {
			continue
		}
		if inBody {
			// Under key_in: body no header carries the key, the contract's
			// header field included (it keeps its default); a sentence
			// that names one as a header contradicts the contract, unless
			// it says the key does not go there.
			if !reHeaderAfter.MatchString(str[loc[1]:]) && !reHeaderBefore.MatchString(str[:loc[0]]) || reDeniedPlace.MatchString(str[:loc[0]]) {
				continue
			}
			x.add(loc, "idempotency.key_in",
				fmt.Sprintf("names the header %q as the idempotency key's place, but the contract sends the key in %s (key_in: body)", name, c.Idempotency.KeyPlace()),
				fmt.Sprintf("write the contract's place: send the key as %s, the same value on every retry", c.Idempotency.KeyPlace()))
			break
		}
		if name == k.header {
			continue
		}
		x.add(loc, "idempotency.header",
			fmt.Sprintf("names the header %q, but the contract's header is %s", name, c.Idempotency.Header),
			fmt.Sprintf("use the contract's header name: %s", c.Idempotency.Header))
		break
	}
}

// otherHeaderName reports whether sent may name a header header()
// reports: reHeaderish's name of the idempotency family is a whole run of
// [a-z0-9-] holding "idempoten", and one that is the contract's header or
// replay header, or holds no '-', is passed over. Most sentences that
// name the header name only it.
func (k *contractChecks) otherHeaderName(sent []byte) bool {
	nameByte := func(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' }
	for from := 0; ; {
		i := bytes.Index(sent[from:], []byte("idempoten"))
		if i < 0 {
			return false
		}
		i += from
		start, end := i, i+len("idempoten")
		for start > 0 && nameByte(sent[start-1]) {
			start--
		}
		for end < len(sent) && nameByte(sent[end]) {
			end++
		}
		name := string(sent[start:end])
		if name != k.header && name != k.replay && strings.Contains(name, "-") {
			return true
		}
		from = end
	}
}

// errorCode checks error codes in the idempotency family the contract
// does not define.
func (x *sentence) errorCode() {
	k, n, s, sent, str := x.k, x.n, x.s, x.sent, x.str
	if !bytes.Contains(sent, []byte("idempot")) || bytes.IndexByte(sent, '_') < 0 {
		return
	}
	for _, loc := range findAll(reErrorCode, sent, str) {
		code := str[loc[0]:loc[1]]
		if !strings.Contains(code, "idempot") || k.codes[code] {
			continue
		}
		if first := n.mask[n.off[s.start+loc[0]]]; first < 'a' || first > 'z' {
			continue // IDEMPOTENT_WRITE is a constant or a permission, not an error code
		}
		if loc[0] > 0 && str[loc[0]-1] == '.' || loc[1] < len(str) && (str[loc[1]] == ':' || str[loc[1]] == '=') {
			continue // sdk.auto_idempotency_key: true is a contract field, not an error code
		}
		if reSettingAfter.MatchString(str[loc[1]:]) || reSettingBefore.MatchString(str[:loc[0]]) {
			continue // "`idempotency_level` is set per method": a field or an option, not an error code
		}
		if can(reOtherProvider, sent[:loc[0]]) && reOtherProvider.MatchString(str[:loc[0]]) {
			continue // "Resend rejects the mismatch with 409 invalid_idempotent_request": another API's code
		}
		if strings.Contains(code, "idempotency_key") && !strings.ContainsAny(strings.ReplaceAll(code, "idempotency_key", ""), "_") {
			// idempotency_key alone is a field or parameter name, not a code.
			continue
		}
		x.add(loc, "idempotency.conflicts",
			fmt.Sprintf("names the error code %q, which the contract does not define (it defines %s)", code, k.codeList),
			fmt.Sprintf("use one of the contract's codes: %s", k.codeList))
		break
	}
}

// attempts checks attempt counts against max_attempts (which counts the
// first request).
func (x *sentence) attempts() {
	sent, str, r := x.sent, x.str, &x.k.c.Retry
	if r.MaxAttempts <= 0 || !has(sent, "attempts", "tries", "retries", "times", " more") {
		return
	}
	m := findSub(reAttempts, sent, str)
	if m != nil && m[0] >= 3 && str[m[0]-3:m[0]] == "re-" {
		// "re-tries 2 times" counts retries, not tries.
		m = nil
	}
	if m != nil {
		n := groupAt(reAttempts, m, "count", "countfirst", "countmade", "counttimes")
		if v, ok := proseNumber(str[n[0]:n[1]]); ok && int(v) != r.MaxAttempts {
			x.add(m[0:2], "retry.max_attempts",
				fmt.Sprintf("says %d attempts, but the contract's max_attempts is %d (the first request included)", int(v), r.MaxAttempts),
				fmt.Sprintf("write the contract's figure: at most %d attempts, the first request and %d retries", r.MaxAttempts, r.MaxAttempts-1))
		}
	} else if m := findSub(reRetries, sent, str); m != nil {
		// "makes three more" counts retries after a first attempt.
		n := groupAt(reRetries, m, "count", "times", "more")
		if v, ok := proseNumber(str[n[0]:n[1]]); ok && int(v)+1 != r.MaxAttempts {
			x.add(m[0:2], "retry.max_attempts",
				fmt.Sprintf("says %d retries (%d attempts), but the contract's max_attempts is %d (the first request and %d retries)", int(v), int(v)+1, r.MaxAttempts, r.MaxAttempts-1),
				fmt.Sprintf("write the contract's figure: at most %d retries after the first request (max_attempts: %d)", r.MaxAttempts-1, r.MaxAttempts))
		}
	}
}

// delays checks delays against the backoff schedule: the first delay,
// the longest, the overall bound and a fixed wait, reporting at most one.
func (x *sentence) delays() {
	sent, str, r := x.sent, x.str, &x.k.c.Retry
	b := &r.Backoff
	schedule := x.k.schedule
	if !has(sent, "initial", "base", "first", "start", "cap", "max", "never", "no longer", "no more", "give", "stop", "retry ", "retries ", "retrying ", "retried ", "attempt", "keep", "kept", "wait", "sleep", "pause", "resubmit", "resen", "re-sen", " again", " of retr") && !has(sent, persistVerbs...) {
		return
	}
	if !has(sent, "initial", "base", "first", "start") || !baseDelayMay(sent) {
		// no first-delay statement
	} else if m := findSub(reBaseDelay, sent, str); m != nil && !b.Base.IsZero() {
		if g := groupAt(reBaseDelay, m, "delay", "startdelay"); g != nil {
			if d, ok := parseProseDuration(str[g[0]:g[1]]); ok && d != b.Base.D {
				x.add(m[0:2], "retry.backoff.base",
					fmt.Sprintf("says the first delay is %s, but the contract's backoff base is %s", human(d), b.Base),
					"write the contract's schedule: "+schedule)
				return
			}
		}
	}
	if !has(sent, "cap", "max", "never", "no longer", "no more") {
		// no longest-delay statement
	} else if m := findSub(reCapDelay, sent, str); m != nil && !b.Cap.IsZero() && !strings.HasSuffix(str[:m[0]], "for ") {
		// "for no longer than a minute" is how long the loop lasts, which
		// reRetryFor judges, not the longest wait between attempts.
		g := groupAt(reCapDelay, m, "delay") // not optional: set in every match
		if d, ok := parseProseDuration(str[g[0]:g[1]]); ok && d != b.Cap.D && !strings.Contains(str, "attempt") {
			x.add(m[0:2], "retry.backoff.cap",
				fmt.Sprintf("says the longest delay is %s, but the contract's backoff cap is %s", human(d), b.Cap),
				"write the contract's schedule: "+schedule)
			return
		}
	}
	// A statement of when the loop stops is about the loop, agreed or not:
	// "stops retrying after 60 seconds" is no wait between attempts.
	if has(sent, "give up", "gives up", "stop") && x.elapsed(reGiveUp, "stops after") {
		return
	}
	// A duration the loop lasts, unless the sentence is about how long a
	// key lets a caller retry ("retry with the same key for 24 hours").
	if (has(sent, "retr", "re-tr", "keep", "kept", "resubmit", "resen", "re-sen", "again", "attempt") || has(sent, persistVerbs...)) && has(sent, " for ", " over ", " of retr", " of re-tr", " of resen", " of resub") && !has(sent, "key", "same", "window", "replay", "idempot") && x.elapsed(reRetryFor, "goes on for") {
		return
	}
	// A fixed wait is about retrying only when the sentence says so, and
	// not about a lock or a timeout ("waits 60 seconds to acquire the lock").
	if !has(sent, "retr", "attempt", "try again") || has(sent, "lock", "timeout", "time out") {
		return
	}
	if !fixedWaitMay(sent) {
		return
	}
	if m := findSub(reFixedWait, sent, str); m != nil && !b.Base.IsZero() && !strings.Contains(str, "retry-after") && !retryAsNoun(str, m[0]) {
		g := groupAt(reFixedWait, m, "wait")
		if d, ok := parseProseDuration(str[g[0]:g[1]]); ok && (d < b.Base.D || (!b.Cap.IsZero() && d > b.Cap.D)) {
			x.add(m[0:2], "retry.backoff",
				fmt.Sprintf("says to wait %s between attempts, outside the contract's backoff of %s to %s", human(d), b.Base, b.Cap),
				"write the contract's schedule: "+schedule)
		}
	}
}

// elapsed checks the duration re's "elapsed" group states for the whole
// retry loop against max_elapsed, and reports whether re matched: the
// sentence states the loop's bound, whether or not it agrees.
func (x *sentence) elapsed(re *regexp.Regexp, says string) bool {
	r := &x.k.c.Retry
	if r.MaxElapsed.IsZero() {
		return false
	}
	m := findSub(re, x.sent, x.str)
	if m == nil {
		return false
	}
	g := groupAt(re, m, "elapsed", "elapsedof", "vague", "oneunit")
	said := x.str[g[0]:g[1]]
	if v := re.SubexpIndex("vague"); v > 0 && g[0] == m[2*v] {
		said = "a couple of " + said // "for hours": two at least
	}
	if v := re.SubexpIndex("oneunit"); v > 0 && g[0] == m[2*v] {
		said = "one " + said // "for the next hour"
	}
	d, ok := parseProseDuration(said)
	if !ok {
		return false
	}
	// The contract's longest retry chain is a loop it states too (its
	// "because" names who retries that long: "the nightly job re-submits
	// failed movements for up to three days").
	if d == r.MaxElapsed.D || d == x.k.c.Idempotency.LongestRetryChain.Duration.D {
		return true
	}
	x.add(m[0:2], "retry.max_elapsed",
		fmt.Sprintf("says retrying %s %s, but the contract's max_elapsed is %s", says, human(d), r.MaxElapsed),
		fmt.Sprintf("write the contract's bound: retries stop after %s in all (max_elapsed: %s)", human(r.MaxElapsed.D), r.MaxElapsed))
	return true
}

// groupAt returns the start and end of the first of the named groups of re
// that took part in match m (a FindStringSubmatchIndex result of re), or
// nil when none did.
func groupAt(re *regexp.Regexp, m []int, names ...string) []int {
	for _, name := range names {
		if i := re.SubexpIndex(name); i > 0 && m[2*i] >= 0 {
			return m[2*i : 2*i+2]
		}
	}
	return nil
}

// retryAsNoun reports whether the "retry" at str[at:] is a noun after a
// determiner ("a retry after 12h runs as a new request"): a statement about
// a late retry, not advice to wait that long between attempts.
func retryAsNoun(str string, at int) bool {
	if !strings.HasPrefix(str[at:], "retr") {
		return false
	}
	before := strings.TrimRight(str[:at], " ")
	w := before[strings.LastIndexByte(before, ' ')+1:]
	switch w {
	case "a", "the", "any", "each", "every", "this", "that", "later", "late", "such", "one":
		return true
	}
	return false
}

// retryish is reRetryish.MatchString(string(s)), the gate of the attempt
// and delay checks, as a scan: the pattern ran on nearly every sentence
// with a figure and a word about retrying, and matched most of them, so
// its literal gate could not spare the engine. \b is ASCII, as in the
// pattern.
func retryish(s []byte) bool {
	for i := bytes.IndexAny(s, "rwdatbg"); i >= 0 && i < len(s); i++ {
		if i > 0 && isWordByte(s[i-1]) {
			continue
		}
		rest := s[i:]
		switch s[i] {
		case 'r':
			if bytes.HasPrefix(rest, []byte("retr")) || bytes.HasPrefix(rest, []byte("resen")) || bytes.HasPrefix(rest, []byte("re-sen")) || bytes.HasPrefix(rest, []byte("resubmit")) {
				return true // retr\w*\b: \w* runs to the word's end
			}
		case 'w':
			if bytes.HasPrefix(rest, []byte("wait")) {
				return true
			}
		case 'd':
			if bytes.HasPrefix(rest, []byte("delay")) {
				return true
			}
		case 'a':
			if bytes.HasPrefix(rest, []byte("attempt")) {
				return true // attempt\w*\b: "attempted again for four hours"
			}
		case 't':
			if bytes.HasPrefix(rest, []byte("tries")) && wordEnds(s, i+5) || bytes.HasPrefix(rest, []byte("trying")) && wordEnds(s, i+6) {
				return true // "keeps trying for an hour"
			}
		case 'b':
			if bytes.HasPrefix(rest, []byte("backoff")) && wordEnds(s, i+7) {
				return true
			}
		case 'g':
			if bytes.HasPrefix(rest, []byte("give up")) && wordEnds(s, i+7) || bytes.HasPrefix(rest, []byte("gives up")) && wordEnds(s, i+8) {
				return true
			}
		}
	}
	return false
}

// isWordByte is \w of Go's regexp: an ASCII letter, digit or underscore.
func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// wordEnds reports whether \b holds at s[i] after a word byte.
func wordEnds(s []byte, i int) bool { return i >= len(s) || !isWordByte(s[i]) }

// countNumberWords are the spelled-out counts of reAttempts and reRetries.
var countNumberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "teen", "ty", "hundred", "thousand", "dozen"}

// countBeforeAttemptWord reports whether s may match reAttempts or
// reRetries: each of their forms holds a count (digits or a number word)
// followed by a space and one of the words below. It is a superset: the
// word boundaries and the words around are left to the patterns.
func countBeforeAttemptWord(s []byte) bool {
	for _, w := range []string{" attempts", " tries", " retries", " retry attempts", " times", " total ", " more", " automatic "} {
		for from := 0; ; {
			k := bytes.Index(s[from:], []byte(w))
			if k < 0 {
				break
			}
			p := from + k
			if p > 0 && s[p-1] >= '0' && s[p-1] <= '9' {
				return true
			}
			for _, n := range countNumberWords {
				if bytes.HasSuffix(s[:p], []byte(n)) {
					return true
				}
			}
			from = p + 1
		}
	}
	return false
}

// durationUnits are durationAlt's units after a figure, each also with
// an "s" where the pattern allows one.
var durationUnits = []string{"millisecond", "ms", "second", "sec", "s", "minute", "min", "m", "hour", "hr", "h", "day", "d", "week", "w", "fortnight", "month", "year"}

// unitAt reports whether s starts with a unit of durationAlt's figures
// and the unit ends a word there.
func unitAt(s []byte) bool {
	for _, u := range durationUnits {
		if !bytes.HasPrefix(s, []byte(u)) {
			continue
		}
		rest := s[len(u):]
		if len(rest) > 0 && rest[0] == 's' {
			rest = rest[1:]
		}
		if len(rest) == 0 || !isWordByte(rest[0]) || wordEnds(s, len(u)) {
			return true
		}
	}
	return false
}

// hasDuration reports whether s may hold a durationAlt match, which every
// pattern of the delay checks needs: a digit followed (after at most one
// space or hyphen) by a unit that ends a word, or a number word, a
// space or hyphen and a unit word. A superset, like
// countBeforeAttemptWord.
func hasDuration(s []byte) bool {
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b >= '0' && b <= '9':
			j := i + 1
			if j < len(s) && (s[j] == ' ' || s[j] == '-') {
				j++
			}
			if unitAt(s[j:]) {
				return true
			}
		case b == ' ' || b == '-':
			rest := s[i+1:]
			if len(rest) == 0 {
				continue
			}
			switch rest[0] {
			case 'm', 's', 'h', 'd', 'w', 'y', 'f':
			default:
				continue
			}
			unit := false
			for _, u := range []string{"millisecond", "second", "minute", "hour", "day", "week", "fortnight", "month", "year"} {
				if bytes.HasPrefix(rest, []byte(u)) {
					unit = true
					break
				}
			}
			if !unit {
				continue
			}
			// "a full week": the number word is before the qualifier.
			before := s[:i]
			for _, q := range []string{" full", " whole", " entire", " single"} {
				before = bytes.TrimSuffix(before, []byte(q))
			}
			for _, n := range durationWordsInOrder {
				if bytes.HasSuffix(before, []byte(n)) {
					return true
				}
			}
			// A unit without its figure after "for" (vagueUnits).
			if bytes.HasSuffix(before, []byte(" for")) || bytes.HasSuffix(before, []byte(" over")) {
				return true
			}
			// One unit after "for the next" (oneUnits).
			for _, l := range oneUnitLeads {
				if bytes.HasSuffix(before, []byte(l)) {
					return true
				}
			}
		}
	}
	return false
}

// durationAt reports whether a durationAlt match may start at s[p]: a
// digit, or one of its number words and a space or hyphen.
func durationAt(s []byte, p int) bool {
	if p >= len(s) {
		return false
	}
	if s[p] >= '0' && s[p] <= '9' {
		return true
	}
	for _, n := range durationWordsInOrder {
		if e := p + len(n); e < len(s) && (s[e] == ' ' || s[e] == '-') && bytes.HasPrefix(s[p:], []byte(n)) {
			return true
		}
	}
	return false
}

// leadEnds calls f with the offset just past each occurrence of each
// lead in s, until f returns true; it reports whether one did.
func leadEnds(s []byte, leads []string, f func(e int) bool) bool {
	for _, w := range leads {
		for from := 0; ; {
			k := bytes.Index(s[from:], []byte(w))
			if k < 0 {
				break
			}
			if f(from + k + len(w)) {
				return true
			}
			from += k + 1
		}
	}
	return false
}

// fixedWaitMay reports whether s may match reFixedWait: a word of
// waiting, a space, at most one of "for ", "after ", "every ", then a
// duration. A superset, as countBeforeAttemptWord.
func fixedWaitMay(s []byte) bool {
	return leadEnds(s, []string{"retry ", "retries ", "retrying ", "wait ", "waits ", "waiting ", "sleep ", "pause "}, func(e int) bool {
		if durationAt(s, e) {
			return true
		}
		for _, p := range []string{"for ", "after ", "every "} {
			if bytes.HasPrefix(s[e:], []byte(p)) && durationAt(s, e+len(p)) {
				return true
			}
		}
		return false
	})
}

// baseDelayMay reports whether s may match reBaseDelay: a word of delay,
// at most one of " is", " of", " at", ":", a space, at most one of
// "about ", "around ", then a duration; or "start", "starts" or
// "starting", a space, "at ", "with " or "from ", at most "a ", then a
// duration. A superset, as countBeforeAttemptWord.
func baseDelayMay(s []byte) bool {
	if leadEnds(s, []string{"delay", "backoff", "wait", "interval"}, func(e int) bool {
		for _, sep := range []string{"", " is", " of", " at", ":"} {
			q := e + len(sep)
			if !bytes.HasPrefix(s[e:], []byte(sep)) || q >= len(s) || s[q] != ' ' {
				continue
			}
			for _, adv := range []string{"", "about ", "around "} {
				if bytes.HasPrefix(s[q+1:], []byte(adv)) && durationAt(s, q+1+len(adv)) {
					return true
				}
			}
		}
		return false
	}) {
		return true
	}
	return leadEnds(s, []string{"start ", "starts ", "starting "}, func(e int) bool {
		for _, p := range []string{"at ", "with ", "from "} {
			if q := e + len(p); bytes.HasPrefix(s[e:], []byte(p)) && (durationAt(s, q) || bytes.HasPrefix(s[q:], []byte("a ")) && durationAt(s, q+2)) {
				return true
			}
		}
		return false
	})
}

// hasDigitOrNumberWord reports whether s holds a digit or a spelled-out
// number ("a day" counts: "a" before a unit), the precondition of every
// figure check.
func hasDigitOrNumberWord(s []byte) bool { return numberWordSet.match(s) }

var numberWordSet = func() *anchorSet {
	words := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "one ", "two ", "three ", "four ", "five ", "six ",
		"seven ", "eight ", "nine ", "ten ", "twelve ", "fifteen ", "twenty", "thirty ", "sixty ", "ninety ", "forty",
		"seventy", "fourteen ", "dozen", "eleven", "teen", "fifty", "eighty", "hundred", "thousand", "a day", "a week", "an hour", "a minute", "a month", "a year", "a fortnight",
		" full ", " whole ", " entire ", " single ", "couple of ", "several ", "a few ",
		"for hours", "for days", "for weeks", "for months", "over hours", "over days", "over weeks", "over months",
		"for the next ", "over the next ", "for the following ", "over the following ", "for the coming ", "over the coming ",
		"for the whole ", "for the entire ", "for the full ", "over the whole ", "over the entire "}
	tags := make([]uint64, len(words))
	for i := range tags {
		tags[i] = 1
	}
	return newAnchorSet(words, tags)
}()

// has reports whether s contains any of the words: the cheap test before a
// regular expression that needs one of them.
func has(s []byte, words ...string) bool {
	for _, w := range words {
		if bytes.Contains(s, []byte(w)) {
			return true
		}
	}
	return false
}

// asked reports whether the figure ending at end lies in a question: a
// "?" follows it in the sentence ("Are keys remembered for a week? No,
// replay lasts 24 hours." asks about the week and answers with the
// contract's figure). A question promises nothing.
func asked(sent []byte, end int) bool {
	return bytes.IndexByte(sent[end:], '?') >= 0
}

// mentionedWording reports whether the clause before a figure opens by
// naming what follows as wording not to write ("don't say keys are
// remembered for a week", "stop telling customers retries last an
// hour"): the figure is the wording's, not the page's, as a phrase
// rule's match under the clause analysis' mention reading.
func mentionedWording(sent []byte, start int) bool {
	c := clauseAnalysis()
	return reWordingBefore.Match(c.clauseBefore(sent, start))
}

// reWordingBefore is a verb of saying, stopped or forbidden, opening the
// clause before a figure, up to ten words away.
var reWordingBefore = regexp.MustCompile(`^\W*(please )?(don't|do not|never|stop|quit|avoid)( \w+)? (say|saying|write|writing|tell|telling|claim|claiming|promise|promising|describ\w+)\b( [a-z0-9'-]+){0,10} ?$`)

// quotedWording reports whether sent[start:end] lies inside quotation
// marks that the clause before names as wording said, written or
// removed ('please don't say "keys are kept for 30 days"'): the figure
// is the quote's, not the page's. The clause analysis reads a phrase
// rule's match the same way (quotedPhrase), within a shorter reach.
func quotedWording(sent []byte, start, end int) bool {
	open := bytes.LastIndexByte(sent[:start], '"')
	if open < 0 || bytes.Count(sent[:open], []byte{'"'})%2 != 0 || bytes.IndexByte(sent[end:], '"') < 0 {
		return false
	}
	c := clauseAnalysis()
	return c.quoted.Match(c.clauseBefore(sent, open))
}
