package copylint

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retryspec/retryspec/contract"
)

// family is the kind of promise a phrase rule of phrases.yaml recognises
// (its `family:`): what the sentence asserts, whatever its words. A rule
// with a family is judged against the contract's values by the family's
// row of familyTable; the phrasings stay data.
type family int

const (
	// famRetryUnbounded: the client retries without end ("forever",
	// "until it succeeds"), against retry.max_attempts and max_elapsed.
	famRetryUnbounded family = iota + 1
	// famSafeToRetry: any request is safe to retry, against the endpoints
	// that need a key or are not safe to repeat.
	famSafeToRetry
	// famKeyless: a retry needs no key, against key: required.
	famKeyless
	// famWholeAPI: the whole API is idempotent, against the endpoints.
	famWholeAPI
	// famRetention: keys or results are kept for a stated time, against
	// replay_window and reaper_after.
	famRetention
	// famMethod: POST (or every method) is idempotent, against the
	// endpoints that need a key or are not idempotent.
	famMethod
	// famRetryStatus: the client retries any error, or statuses the
	// contract does not retry, against retry.statuses.
	famRetryStatus
	// famEndpointSafe: a named endpoint is safe to retry ("it's safe to
	// send the archive request again"), against that endpoint's key and
	// effect.
	famEndpointSafe
)

// familyRow is one family: its name in phrases.yaml, whether it can be
// judged without a contract (then the rule's own id, message and fix
// apply when none is loaded), and the judge that reads the contract.
type familyRow struct {
	kind         family
	name         string
	contractFree bool
	// keepsRule: the finding keeps the rule's own id with a contract too,
	// naming the contract value it contradicts. The claim is false whatever
	// the contract says (RFC 9110 makes no POST idempotent; a blanket retry
	// repeats bugs), and readers look for it under that rule.
	keepsRule bool
	// judge returns the contradiction of the claim in match (the matched
	// text, normalized) with the contract, or ok false when the contract
	// agrees with it.
	judge func(c *contract.Contract, match, sentence string) (contradiction, bool)
}

// contradiction is what a family's finding says: the contract value the
// claim contradicts (its path), the message and a fix in the contract's
// words.
type contradiction struct {
	path, message, fix string
	// at, when set, narrows the finding to the figure inside the match
	// (offsets in the match): the finding points at "30 days", as the
	// contract checks do.
	at []int
}

var familyTable = []familyRow{
	{famRetryUnbounded, "retry-unbounded", true, false, judgeRetryUnbounded},
	{famSafeToRetry, "safe-to-retry", false, false, judgeSafeToRetry},
	{famKeyless, "keyless-retry", false, false, judgeKeyless},
	{famWholeAPI, "whole-api-idempotent", false, false, judgeWholeAPI},
	{famRetention, "key-retention", false, false, judgeRetention},
	{famMethod, "method-idempotent", true, true, judgeMethod},
	{famRetryStatus, "retry-status", true, true, judgeRetryStatus},
	{famEndpointSafe, "endpoint-safe-to-retry", false, false, judgeEndpointSafe},
}

func familyByName(name string) (*familyRow, bool) {
	for i := range familyTable {
		if familyTable[i].name == name {
			return &familyTable[i], true
		}
	}
	return nil, false
}

// ContractFamilies names the claim families that need a contract to be
// judged, sorted as the table lists them, with the figures and names of
// copy/contradicts-contract last: what a run without -c skips.
func ContractFamilies() []string {
	var out []string
	for _, f := range familyTable {
		if !f.contractFree {
			out = append(out, f.name)
		}
	}
	return append(out, "contract figures and names")
}

// retryBound is the contract's bound on the retry loop in prose.
func retryBound(r *contract.Retry) string {
	s := fmt.Sprintf("at most %d attempts, the first included (max_attempts: %d)", r.MaxAttempts, r.MaxAttempts)
	if !r.MaxElapsed.IsZero() {
		s += fmt.Sprintf(", within %s (max_elapsed: %s)", contract.HumanDuration(r.MaxElapsed.D), r.MaxElapsed)
	}
	return s
}

