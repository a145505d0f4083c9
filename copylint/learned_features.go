package copylint

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
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

// countsOfTries finds the counts of tries in s: "5 retries", "ten more
// attempts", "3 times", "once". It is the pattern
//
//	\b(?:([0-9]+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|fifty|a hundred|hundred)\s+(?:more\s+|extra\s+|further\s+)?(retries|retry|attempts|attempt|tries|times)|(once|twice|thrice))\b
//
// with regexp's FindAllStringSubmatchIndex results, written out because
// the reader runs it on every sentence it reads (FuzzCountsOfTries
// compares the two).
func countsOfTries(s string) [][]int {
	var out [][]int
	for i := 0; i < len(s); {
		if loc := countOfTriesAt(s, i); loc != nil {
			out = append(out, loc)
			i = loc[1]
			continue
		}
		i = nextWordStart(s, i)
	}
	return out
}

// nextWordStart is the first word start after s[i]: a count of tries
// starts a word (\b), so the bytes between two starts need no look.
func nextWordStart(s string, i int) int {
	for i < len(s) && isWordByte(s[i]) {
		i++
	}
	for i < len(s) && !isWordByte(s[i]) {
		i++
	}
	return i
}

var (
	triesNumbers = []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve", "twenty", "fifty", "a hundred", "hundred"}
	triesMods    = []string{"more", "extra", "further"}
	triesNouns   = []string{"retries", "retry", "attempts", "attempt", "tries", "times"}
	triesTimes   = []string{"once", "twice", "thrice"}
)

// triesNumbersBy and triesTimesBy hold triesNumbers and triesTimes by
// their first byte, in their order: most words start none of them.
var triesNumbersBy, triesTimesBy = byFirstByte(triesNumbers), byFirstByte(triesTimes)

func byFirstByte(words []string) (out [256][]string) {
	for _, w := range words {
		out[w[0]] = append(out[w[0]], w)
	}
	return out
}

// countOfTriesAt is the match of countsOfTries's pattern at s[i], nil
// for none.
func countOfTriesAt(s string, i int) []int {
	if i >= len(s) || !isWordByte(s[i]) || (i > 0 && isWordByte(s[i-1])) {
		return nil
	}

	if numEnd := triesNumberEnd(s, i); numEnd > i {
		j := skipSpace(s, numEnd)
		if j > numEnd {
			k := j
			if w := wordAt(s, j, triesMods); w != "" {
				if m := skipSpace(s, j+len(w)); m > j+len(w) {
					k = m
				}
			}
			if w := wordAt(s, k, triesNouns); w != "" {
				return []int{i, k + len(w), i, numEnd, k, k + len(w), -1, -1}
			}
		}
	}
	if w := wordAt(s, i, triesTimesBy[s[i]]); w != "" {
		return []int{i, i + len(w), -1, -1, -1, -1, i, i + len(w)}
	}
	return nil
}

// triesNumberEnd is the end of the count at s[i] (digits or one of
// triesNumbers), i for none.
func triesNumberEnd(s string, i int) int {
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j > i {
		return j
	}
	for _, w := range triesNumbersBy[s[i]] {
		if strings.HasPrefix(s[i:], w) {
			return i + len(w)
		}
	}
	return i
}

// wordAt is the first of words that s holds at i and that ends a word
// there, "" for none.
func wordAt(s string, i int, words []string) string {
	for _, w := range words {
		if strings.HasPrefix(s[i:], w) && (i+len(w) == len(s) || !isWordByte(s[i+len(w)])) {
			return w
		}
	}
	return ""
}

// skipSpace is the index after the white space (regexp's \s) at s[i].
func skipSpace(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t\n\f\r", s[i]) >= 0 {
		i++
	}
	return i
}

// onceWhen reports whether rest, the text after "once", opens with a
// clause's subject ("once you upgrade", "once the key expires"): "once"
// is then a conjunction that says when, not how many times. It is the
// pattern ^\s+(?:you|we|...)\b written out (FuzzOnceWhen compares the
// two): the regexp's backtracker cleared a bitmap as long as the rest of
// the sentence on every call.
func onceWhen(rest string) bool {
	i := 0
	for i < len(rest) && strings.IndexByte("\t\n\f\r ", rest[i]) >= 0 {
		i++
	}
	j := i
	for j < len(rest) && isWordByte(rest[j]) {
		j++
	}
	if i == 0 {
		return false
	}
	switch rest[i:j] {
	case "you", "we", "they", "it", "i", "he", "she", "the", "your", "our", "their", "its", "this", "that", "these", "those", "there", "each", "every", "all":
		return true
	}
	return false
}

