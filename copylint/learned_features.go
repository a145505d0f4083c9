package copylint

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/retryspec/retryspec/contract"
)

// The learned reader's features (issue 29): the words of a sentence with
// everything that names this contract or its figures replaced by how it
// stands to the contract, so what the model learns from the payouts
// example's sentences carries over to any contract. "30 days" becomes a
// duration over the replay window, "POST /v1/transfers" an operation that
// needs a key, "Lumapay" the API's name. Words after a negator carry a
// NOT_ mark up to the clause's end; a question, a hedge and a quoted
// phrase are marked too.

// Feature names of the contract-relative tokens. Upper case: a word of
// the sentence is always lower case (the normalized text).
const (
	tokDurOverWindow   = "DUR_OVER_WINDOW"
	tokDurWindow       = "DUR_WINDOW"
	tokDurUnderWindow  = "DUR_UNDER_WINDOW"
	tokDurOverElapsed  = "DUR_OVER_ELAPSED"
	tokDurWithinElapse = "DUR_WITHIN_ELAPSED"
	tokCountOver       = "COUNT_OVER"
	tokCountWithin     = "COUNT_WITHIN"
	tokStatusRetried   = "STATUS_RETRIED"
	tokStatusNot       = "STATUS_NOT_RETRIED"
	tokOpKeyed         = "OP_KEYED"
	tokOpUnsafe        = "OP_UNSAFE"
	tokOpRead          = "OP_READ"
	tokOpUnknown       = "OP_UNKNOWN"
	tokNounKeyed       = "NOUN_KEYED"
	tokNounUnsafe      = "NOUN_UNSAFE"
	tokNounRead        = "NOUN_READ"
	tokMethodCare      = "METHOD_NEEDS_CARE"
	tokMethodIdem      = "METHOD_IDEMPOTENT"
	tokMethodNotIdem   = "METHOD_NOT_IDEMPOTENT"
	tokAPIName         = "API_NAME"
	tokKeyHeader       = "KEY_HEADER"
	tokNumber          = "NUM"
	tokQuestion        = "QUESTION"
	tokHedge           = "HEDGE"
	tokQuote           = "QUOTE"
	tokAnswerNo        = "ANSWER_NO"
	tokAnswerYes       = "ANSWER_YES"
	tokAPIKey          = "API_KEY_CREDENTIAL"
	tokNegPrefix       = "NOT_"
	tokQuotePrefix     = "Q_"
)

// reLearnCount is a count of tries: "5 retries", "ten attempts", "3 times".
var reLearnCount = regexp.MustCompile(`\b(?:([0-9]+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|fifty|a hundred|hundred)\s+(?:more\s+|extra\s+|further\s+)?(retries|retry|attempts|attempt|tries|times)|(once|twice|thrice))\b`)

// reOnceWhen follows "once" used as a conjunction ("once you upgrade",
// "once the key expires"): a clause's subject, so "once" says when, not
// how many times.
var reOnceWhen = regexp.MustCompile(`^\s+(?:you|we|they|it|i|he|she|the|your|our|their|its|this|that|these|those|there|each|every|all)\b`)

// reAnswer is the first word after a question mark: the answer's
// polarity ("Is every call safe to retry? No: ...").
var reLearnAnswer = regexp.MustCompile(`\?\s*"?(?:(no|not|nope|never|none|nothing)|(yes|yep|yeah|sure|absolutely|all|every|any|always|of course))\b`)

// reAPIKey is an API key: a credential, not an idempotency key.
var reAPIKey = regexp.MustCompile(`\b(?:api|secret|access|publishable) keys?\b`)

// reLearnOp is an operation spelled out, method and path.
var reLearnOp = regexp.MustCompile(`\b(get|head|options|post|put|patch|delete) (/[a-z0-9_{}/.:-]*)`)

var reLearnWord = regexp.MustCompile(`[a-z0-9][a-z0-9'_-]*|[.,;:!?()"]|--`)

// negators start a negation's scope; clauseEnds end it with punctuation.
var negators = map[string]bool{
	"not": true, "no": true, "never": true, "without": true, "nothing": true, "none": true,
	"neither": true, "nor": true, "cannot": true, "nobody": true, "nowhere": true,
}