func judgeRetryUnbounded(c *contract.Contract, match, _ string) (contradiction, bool) {
	r := &c.Retry
	if r.MaxAttempts < 1 && r.MaxElapsed.IsZero() {
		return contradiction{}, false
	}
	path := "retry.max_attempts"
	if r.MaxAttempts < 1 {
		path = "retry.max_elapsed"
	}
	return contradiction{
		path:    path,
		message: fmt.Sprintf("says the client retries without end (%q), but the contract bounds the loop: %s", match, retryBound(r)),
		fix:     fmt.Sprintf("state the bound: a failed request is retried with backoff, %s, then the error is returned", retryBound(r)),
	}, true
}

// notSafe lists the endpoints a blind retry can repeat: those that need a
// key, and those without one whose effect is not idempotent by itself.
func notSafe(c *contract.Contract) (keyed, unsafe []int) {
	for i, e := range c.Endpoints {
		switch {
		case e.Key == contract.KeyRequired:
			keyed = append(keyed, i)
		case !e.NaturallyIdempotent() || e.UnsafeToRetry != "":
			unsafe = append(unsafe, i)
		}
	}
	return keyed, unsafe
}

// ops names the endpoints idx, at most three and a count of the rest: a
// contract may list thousands, and a finding names a few.
func ops(c *contract.Contract, idx []int) string {
	const most = 3
	var s []string
	for _, i := range idx[:min(len(idx), most)] {
		s = append(s, c.Endpoints[i].Operation)
	}
	out := strings.Join(s, ", ")
	if len(idx) > most {
		out += fmt.Sprintf(" and %d more", len(idx)-most)
	}
	return out
}

// safeFix is the contract's own statement of what may be retried.
func safeFix(c *contract.Contract, keyed, unsafe []int) string {
	var parts []string
	if len(keyed) > 0 {
		parts = append(parts, fmt.Sprintf("retry %s only with the same %s, within %s", ops(c, keyed), keyRef(c), human(c.Idempotency.ReplayWindow.D)))
	}
	if len(unsafe) > 0 {
		parts = append(parts, fmt.Sprintf("do not retry %s blindly: it is not idempotent", ops(c, unsafe)))
	}
	return "name the endpoints: " + strings.Join(parts, "; ")
}

// keyRef names the key as the contract carries it, for fixes: the header
// ("Idempotency-Key"), or under key_in: body the body member ("idempotency key in the
// /idempotency_key member of the JSON body"), never a header the contract
// does not read.
func keyRef(c *contract.Contract) string {
	if c.Idempotency.InBody() {
		return "idempotency key in " + c.Idempotency.KeyPlace()
	}
	return c.Idempotency.Header
}

func endpointPath(c *contract.Contract, i int, field string) string {
	p := fmt.Sprintf("endpoints[%d]", i)
	if field != "" {
		p += "." + field
	}
	return p + " (" + c.Endpoints[i].Operation + ")"
}

func judgeSafeToRetry(c *contract.Contract, match, _ string) (contradiction, bool) {
	return judgeEndpoints(c, "says every request is safe to retry (%q), but in the contract %s", match,
		func(keyed string) string { return keyed + " needs key: required" },
		func(unsafe string) string { return unsafe + " is not safe to retry" }, false)
}

// judgeEndpoints is the judge of a claim about every endpoint: the
// contract contradicts it when an endpoint needs a key or is not
// idempotent by itself; the message names them (the unsafe ones first
// with unsafeFirst) and the path is the first named.
func judgeEndpoints(c *contract.Contract, format, match string, keyedWhy, unsafeWhy func(string) string, unsafeFirst bool) (contradiction, bool) {
	keyed, unsafe := notSafe(c)
	return judgeEndpointsOf(c, keyed, unsafe, format, match, keyedWhy, unsafeWhy, unsafeFirst)
}