// reAnswer is the first word after a question mark: the answer's
// polarity ("Is every call safe to retry? No: ...").
var reLearnAnswer = regexp.MustCompile(`\?\s*"?(?:(no|not|nope|never|none|nothing)|(yes|yep|yeah|sure|absolutely|all|every|any|always|of course))\b`)

// reAPIKey is an API key: a credential, not an idempotency key.
var reAPIKey = regexp.MustCompile(`\b(?:api|secret|access|publishable) keys?\b`)

// reLearnOp is an operation spelled out, method and path.
var reLearnOp = regexp.MustCompile(`\b(get|head|options|post|put|patch|delete) (/[a-z0-9_{}/.:-]*)`)

// isNegator reports whether a token starts a negation's scope.
func isNegator(w string) bool {
	switch w {
	case "not", "no", "never", "without", "nothing", "none", "neither", "nor", "cannot", "nobody", "nowhere":
		return true
	}
	return strings.HasSuffix(w, "n't")
}

// clauseEnd says whether a token ends a negation's scope: punctuation,
// which is then dropped, or a contrasting conjunction, which is kept.
func clauseEnd(w string) (ends, kept bool) {
	switch w {
	case ".", ",", ";", ":", "!", "?", "(", ")", "--":
		return true, false
	case "but", "however", "although", "though", "while", "whereas":
		return true, true
	}
	return false, false
}

func isHedge(w string) bool {
	switch w {
	case "may", "might", "usually", "typically", "generally", "often", "could", "should", "some", "most",
		"mostly", "probably", "likely", "normally", "ideally", "if", "unless", "only", "within", "up", "until":
		return true
	}
	return false
}

// httpMethods are the methods a word may name, lower case, in the order
// of contractTerms.methods.
var httpMethods = [...]string{"get", "head", "options", "put", "delete", "post", "patch"}

// learnedTokens is the token stream of one normalized sentence: words
// (lemmatised crudely) and the contract-relative tokens, in order, with
// the negation and quote marks applied. Sentence-level marks (a
// question, a duration's relation to max_elapsed) follow the stream.
func learnedTokens(sent string, c *contract.Contract) []string {
	return termsOf(c).tokens(sent)
}

// contractTerms is what the tokenizer looks up in a contract, worked out
// once per reader rather than once per sentence: the nouns of its
// endpoints and how each HTTP method stands.
type contractTerms struct {
	c     *contract.Contract
	nouns map[string]string
	// spelled holds each operation of the form "method /path", lower
	// case, with the first endpoint that has it; others are the
	// operations of any other form. Looking an operation up here rather
	// than scanning every endpoint for each one a sentence names keeps a
	// page of a contract with tens of thousands of endpoints linear.
	spelled map[string]int
	others  []indexedOp
	methods [len(httpMethods)]string // by index in httpMethods: the method's class
	// names are the API's name and the key's header, lower case, with
	// their tokens.
	names []learnName
}

// learnName is a name of the contract's that a sentence may spell out,
// lower case, and the token it becomes.
type learnName struct{ word, tok string }

func termsOf(c *contract.Contract) *contractTerms {
	lastTerms.Lock()
	defer lastTerms.Unlock()
	if t := lastTerms.t; t != nil && t.c == c {
		return t
	}
	t := newTerms(c)
	lastTerms.t = t
	return t
}

// lastTerms holds the terms of the contract a reader was made for last:
// build lints each generated page with a linter of its own, and working
// the terms out for every page made a build of a contract with 50,000
// endpoints spend most of its time there. A loaded contract is not
// changed, so the contract's pointer names its terms.
var lastTerms struct {
	sync.Mutex
	t *contractTerms
}