var clauseEnds = map[string]bool{
	".": true, ",": true, ";": true, ":": true, "!": true, "?": true, "(": true, ")": true, "--": true,
	"but": true, "however": true, "although": true, "though": true, "while": true, "whereas": true,
}

var hedges = map[string]bool{
	"may": true, "might": true, "usually": true, "typically": true, "generally": true, "often": true,
	"could": true, "should": true, "some": true, "most": true, "mostly": true, "probably": true,
	"likely": true, "normally": true, "ideally": true, "if": true, "unless": true, "only": true,
	"within": true, "up": true, "until": true,
}

// learnedTokens is the token stream of one normalized sentence: words
// (lemmatised crudely) and the contract-relative tokens, in order, with
// the negation and quote marks applied. Sentence-level marks (a
// question, a duration's relation to max_elapsed) follow the stream.
func learnedTokens(sent string, c *contract.Contract) []string {
	s, extra := contractRelative(sent, c)
	if strings.Contains(s, "?") {
		extra = append(extra, tokQuestion)
	}
	return append(markedWords(s, c), extra...)
}

// contractRelative replaces the figures and names of s by placeholder
// tokens the tokenizer keeps whole, and returns the sentence-level marks
// (a duration against max_elapsed, an answer's polarity).
func contractRelative(s string, c *contract.Contract) (string, []string) {
	var extra []string
	var rs []learnRepl
	// Each pattern runs only where its literal can occur (the cost is
	// per sentence the gate lets through).
	hasDigit := strings.ContainsAny(s, "0123456789")
	for _, loc := range findAllIf(strings.Contains(s, " /"), reLearnOp, s) {
		rs = append(rs, learnRepl{loc[0], loc[1], opClass(c, s[loc[0]:loc[1]])})
	}
	for _, loc := range findAllIf(hasDigit || containsAny(s, durationWords), reDuration, s) {
		if overlapsRepl(rs, loc[0], loc[1]) {
			continue
		}
		d, ok := parseProseDuration(s[loc[0]:loc[1]])
		if !ok {
			continue
		}
		tok, el := durationClass(c, d)
		rs = append(rs, learnRepl{loc[0], loc[1], tok})
		if el != "" {
			extra = append(extra, el)
		}
	}
	for _, loc := range findAllIf(containsAny(s, countWords), reLearnCount, s) {
		if overlapsRepl(rs, loc[0], loc[1]) {
			continue
		}
		if loc[6] >= 0 && s[loc[6]:loc[7]] == "once" && reOnceWhen.MatchString(s[loc[7]:]) {
			continue // "once you upgrade": when, not how many times
		}
		if loc[6] >= 0 {
			// once, twice, thrice: times of an action, retries or not.
			n := map[string]string{"once": "1", "twice": "2", "thrice": "3"}[s[loc[6]:loc[7]]]
			rs = append(rs, learnRepl{loc[0], loc[1], countClass(c, n, "times")})
			continue
		}
		tok := countClass(c, s[loc[2]:loc[3]], s[loc[4]:loc[5]])
		// Keep the noun: "COUNT_OVER retries" reads as a count of retries.
		rs = append(rs, learnRepl{loc[0], loc[3], tok})
	}
	for _, loc := range findAllIf(strings.Contains(s, " key"), reAPIKey, s) {
		if !overlapsRepl(rs, loc[0], loc[1]) {
			rs = append(rs, learnRepl{loc[0], loc[1], tokAPIKey})
		}
	}
	for _, m := range findAllIf(strings.Contains(s, "?"), reLearnAnswer, s) {
		if m[2] >= 0 {
			extra = append(extra, tokAnswerNo)
		} else {
			extra = append(extra, tokAnswerYes)
		}
	}
	for _, loc := range findAllIf(strings.ContainsAny(s, "45"), reStatus, s) {
		if overlapsRepl(rs, loc[0], loc[1]) {
			continue
		}
		rs = append(rs, learnRepl{loc[0], loc[1], statusClass(c, s[loc[0]:loc[1]])})
	}
	for _, name := range []struct{ word, tok string }{{strings.ToLower(c.API.Name), tokAPIName}, {strings.ToLower(c.Idempotency.Header), tokKeyHeader}} {
		if len(name.word) < 2 {
			continue
		}
		for i := 0; ; {
			j := strings.Index(s[i:], name.word)
			if j < 0 {
				break
			}
			j += i
			if !overlapsRepl(rs, j, j+len(name.word)) {
				rs = append(rs, learnRepl{j, j + len(name.word), name.tok})
			}
			i = j + len(name.word)
		}
	}
	// Apply the replacements right to left so offsets hold.
	sortRepl(rs)
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		s = s[:r.start] + " " + r.tok + " " + s[r.end:]
	}
	return s, extra
}