// judgeEndpointsOf is judgeEndpoints over the endpoints keyed and unsafe.
func judgeEndpointsOf(c *contract.Contract, keyed, unsafe []int, format, match string, keyedWhy, unsafeWhy func(string) string, unsafeFirst bool) (contradiction, bool) {
	if len(keyed)+len(unsafe) == 0 {
		return contradiction{}, false
	}
	type part struct {
		idx   []int
		why   func(string) string
		field string
	}
	parts := []part{{keyed, keyedWhy, "key"}, {unsafe, unsafeWhy, "effect"}}
	if unsafeFirst {
		parts[0], parts[1] = parts[1], parts[0]
	}
	var why []string
	path := ""
	for _, p := range parts {
		if len(p.idx) == 0 {
			continue
		}
		why = append(why, p.why(ops(c, p.idx)))
		if path == "" {
			path = endpointPath(c, p.idx[0], p.field)
		}
	}
	return contradiction{
		path:    path,
		message: fmt.Sprintf(format, match, strings.Join(why, " and ")),
		fix:     safeFix(c, keyed, unsafe),
	}, true
}

func judgeKeyless(c *contract.Contract, match, _ string) (contradiction, bool) {
	keyed, _ := notSafe(c)
	// A claim that names its endpoints ("the key is now optional on POST
	// /v1/transfers") is judged by those alone: the key may really be
	// optional on another.
	if named := opsIn(c, match); len(named) > 0 {
		keyed = intersect(keyed, named)
	}
	if len(keyed) == 0 {
		return contradiction{}, false
	}
	return contradiction{
		path: endpointPath(c, keyed[0], "key"),
		message: fmt.Sprintf("says a request can be retried without an idempotency key (%q), but the contract says key: required for %s; a retry without it is a new request",
			match, ops(c, keyed)),
		fix: fmt.Sprintf("send the same %s on every retry of %s, within %s", keyRef(c), ops(c, keyed), human(c.Idempotency.ReplayWindow.D)),
	}, true
}

func judgeWholeAPI(c *contract.Contract, match, _ string) (contradiction, bool) {
	return judgeEndpoints(c, "says the whole API is idempotent (%q), but in the contract %s", match,
		func(keyed string) string {
			return keyed + " is idempotent only with " + keyRef(c) + " (key: required)"
		},
		func(unsafe string) string { return unsafe + " is not idempotent" }, true)
}

// forever is the duration of "forever", "permanently".
const forever = time.Duration(1<<63 - 1)

// retentionOf reads the time a retention claim states: a duration, or
// forever.
func retentionOf(match string) (time.Duration, []int, bool) {
	if loc := reDuration.FindStringIndex(match); loc != nil {
		if d, ok := parseProseDuration(match[loc[0]:loc[1]]); ok {
			return d, loc, true
		}
	}
	if loc := reForever.FindStringIndex(match); loc != nil {
		return forever, loc, true
	}
	if m := reVagueSpan.FindStringSubmatchIndex(match); m != nil {
		return vagueSpan(match, m), m[:2], true
	}
	return 0, nil, false
}

// reVagueSpan is a time stated without a figure: a plural unit ("for
// months", "for a few days"), the next unit ("next quarter") or a memory
// that never ends ("never forgets").
var reVagueSpan = regexp.MustCompile(`\b(?:for|over|across|lasting) (?:(?:many|several|a few|some) )?(days|weeks|months|years)\b|\bnext (week|month|quarter|year)\b|\b(never forgets?|forgets? nothing)\b`)

// vagueSpan is the least time reVagueSpan's match m of s states: two of
// a plural unit, one of the next, forever for a memory that never ends;
// a unit as parseProseDuration counts it (a quarter as three months).
func vagueSpan(s string, m []int) time.Duration {
	figure := ""
	switch {
	case m[2] >= 0:
		figure = "2 " + s[m[2]:m[3]]
	case m[4] >= 0:
		figure = "1 " + s[m[4]:m[5]]
		if figure == "1 quarter" {
			figure = "3 months"
		}
	default:
		return forever
	}
	d, _ := parseProseDuration(figure)
	return d
}