func newTerms(c *contract.Contract) *contractTerms {
	t := &contractTerms{c: c, nouns: endpointNouns(c), spelled: map[string]int{}}
	for i, e := range c.Endpoints {
		op := strings.ToLower(e.Operation)
		switch _, seen := t.spelled[op]; {
		case seen:
		case spelledOp(op):
			t.spelled[op] = i
		default:
			t.others = append(t.others, indexedOp{op, i})
		}
	}
	for i, m := range httpMethods {
		t.methods[i] = methodClass(c, m)
	}
	for _, n := range []learnName{{strings.ToLower(c.API.Name), tokAPIName}, {strings.ToLower(c.Idempotency.Header), tokKeyHeader}} {
		if len(n.word) >= 2 {
			t.names = append(t.names, n)
		}
	}
	return t
}

// tokens is learnedTokens with the contract's terms at hand.
func (t *contractTerms) tokens(sent string) []string {
	s, extra := t.contractRelative(sent)
	if strings.Contains(s, "?") {
		extra = append(extra, tokQuestion)
	}
	return append(t.markedWords(s), extra...)
}

// contractRelative replaces the figures and names of s by placeholder
// tokens the tokenizer keeps whole, and returns the sentence-level marks
// (a duration against max_elapsed, an answer's polarity).
func (t *contractTerms) contractRelative(s string) (string, []string) {
	c := t.c
	var extra []string
	var rs []learnRepl
	// Each pattern runs only where its literal can occur (the cost is
	// per sentence the gate lets through).
	for _, loc := range findAllIf(strings.Contains(s, " /"), reLearnOp, s) {
		rs = append(rs, learnRepl{loc[0], loc[1], t.opClass(s[loc[0]:loc[1]])})
	}
	var durations [][]int
	if hasDuration([]byte(s)) {
		durations = durationSpans(s)
	}
	for _, loc := range durations {
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
	for _, loc := range countsOfTries(s) {
		if overlapsRepl(rs, loc[0], loc[1]) {
			continue
		}
		if loc[6] >= 0 && s[loc[6]:loc[7]] == "once" && onceWhen(s[loc[7]:]) {
			continue // "once you upgrade": when, not how many times
		}
		if loc[6] >= 0 {
			// once, twice, thrice: times of an action, retries or not.
			n := timesCount[s[loc[6]:loc[7]]]
			rs = append(rs, learnRepl{loc[0], loc[1], countClass(c, n, "times")})
			continue
		}
		tok := countClass(c, s[loc[2]:loc[3]], s[loc[4]:loc[5]])
		// Keep the noun: "COUNT_OVER retries" reads as a count of retries.
		rs = append(rs, learnRepl{loc[0], loc[3], tok})
	}
	for _, loc := range findAllIf(strings.Contains(s, " key") && containsAny(s, apiKeyWords), reAPIKey, s) {
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
	for _, name := range t.names {
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
func (t *contractTerms) markedWords(s string) []string {
	nouns := t.nouns
	words := tokenize(s)
	out := make([]string, 0, len(words)+4)
	neg, quoted := false, false
	for _, w := range words {
		if w == `"` {
			quoted = !quoted
			if quoted {
				out = append(out, tokQuote)
			}
			continue
		}
		if ends, kept := clauseEnd(w); ends {
			neg = false
			if !kept {
				continue
			}
		}
		if isUpperTok(w) {
			// a contract-relative token
		} else if m := slices.Index(httpMethods[:], w); m >= 0 && t.methods[m] != "" {
			w = t.methods[m]
		} else if lw := lemma(w); nouns[lw] != "" {
			w = nouns[lw]
		} else if mayBeFloat(w) && isFloat(w) {
			w = tokNumber
		} else {
			w = lw
		}
		isNeg := isNegator(w)
		if isHedge(w) {
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

// mayBeFloat reports whether strconv.ParseFloat could accept a token:
// one that starts with a digit, or its words for infinity and NaN (a
// token starts with a letter, a digit or punctuation). It spares the
// parse, and its error's allocation, on every other word.
func mayBeFloat(w string) bool {
	switch {
	case w == "":
		return false
	case w[0] >= '0' && w[0] <= '9':
		return true
	}
	return w == "inf" || w == "infinity" || w == "nan"
}

func isFloat(w string) bool {
	_, err := strconv.ParseFloat(w, 64)
	return err == nil
}

// tokenize splits a sentence into words and punctuation; curly quotes
// and single quotes around words read as double quotes.
func tokenize(s string) []string {
	// 0xe2 starts the curly quotes' UTF-8 (and other marks: a superset).
	if strings.IndexByte(s, '\'') >= 0 || strings.IndexByte(s, '`') >= 0 || strings.IndexByte(s, 0xe2) >= 0 {
		s = quoteFolder.Replace(s)
	}
	return scanTokens(s)
}

// scanTokens splits s into the tokens of the pattern
// [A-Z][A-Z_]+|[a-z0-9][a-z0-9'_-]*|[.,;:!?()"]|-- (an upper-case
// placeholder, a word, a punctuation mark, a dash), as a regexp's
// FindAllString would, written out because it runs on every sentence the
// reader reads: at each byte the alternatives are tried in that order,
// and a byte none starts is skipped (FuzzScanTokens compares the two).
func scanTokens(s string) []string {
	out := make([]string, 0, len(s)/4)
	for i := 0; i < len(s); {
		n := tokenAt(s, i)
		if n == 0 {
			i++
			continue
		}
		out = append(out, s[i:i+n])
		i += n
	}
	return out
}

// tokenAt is the length of the token starting at s[i], 0 for none.
func tokenAt(s string, i int) int {
	b := s[i]
	switch {
	case isUpperByte(b) && i+1 < len(s) && (isUpperByte(s[i+1]) || s[i+1] == '_'):
		j := i + 2
		for j < len(s) && (isUpperByte(s[j]) || s[j] == '_') {
			j++
		}
		return j - i
	case b >= 'a' && b <= 'z' || b >= '0' && b <= '9':
		j := i + 1
		for j < len(s) && isWordTail(s[j]) {
			j++
		}
		return j - i
	case strings.IndexByte(`.,;:!?()"`, b) >= 0:
		return 1
	case b == '-' && i+1 < len(s) && s[i+1] == '-':
		return 2
	}
	return 0
}

func isUpperByte(b byte) bool { return b >= 'A' && b <= 'Z' }

// isWordTail is a byte of [a-z0-9'_-].
func isWordTail(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '\'' || b == '_' || b == '-'
}

// quoteFolder is tokenize's quote folding, built once: a Replacer is
// costly to build and safe to share.
var quoteFolder = strings.NewReplacer("\u201c", `"`, "\u201d", `"`, "\u2018", `"`, "\u2019", "'", " '", ` "`, "' ", `" `, "`", " ")

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

// opClass is how the contract marks the operation spelled out in match
// (a method, a space and a path, as reLearnOp finds it): the class of
// the first endpoint whose operation opsIn finds in it.
func (t *contractTerms) opClass(match string) string {
	first := -1
	// An operation of the form "method /path" holds one space, so in a
	// match that holds one (after its method) it can only start at 0; it
	// ends where opsIn lets a match end.
	for end := 1; end <= len(match); end++ {
		if end < len(match) && (isWordByte(match[end]) || match[end] == '/' || match[end] == '{') {
			continue
		}
		if i, ok := t.spelled[match[:end]]; ok && (first < 0 || i < first) {
			first = i
		}
	}
	for _, o := range t.others {
		if (first < 0 || o.index < first) && opAt(match, o.op) {
			first = o.index
		}
	}
	if first < 0 {
		return tokOpUnknown
	}
	return endpointClass(t.c.Endpoints[first], tokOpKeyed, tokOpUnsafe, tokOpRead)
}

// spelledOp reports whether op (lower case) is a method of reLearnOp, a
// space and a path with no other white space. No such method ends
// another, so in a match of reLearnOp, which holds one space, op can
// only be found at 0.
func spelledOp(op string) bool {
	method, path, ok := strings.Cut(op, " ")
	return ok && reLearnOpMethod.MatchString(method) && strings.HasPrefix(path, "/") && !strings.ContainsAny(path, " \t\n\r\f\v")
}

var reLearnOpMethod = regexp.MustCompile(`^(get|head|options|post|put|patch|delete)$`)

// indexedOp is an operation, lower case, and the first endpoint with it.
type indexedOp struct {
	op    string
	index int
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

// timesCount is the count each word of times stands for.
var timesCount = map[string]string{"once": "1", "twice": "2", "thrice": "3"}

// apiKeyWords are reAPIKey's first words.
var apiKeyWords = []string{"api", "secret", "access", "publishable"}

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