// markedWords tokenizes s: lemmas, an endpoint's noun and a method by
// their class, NOT_ after a negator up to the clause's end, Q_ inside
// quotes, HEDGE before a hedge.
func markedWords(s string, c *contract.Contract) []string {
	nouns := endpointNouns(c)
	var out []string
	neg, quoted := false, false
	for _, w := range tokenize(s) {
		switch {
		case w == `"`:
			quoted = !quoted
			if quoted {
				out = append(out, tokQuote)
			}
			continue
		case clauseEnds[w]:
			neg = false
			if w != "but" && w != "however" && w != "although" && w != "though" && w != "while" && w != "whereas" {
				continue
			}
		}
		if isUpperTok(w) {
			// a contract-relative token
		} else if m := methodClass(c, w); m != "" {
			w = m
		} else if k, ok := nouns[lemma(w)]; ok {
			w = k
		} else {
			if _, err := strconv.ParseFloat(w, 64); err == nil {
				w = tokNumber
			} else {
				w = lemma(w)
			}
		}
		isNeg := negators[w] || strings.HasSuffix(w, "n't")
		if hedges[w] {
			out = append(out, tokHedge)
		}
		switch {
		case quoted:
			w = tokQuotePrefix + w
		case neg:
			w = tokNegPrefix + w
		}
		out = append(out, w)
		if isNeg {
			neg = true
		}
	}
	return out
}

// tokenize splits a sentence into words and punctuation; curly quotes
// and single quotes around words read as double quotes.
func tokenize(s string) []string {
	s = strings.NewReplacer("\u201c", `"`, "\u201d", `"`, "\u2018", `"`, "\u2019", "'", " '", ` "`, "' ", `" `, "`", " ").Replace(s)
	return reLearnWordAny.FindAllString(s, -1)
}

// reLearnWordAny also keeps the upper-case placeholders whole.
var reLearnWordAny = regexp.MustCompile(`[A-Z][A-Z_]+|` + reLearnWord.String())

func isUpperTok(w string) bool { return w != "" && w[0] >= 'A' && w[0] <= 'Z' }