func judgeRetention(c *contract.Contract, match, _ string) (contradiction, bool) {
	idem := &c.Idempotency
	if idem.ReplayWindow.IsZero() {
		return contradiction{}, false
	}
	d, at, ok := retentionOf(match)
	if !ok || d == idem.ReplayWindow.D || !idem.ReaperAfter.IsZero() && d == idem.ReaperAfter.D && reReaper.MatchString(match) {
		return contradiction{}, false
	}
	said := match[at[0]:at[1]]
	msg := fmt.Sprintf("says keys or their results are kept %q, but the contract's replay_window is %s (%s)", said, idem.ReplayWindow, human(idem.ReplayWindow.D))
	if !idem.ReaperAfter.IsZero() {
		msg += fmt.Sprintf(" and stored keys are reaped after %s (reaper_after: %s)", human(idem.ReaperAfter.D), idem.ReaperAfter)
	}
	return contradiction{
		path:    "idempotency.replay_window",
		message: msg,
		fix:     fmt.Sprintf("write the contract's figure: a key and its result are honoured for %s (replay_window: %s)%s", human(idem.ReplayWindow.D), idem.ReplayWindow, afterWindow(idem.AfterWindow)),
		at:      at,
	}, true
}

// afterWindow is what the contract says of a key reused after its window.
func afterWindow(a contract.AfterWindow) string {
	switch a {
	case contract.AfterWindowNewRequest:
		return "; a key reused after that starts a new request (after_window: new-request)"
	case contract.AfterWindowError:
		return "; a key reused after that is refused (after_window: error)"
	}
	return ""
}

// judgeMethod judges a claim that a method is idempotent: the methods
// the sentence names (POST, PATCH) or every method. RFC 9110 (RFC 5789
// for PATCH) contradicts it whatever the contract says; the contract's
// endpoints of the claimed methods that need a key or are not idempotent
// (every such endpoint when the claim is universal, or when the contract
// has none of the named methods) are named with the fix in its words.
func judgeMethod(c *contract.Contract, match, sentence string) (contradiction, bool) {
	mc := claimedMethods(sentence)
	verb := "is"
	if mc.plural {
		verb = "are"
	}
	if c == nil {
		return contradiction{message: fmt.Sprintf("says %s %s idempotent; %s: %s is idempotent only where the API makes it so, with a key", mc.subject, verb, mc.reason, mc.one)}, true
	}
	keyed, unsafe := notSafe(c)
	if k, u := ofMethods(c, keyed, mc.methods), ofMethods(c, unsafe, mc.methods); len(k)+len(u) > 0 {
		keyed, unsafe = k, u
	}
	return judgeEndpointsOf(c, keyed, unsafe, "says "+mc.subject+" "+verb+" idempotent (%q), but "+mc.reason+", and in the contract %s", match,
		func(keyed string) string {
			return keyed + " is idempotent only with " + keyRef(c) + " (key: required)"
		},
		func(unsafe string) string { return unsafe + " is not idempotent" }, true)
}

// methodClaim is what a method-idempotency sentence claims: its subject
// as written in a message, whether it is plural, the standard that
// contradicts it, one request of it ("a POST"), and the methods it names
// (nil: every method).
type methodClaim struct {
	subject string
	plural  bool
	reason  string
	one     string
	methods []string
}

// reEveryMethod is a universal over methods ("every HTTP method", "any
// verb", "verbs across the board", "the write methods"); reNamedMethod is
// a method the rule's needs name (a spelled-out operation is judged as
// an endpoint).
var (
	reEveryMethod = regexp.MustCompile(`\b(every|all|each|any)( of (the|our|its))?( [a-z0-9'-]+){0,2}? (http )?(methods?|verbs?)\b|\b(http )?(methods?|verbs?) across the board\b|\bwrite (methods?|verbs?)\b`)
	reNamedMethod = regexp.MustCompile(`\b(post|patch)(?:s|es)?\b`)
)

const (
	rfcPost = "RFC 9110 does not make POST idempotent"
	rfcBoth = "RFC 9110 does not make POST idempotent, nor RFC 5789 PATCH"
)

// claimedMethods reads the claimed methods in the (normalized) sentence:
// a universal over methods first, then POST and PATCH as named; a
// sentence that names neither (an endpoint "like a PUT") claims a POST.
func claimedMethods(sentence string) methodClaim {
	if reEveryMethod.MatchString(sentence) {
		return methodClaim{subject: "every HTTP method", reason: rfcBoth, one: "a POST or a PATCH"}
	}
	var named []string
	for _, m := range reNamedMethod.FindAllStringSubmatch(sentence, -1) {
		if up := strings.ToUpper(m[1]); !slices.Contains(named, up) {
			named = append(named, up)
		}
	}
	switch {
	case len(named) == 2:
		return methodClaim{subject: named[0] + " and " + named[1], plural: true, reason: rfcBoth, one: "a POST or a PATCH", methods: named}
	case len(named) == 1 && named[0] == "PATCH":
		return methodClaim{subject: "PATCH", reason: "RFC 5789 makes PATCH neither safe nor idempotent", one: "a PATCH", methods: named}
	}
	return methodClaim{subject: "POST", reason: rfcPost, one: "a POST", methods: []string{"POST"}}
}

// ofMethods keeps the endpoints idx whose operation has one of methods
// (all of them for nil methods).
func ofMethods(c *contract.Contract, idx []int, methods []string) []int {
	if methods == nil {
		return idx
	}
	var out []int
	for _, i := range idx {
		if slices.Contains(methods, c.Endpoints[i].Method) {
			out = append(out, i)
		}
	}
	return out
}

// reStatus is one status or class a retry claim names ("422", "5xx").
var reStatus = regexp.MustCompile(`\b[45](\d\d|xx)s?\b`)

// notRetried lists the statuses and classes the match names that the
// contract's retry policy does not retry, and whether the match names
// any status at all. A class ("5xx") is retried only when the contract
// retries the class as a whole.
func notRetried(r *contract.Retry, match string) (out []string, named bool) {
	return notRetriedCounted(r, match, "")
}

// notRetriedCounted is notRetried with the rest of the match's clause
// (tail): a count stated there, after a dash or a comma, counts the
// match's retries too ("a 500 is retried just like a 503 - up to three
// attempts").
func notRetriedCounted(r *contract.Retry, match, tail string) (out []string, named bool) {
	for _, s := range reStatus.FindAllString(match, -1) {
		named = true
		s = strings.TrimSuffix(s, "s")
		if strings.HasSuffix(s, "xx") {
			if !r.AnyStatus && !retriesClass(r, int(s[0]-'0')) {
				out = append(out, s)
			}
			continue
		}
		n, _ := strconv.Atoi(s)
		if !r.RetriesStatus(n) || slices.Contains(r.CautiousStatuses, n) && (retriedMoreThanOnce(match) || countedMoreThanOnce(tail)) {
			out = append(out, s)
		}
	}
	return out, named
}

// reRetryCount is a count of retries the match states after its verb
// ("retried up to three times"), or a loop ("repeatedly", "until ...").
var reRetryCount = regexp.MustCompile(`\b([a-z0-9-]+) (times|retries|attempts)\b|\b(repeatedly|over and over|until)\b`)

// reRetryVerb is the verb of a status claim; its count comes after it.
var reRetryVerb = regexp.MustCompile(`\b(retries|retried|retrying|tries again|tried again|trying again|re-?sends|re-?sent)\b`)

// retriedMoreThanOnce reports whether the match says a status is retried
// more than once, after its last verb of retrying ("a 500 is retried up
// to three times"; "500 tokens, 35 times the cost of retrying" counts
// nothing): more than one time or retry, more than two attempts (the
// first counts), or a loop. A cautious status is retried at most once.
func retriedMoreThanOnce(match string) bool {
	locs := reRetryVerb.FindAllStringIndex(match, -1)
	if locs == nil {
		return false
	}
	m := reRetryCount.FindStringSubmatch(match[locs[len(locs)-1][1]:])
	switch {
	case m == nil:
		return false
	case m[3] != "":
		return true
	}
	v, ok := proseNumber(m[1])
	if m[1] == "once" || !ok {
		return false
	}
	if m[2] == "attempts" {
		return v > 2
	}
	return v > 1
}