// lemma cuts a word to a crude stem, so "retries", "retried" and
// "retrying" are one feature.
func lemma(w string) string {
	w = strings.TrimSuffix(w, "'s")
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 5 && strings.HasSuffix(w, "ied"):
		return w[:len(w)-3] + "y"
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		return w[:len(w)-2]
	case len(w) > 4 && strings.HasSuffix(w, "es") && !strings.HasSuffix(w, "ses"):
		return w[:len(w)-1]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// methodClass is how an HTTP method named alone stands in the contract:
// some endpoint of that method needs a key or is unsafe to repeat, or
// none does and RFC 9110 makes it idempotent or not. "" for any other
// word.
func methodClass(c *contract.Contract, w string) string {
	m := strings.ToUpper(w)
	switch m {
	case "GET", "HEAD", "OPTIONS", "PUT", "DELETE", "POST", "PATCH":
	default:
		return ""
	}
	for _, e := range c.Endpoints {
		if e.Method == m && endpointClass(e, tokOpKeyed, tokOpUnsafe, tokOpRead) != tokOpRead {
			return tokMethodCare
		}
	}
	if m == "POST" || m == "PATCH" {
		return tokMethodNotIdem
	}
	return tokMethodIdem
}

// opClass is how the contract marks the operation spelled out in op.
func opClass(c *contract.Contract, op string) string {
	idx := opsIn(c, op)
	if len(idx) == 0 {
		return tokOpUnknown
	}
	return endpointClass(c.Endpoints[idx[0]], tokOpKeyed, tokOpUnsafe, tokOpRead)
}

func endpointClass(e contract.Endpoint, keyed, unsafe, read string) string {
	switch {
	case e.Key == contract.KeyRequired:
		return keyed
	case !e.NaturallyIdempotent() || e.UnsafeToRetry != "":
		return unsafe
	}
	return read
}

// endpointNouns maps the word a page calls each endpoint by to its class;
// a noun two endpoints share takes the first that needs care (keyed, then
// unsafe).
func endpointNouns(c *contract.Contract) map[string]string {
	out := map[string]string{}
	rank := map[string]int{tokNounKeyed: 3, tokNounUnsafe: 2, tokNounRead: 1}
	for _, e := range c.Endpoints {
		n := endpointNoun(e.Operation)
		if len(n) < 4 {
			continue
		}
		cls := endpointClass(e, tokNounKeyed, tokNounUnsafe, tokNounRead)
		for _, w := range []string{n, lemma(n), lemma(n + "s"), lemma(n + "ing"), lemma(n + "ed")} {
			if rank[cls] > rank[out[w]] {
				out[w] = cls
			}
		}
	}
	return out
}

// durationClass places d against the replay window, and against
// max_elapsed as a sentence-level mark.
func durationClass(c *contract.Contract, d time.Duration) (window, elapsed string) {
	w := c.Idempotency.ReplayWindow.D
	switch {
	case w == 0:
		window = tokNumber
	case d > w:
		window = tokDurOverWindow
	case d == w:
		window = tokDurWindow
	default:
		window = tokDurUnderWindow
	}
	if e := c.Retry.MaxElapsed.D; e > 0 {
		if d > e {
			elapsed = tokDurOverElapsed
		} else {
			elapsed = tokDurWithinElapse
		}
	}
	return window, elapsed
}

// countClass places a count of tries against max_attempts, which counts
// the first request: "3 retries" is 4 attempts.
func countClass(c *contract.Contract, num, noun string) string {
	v, ok := proseNumber(num)
	if !ok {
		switch num {
		case "hundred", "a hundred":
			v, ok = 100, true
		}
	}
	max := c.Retry.MaxAttempts
	if !ok || max < 1 {
		return tokNumber
	}
	attempts := int(v)
	if strings.HasPrefix(noun, "retr") {
		attempts++
	}
	if attempts > max {
		return tokCountOver
	}
	return tokCountWithin
}

// statusClass is whether the contract retries a status ("503", "5xx").
func statusClass(c *contract.Contract, s string) string {
	if bad, _ := notRetried(&c.Retry, s); len(bad) > 0 {
		return tokStatusNot
	}
	return tokStatusRetried
}

// findAllIf is re's submatch indexes in s when may holds, else none.
func findAllIf(may bool, re *regexp.Regexp, s string) [][]int {
	if !may {
		return nil
	}
	return re.FindAllStringSubmatchIndex(s, -1)
}

// The words without which reDuration and reLearnCount cannot match (a
// figure in digits is caught by the digit test).
var (
	durationWords = []string{"second", "minute", "hour", "day", "week", "month", "year", "fortnight"}
	countWords    = []string{"retr", "attempt", "tries", "times", "once", "twice", "thrice"}
)

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// learnRepl is one span of the sentence replaced by a token.
type learnRepl struct {
	start, end int
	tok        string
}

func overlapsRepl(rs []learnRepl, a, b int) bool {
	for _, r := range rs {
		if a < r.end && r.start < b {
			return true
		}
	}
	return false
}

func sortRepl(rs []learnRepl) {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].start < rs[j].start })
}

// learnedFeatures are the features of a sentence: the tokens (unigrams)
// and each pair of neighbours (bigrams), deduplicated, in first-seen
// order.
func learnedFeatures(sent string, c *contract.Contract) []string {
	toks := learnedTokens(sent, c)
	seen := map[string]bool{}
	var out []string
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	for i, t := range toks {
		add(t)
		if i > 0 {
			add(toks[i-1] + " " + t)
		}

	}
	return out
}