// countedMoreThanOnce reports whether the clause after a status claim
// (up to its end, at most 60 bytes) opens with, or after a dash or a
// comma states, a count of more than one retry (more than two attempts).
func countedMoreThanOnce(tail string) bool {
	if i := strings.IndexAny(tail, ".;"); i >= 0 {
		tail = tail[:i]
	}
	if len(tail) > 60 || !strings.Contains(tail, "time") && !strings.Contains(tail, "retries") && !strings.Contains(tail, "attempts") {
		return false
	}
	m := reCountedAfter.FindStringSubmatch(tail)
	if m == nil {
		return false
	}
	v, ok := proseNumber(m[1])
	if !ok {
		return false
	}
	if m[2] == "attempts" {
		return v > 2
	}
	return v > 1
}

// reCountedAfter is a count of retries or attempts in a clause's tail.
var reCountedAfter = regexp.MustCompile(`^[^,]{0,30}?(?:, | - | \()(?:up to |as many as |a maximum of |at most |max(?:imum)? )?([a-z0-9-]+) (times|retries|attempts)\b`)

func retriesClass(r *contract.Retry, class int) bool {
	for _, s := range r.Statuses {
		if s.Class && s.Code == class {
			return true
		}
	}
	return false
}

// retriedInWords is the contract's retry policy in prose: its statuses,
// the cautious ones, the connection errors.
func retriedInWords(r *contract.Retry) string {
	if r.AnyStatus {
		return "every status (statuses: any)"
	}
	s := contract.StatusList(r.Statuses) + " (retry.statuses)"
	if len(r.CautiousStatuses) > 0 {
		var c []string
		for _, n := range r.CautiousStatuses {
			c = append(c, strconv.Itoa(n))
		}
		s += ", " + strings.Join(c, ", ") + " at most once (retry.cautious_statuses)"
	}
	if len(r.ConnectionErrors) > 0 {
		s += " and connection " + strings.Join(r.ConnectionErrors, ", ") + " (retry.connection_errors)"
	}
	return s
}

// judgeRetryStatus judges a claim that the client retries any error, or
// the statuses it names, against retry.statuses. Without a contract (nil)
// the default policy stands in: no policy retries every error.
func judgeRetryStatus(c *contract.Contract, match, sentence string) (contradiction, bool) {
	r := contract.DefaultRetry()
	if c != nil {
		r = c.Retry
	}
	if r.AnyStatus {
		return contradiction{}, false
	}
	tail := ""
	if i := strings.Index(sentence, match); i >= 0 && match != "" {
		tail = sentence[i+len(match):]
	}
	bad, named := notRetriedCounted(&r, match, tail)
	said := "any error"
	if named {
		if len(bad) == 0 {
			return contradiction{}, false
		}
		said = strings.Join(bad, ", ")
	}
	if c == nil {
		if !named {
			return contradiction{}, true // the rule's own message and fix
		}
		return contradiction{
			message: fmt.Sprintf("says the client retries %s (%q); a retry policy retries throttling and transient statuses (by default %s), and any other error fails the same way every time", said, match, retriedInWords(&r)),
			fix:     fmt.Sprintf("name what is retried: %s, with backoff, %s; every other error is returned", retriedInWords(&r), retryBound(&r)),
		}, true
	}
	return contradiction{
		path:    "retry.statuses",
		message: fmt.Sprintf("says the client retries %s (%q), but the contract retries only %s; other errors are returned at once, since a retry fails the same way", said, match, retriedInWords(&r)),
		fix:     fmt.Sprintf("name what is retried: %s, with backoff, %s; every other error is returned", retriedInWords(&r), retryBound(&r)),
	}, true
}

// endpointNoun is the word a page calls an endpoint by: the last segment
// of its path that is neither a parameter nor a version ("archive" of
// POST /v1/reports/{id}/archive, "transfer" of POST /v1/transfers), cut
// to its stem so "archiving", "transfers" and "transferred" match it.
func endpointNoun(op string) string {
	_, path, _ := strings.Cut(op, " ")
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i := len(segs) - 1; i >= 0; i-- {
		w := strings.ToLower(segs[i])
		if w == "" || strings.ContainsAny(w, "{}:") || reVersion.MatchString(w) {
			continue
		}
		w = strings.TrimSuffix(w, "s")
		if len(w) > 4 {
			w = strings.TrimSuffix(w, "e")
		}
		return w
	}
	return ""
}

var reVersion = regexp.MustCompile(`^v\d+$`)

// opsIn lists the endpoints whose operation the match spells out
// ("post /v1/transfers"), method and path, ending where the path ends.
func opsIn(c *contract.Contract, match string) []int {
	var out []int
	for i, e := range c.Endpoints {
		if opAt(match, strings.ToLower(e.Operation)) {
			out = append(out, i)
		}
	}
	return out
}

// opAt reports whether match spells out op (lower case), ending where a
// path cannot go on.
func opAt(match, op string) bool {
	for k := 0; ; {
		j := strings.Index(match[k:], op)
		if j < 0 {
			return false
		}
		end := k + j + len(op)
		if end == len(match) || !(isWordByte(match[end]) || match[end] == '/' || match[end] == '{') {
			return true
		}
		k = end
	}
}

// reSpelledOp is a method and a path in a match.
var reSpelledOp = regexp.MustCompile(`\b(get|head|options|post|put|patch|delete) /`)

// intersect keeps the indexes of a that are in b.
func intersect(a, b []int) []int {
	var out []int
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// namedIn lists the endpoints of idx whose noun the match names.
func namedIn(c *contract.Contract, idx []int, match string) []int {
	var out []int
	for _, i := range idx {
		n := endpointNoun(c.Endpoints[i].Operation)
		if n == "" {
			continue
		}
		if wordPrefixIn(match, n) {
			out = append(out, i)
		}
	}
	return out
}

// judgeEndpointSafe judges a claim that retrying a named endpoint is
// safe: the contract contradicts it when that endpoint needs a key or is
// not safe to retry. A match that names no such endpoint is no claim of
// this family (the universal claims are safe-to-retry's).
func judgeEndpointSafe(c *contract.Contract, match, _ string) (contradiction, bool) {
	keyed, unsafe := notSafe(c)
	// An operation spelled out ("POST /v1/transfers") names that endpoint
	// alone, or none of the contract's; a noun may name others that share
	// it (GET /v1/transfers/{id}).
	if reSpelledOp.MatchString(match) {
		named := opsIn(c, match)
		keyed, unsafe = intersect(keyed, named), intersect(unsafe, named)
	} else {
		keyed, unsafe = namedIn(c, keyed, match), namedIn(c, unsafe, match)
	}
	if len(keyed)+len(unsafe) == 0 {
		return contradiction{}, false
	}
	return judgeNamed(c, match, keyed, unsafe)
}

func judgeNamed(c *contract.Contract, match string, keyed, unsafe []int) (contradiction, bool) {
	var why []string
	path := ""
	if len(unsafe) > 0 {
		why = append(why, ops(c, unsafe)+" is not safe to retry")
		path = endpointPath(c, unsafe[0], "effect")
		if w := c.Endpoints[unsafe[0]].UnsafeToRetry; w != "" {
			why[0] += " (" + w + ")"
		}
	}
	if len(keyed) > 0 {
		why = append(why, ops(c, keyed)+" needs key: required")
		if path == "" {
			path = endpointPath(c, keyed[0], "key")
		}
	}
	return contradiction{
		path:    path,
		message: fmt.Sprintf("says retrying this endpoint is safe (%q), but in the contract %s", match, strings.Join(why, " and ")),
		fix:     safeFix(c, keyed, unsafe),
	}, true
}

// wordPrefixIn reports whether a word of s begins with stem.
func wordPrefixIn(s, stem string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], stem)
		if j < 0 {
			return false
		}
		j += i
		if j == 0 || !isWordByte(s[j-1]) {
			return true
		}
		i = j + 1
	}
}
