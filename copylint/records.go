package copylint

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// Structured copy states its promises as attributes and values, not as
// sentences: a comparison table ("| Attempts | unlimited |", "| Endpoint |
// Safe to retry | | any | yes |"), a `key: value` line ("Retries:
// unlimited"), a CLI flag's help with its default ("--max-retries N
// number of retries (default: 10)"). No phrase form reads them, and a new
// table is a new wording every time. So the copy lint reads the record
// itself: the attribute (a header cell, a key, a flag and its help) is
// classified by the concept it names (a retry count, the statuses
// retried, retry safety, idempotency, a key being required, duplicates,
// key retention) and its value by the kind of value it is (unbounded, a
// figure, yes or no, none, a duration, statuses), and the pair is judged
// as the sentence "attempts: unlimited" would be, by the same family
// judges and against the same contract values.

// record is one attribute and its value; subject is the row's first cell
// under a table's header ("any", "Idempotency-Key (transfers)"), or "".
// at is the value's offsets in the sentence.
type record struct {
	subject, attr, value string
	at                   [2]int
}

// cell is one table cell's trimmed text and its offsets in the sentence.
type cell struct {
	text       string
	start, end int
}

// tableCells splits a sentence of pipe-separated cells into rows: an empty
// cell or a delimiter cell ("---", ":-:") between two pipes ends a row, as
// a table flattened onto one line writes it ("| A | B | | a | b |").
func tableCells(sent []byte) [][]cell {
	if bytes.Count(sent, []byte("|")) < 3 {
		return nil
	}
	var rows [][]cell
	var row []cell
	flush := func() {
		if len(row) > 0 {
			rows = append(rows, row)
		}
		row = nil
	}
	start := bytes.IndexByte(sent, '|')
	if start < 0 || strings.TrimSpace(string(sent[:start])) != "" {
		return nil // prose before the table: a sentence, not a row
	}
	for start < len(sent) {
		end := bytes.IndexByte(sent[start+1:], '|')
		if end < 0 {
			break
		}
		end += start + 1
		a, b := start+1, end
		for a < b && sent[a] == ' ' {
			a++
		}
		for b > a && sent[b-1] == ' ' {
			b--
		}
		text := string(sent[a:b])
		if text == "" || strings.Trim(text, "-: ") == "" {
			flush()
		} else {
			row = append(row, cell{text, a, b})
		}
		start = end
	}
	flush()
	return rows
}

// tableRecords reads the rows of a table: under a header row, each cell of
// a data row is its column header's value for the row's first cell (an
// entity table: "| Endpoint | Safe to retry | | any | yes |"), and the
// first cell is also the attribute of the others (a key-value table: "|
// Retry policy | SDK | | Attempts | unlimited |"). A single row is a key
// and its value.
func tableRecords(sent []byte) []record {
	rows := tableCells(sent)
	if len(rows) == 0 {
		return nil
	}
	var out []record
	header, data := rows[0], rows[1:]
	if len(rows) == 1 {
		header, data = nil, rows
	}
	for _, r := range data {
		for j := 1; j < len(r); j++ {
			v := r[j]
			out = append(out, record{attr: r[0].text, value: v.text, at: [2]int{v.start, v.end}})
			if j < len(header) {
				out = append(out, record{subject: r[0].text, attr: header[j].text, value: v.text, at: [2]int{v.start, v.end}})
			}
		}
	}
	return out
}

var (
	// reFlagDefault is a CLI flag's help line with its default:
	// "--max-retries n number of retries for each call (default: 10)".
	// The flag itself may be code the phrase rules do not read: its help
	// and default then stand alone ("retry failed requests n times
	// (default: 50)").
	reFlagDefault = regexp.MustCompile(`^(?:(?:-[a-z0-9],? ?)?-{1,2}([a-z0-9][a-z0-9._-]*)((?: [a-z<>\[\]_=.-]+)?) +)?([^()]*?) ?\((?:default|defaults to)[: ] ?([^()]+)\)`)
	// reDefaultsTo is a setting and its default in prose: "maxretries
	// defaults to 8", "the retry limit defaults to unlimited".
	reDefaultsTo = regexp.MustCompile(`^(?:the )?([a-z0-9._ -]{2,40}?) (?:defaults to|default is|is by default|by default is) ([^,;]+?)\.?$`)
	// reKeyDefault is a `key: value` line whose value is a default ("retry
	// limit: defaults to ten tries, the first included"): the default is
	// the value, up to the first comma, semicolon or parenthesis; what
	// follows describes it.
	reKeyDefault = regexp.MustCompile(`^["']?([a-z][a-z0-9 ()/_.-]{1,40}?)["']? ?(?:[:=]| -) ?(?:defaults to|default:?|by default,?) ([^,;()]{1,60}?)\.?(?:[,;(].*)?$`)
	// reKeyValue is a `key: value` line: a short attribute, a colon or an
	// equals sign or a dash, a short value ("retries: unlimited", "idempotency key
	// required: no"), as prose, YAML, TOML or an environment variable
	// writes it ("retry_on: [all]", "MAX_RETRIES=Infinity"); quotes and
	// brackets around either are markup.
	reKeyValue = regexp.MustCompile(`^["']?([a-z][a-z0-9 ()/_.-]{1,40}?)["']?(?: ?[:=]| -) ?([^:={}]{1,40}?)\.?$`)
	// reJSONPair is one member of a JSON object on one line.
	reJSONPair = regexp.MustCompile(`"([a-z][a-z0-9 _.-]{0,40})" ?: ?("[^"]{0,40}"|[a-z0-9.+-]{1,20}|\[[^\]]{0,40}\])`)
)

// valueMarks are the quotes and brackets around a value.
const valueMarks = "\"'[] "

// lineRecords reads a flag's help, a setting's default and a key-value
// line.
func lineRecords(sent []byte) []record {
	// Each shape has its mark: a brace, a default, a colon or an equals
	// sign; a sentence without one is no record, and most are not.
	dflt := bytes.Contains(sent, []byte("default"))
	if len(sent) == 0 || sent[0] != '{' && !dflt && bytes.IndexByte(sent, ':') < 0 && bytes.IndexByte(sent, '=') < 0 && !bytes.Contains(sent, []byte(" - ")) {
		return nil
	}
	s := strings.TrimRight(string(sent), " ")
	if strings.HasPrefix(s, "{") {
		var out []record
		for _, m := range reJSONPair.FindAllStringSubmatchIndex(s, -1) {
			out = append(out, record{attr: s[m[2]:m[3]], value: strings.Trim(s[m[4]:m[5]], valueMarks), at: [2]int{m[4], m[5]}})
		}
		return out
	}
	if !dflt {
		// no flag's help and no setting's default
	} else if m := reFlagDefault.FindStringSubmatchIndex(s); m != nil {
		attr := s[m[6]:m[7]]
		if m[2] >= 0 {
			attr = strings.ReplaceAll(s[m[2]:m[3]], "-", " ") + " " + attr
		}
		return []record{{attr: attr, value: strings.TrimSpace(s[m[8]:m[9]]), at: [2]int{m[8], m[9]}}}
	}
	if !dflt {
		// as above
	} else if m := reDefaultsTo.FindStringSubmatchIndex(s); m != nil {
		return []record{{attr: s[m[2]:m[3]], value: s[m[4]:m[5]], at: [2]int{m[4], m[5]}}}
	} else if m := reKeyDefault.FindStringSubmatchIndex(s); m != nil && strings.Count(s[m[2]:m[3]], " ") <= 4 {
		return []record{{attr: s[m[2]:m[3]], value: strings.Trim(s[m[4]:m[5]], valueMarks), at: [2]int{m[4], m[5]}}}
	}
	if m := reKeyValue.FindStringSubmatchIndex(s); m != nil && strings.Count(s[m[2]:m[3]], " ") <= 4 {
		return []record{{attr: s[m[2]:m[3]], value: strings.Trim(s[m[4]:m[5]], valueMarks), at: [2]int{m[4], m[5]}}}
	}
	return nil
}

// recordsIn lists the records of a sentence of structured copy.
func recordsIn(sent []byte) []record {
	if rs := tableRecords(sent); rs != nil {
		return rs
	}
	return lineRecords(sent)
}

// The concepts an attribute names, and the kinds of values.
var (
	// An attribute about the pacing or time of retries, not their number.
	reAttrTiming = regexp.MustCompile(`delay|backoff|back-off|wait|interval|timeout|jitter|after|elapsed|sleep|base|cap\b|duration|window|period`)
	reAttrStatus = regexp.MustCompile(`status|codes?\b|errors?\b|retry[ -]on|retry on|retried on|retryable|retriable|conditions`)
	reAttrCount  = regexp.MustCompile(`attempt|retr(y|ies|ied|ying)|\btries\b|maxtries|resen|re sen|resubmit|re submit|\brepeat(s|ed|ing)?\b`)
	// reAttrRetries names the retries after the first request.
	reAttrRetries = regexp.MustCompile(`retr(y|ies|ied|ying)|resen|re sen|resubmit|re submit|\brepeat(s|ed|ing)?\b`)
	reAttrSafe    = regexp.MustCompile(`(repeat|resend|re send|replay)[ -]?safe|safe to (retry|resend|re-send|repeat|resubmit)|retry[ -]safe|safe for retries|safely retr|can (be )?retr|retryable|retriable`)
	reAttrIdem    = regexp.MustCompile(`\bidempoten(t|cy)\b`)
	reAttrNeed    = regexp.MustCompile(`\b(required|requires|mandatory|needed|necessary|must send|compulsory)\b`)
	reKeyWord     = regexp.MustCompile(`\bkeys?\b|idempotency[ -]key|idempotency header`)
	reAttrDup     = regexp.MustCompile(`duplicat|double[ -]?(charg|pay|book|bill|spend|send|sent)|\btwice\b|repeat(ed)? (charges?|payments?|payouts?|transfers?|orders?)`)
	reAttrKeep    = regexp.MustCompile(`retention|retained|\bkept\b|\bttl\b|lifetime|life ?span|\bwindow\b|expir|valid for|validity|remembered|stored for|how long`)
	reKeepAbout   = regexp.MustCompile(`\bkeys?\b|idempoten|replay|dedup|results?\b|responses?\b`)

	reUniversal = regexp.MustCompile(`^(any|all|every|each|\*|everything|anything)\b|\b(all|every|each|any) (of (the|our|its) )?([a-z0-9-]+ )?(endpoints?|operations?|requests?|calls?|methods?|routes?|writes?|mutations?)\b|\((all|every|any)\b|\b(entire|whole) (api|platform|surface)\b`)

	// reValUniversal is a value that is itself the universal: "all",
	// "every endpoint", "all operations (v1)".
	reValUniversal = regexp.MustCompile(`^(yes,? )?(all|any|every|each|everything|anything|all of them|every one|each one|every single one|\*)( (the |our )?(endpoints?|operations?|requests?|calls?|routes?|methods?|writes?|mutations?))?( \([^)]*\))?$`)
	reValUnbounded = regexp.MustCompile(`^(unlimited|infinite|infinity|∞|unbounded|endless|limitless|forever|no limit|no cap|no maximum|without limit|until (it )?succeeds?|until success|as many as (needed|it takes)|as many times as (needed|it takes))$`)
	reValYes       = regexp.MustCompile(`^(yes|y|true|✓|✔|✔️|✅|☑|☑️|always|safe|supported|yes,? (always|all|any|every)[a-z ]*)$`)
	reValNo        = regexp.MustCompile(`^(no|n|false|✗|✘|❌|optional|not required|not needed|no \(optional\)|optional \([a-z ]+\))$`)
	reValNone      = regexp.MustCompile(`^(none|zero|0|never|impossible|eliminated|not possible)(,? (ever|guaranteed|period|at all|by construction|by design))?$`)
	reValStatuses  = regexp.MustCompile(`^((all|any|every) ?(errors?|failures?|exceptions?|statuses|status codes|codes|non-2xx( responses)?)?( (raised|thrown|returned|reported|signalled|signaled) (by|from) [a-z ]+)?|([a-z]+ )?[45](\d\d|xx)s?(( and| or|,|, and|/) ?(all )?[45](\d\d|xx)s?)*( (errors?|responses?|statuses))?)$`)
	// A bound that makes a duplicates row honest: "none per key".
	reRecordBound = regexp.MustCompile(`\b(per|same|with (a|the|its)) (idempotency[ -])?key\b|\bwithin\b`)
)

// recordWordSet finds recordWords: an attribute or row without one names
// no concept readRecord judges, and most do not.
var recordWordSet = func() *anchorSet {
	ones := make([]uint64, len(recordWords))
	for i := range ones {
		ones[i] = 1
	}
	return newAnchorSet(recordWords, ones)
}()

// recordClaim is a record read as a claim: the family (or rule) it
// belongs to and the text the judge reads.
type recordClaim struct {
	family string // a phrase family of phrases.yaml, or "" with rule
	rule   string // a rule without a family (copy/absolute-guarantee)
	match  string
	count  int  // a retry or attempt count, when family is "count"
	tries  bool // count counts retries after the first attempt
}

// readRecord classifies one record. sent is its whole sentence, for a
// bound stated beside the table.
func readRecord(r record, sent string) (recordClaim, bool) {
	if !recordWordSet.match([]byte(r.attr)) && !recordWordSet.match([]byte(r.subject)) {
		return recordClaim{}, false // no concept a record is judged by
	}
	// A parenthetical is the attribute's condition, not its concept
	// ("saga + pessimistic locking (3 retries)").
	attr, subj := attrWords.Replace(reParens.ReplaceAllString(r.attr, "")), r.subject
	val := strings.TrimRight(strings.TrimSpace(r.value), ".")
	said := attr + ": " + val
	if subj != "" {
		said = subj + ", " + attr + ": " + val
	}
	switch {
	case reAttrKeep.MatchString(attr) && (reKeepAbout.MatchString(attr) || reKeepAbout.MatchString(subj)) && !reAttrCount.MatchString(attr):
		if loc := reDuration.FindStringIndex(val); loc != nil && loc[0] == 0 && loc[1] == len(val) || reForever.MatchString(val) && len(val) < 25 {
			return recordClaim{family: "key-retention", match: val}, true
		}
	case reAttrDup.MatchString(attr) || reAttrDup.MatchString(subj):
		if reValNone.MatchString(val) && !reRecordBound.MatchString(sent) {
			return recordClaim{rule: RuleAbsoluteGuarantee, match: said}, true
		}
	case reAttrSafe.MatchString(attr):
		if reValYes.MatchString(val) && (reUniversal.MatchString(subj) || reValUniversal.MatchString(val)) {
			return recordClaim{family: "safe-to-retry", match: said}, true
		}
		if reValUniversal.MatchString(val) && subj == "" {
			return recordClaim{family: "safe-to-retry", match: said}, true
		}
	case reAttrIdem.MatchString(attr) && !reKeyWord.MatchString(attr):
		switch {
		case !reValYes.MatchString(val) && !(subj == "" && reValUniversal.MatchString(val)):
		case reMethodOnly.MatchString(subj):
			return recordClaim{family: "method-idempotent", match: subj + " is idempotent"}, true
		case reSpelledOp.MatchString(subj):
			return recordClaim{family: "endpoint-safe-to-retry", match: subj + " is idempotent"}, true
		case reUniversal.MatchString(subj) || subj == "" && reValUniversal.MatchString(val):
			return recordClaim{family: "whole-api-idempotent", match: said}, true
		}
	case reAttrNeed.MatchString(attr) && (reKeyWord.MatchString(attr) || reKeyWord.MatchString(subj)),
		reKeyWord.MatchString(attr) && subj == "" && (val == "optional" || val == "not required" || val == "not needed"):
		if reValNo.MatchString(val) {
			return recordClaim{family: "keyless-retry", match: said}, true
		}
	case reAttrStatus.MatchString(attr) && reAttrCount.MatchString(attr) && !reAttrTiming.MatchString(attr):
		if reValStatuses.MatchString(val) {
			return recordClaim{family: "retry-status", match: "retries " + val}, true
		}
	case reAttrCount.MatchString(attr) && !reAttrTiming.MatchString(attr):
		if reValUnbounded.MatchString(val) {
			return recordClaim{family: "retry-unbounded", match: said}, true
		}
		figure, first := firstCounted(val)
		if v, attempts, ok := countValue(figure); ok {
			tries := !attempts && !reAttemptWord.MatchString(attr) && reAttrRetries.MatchString(attr)
			if first != 0 {
				tries = first < 0
			}
			return recordClaim{family: "count", match: said, count: v, tries: tries}, true
		}
	}
	return recordClaim{}, false
}

// reFirstCounted is a count's parenthetical that says whether the first
// request is among it: "5 (plus the original request)" counts retries
// after it, "3 (the first included)" counts attempts.
var reFirstCounted = regexp.MustCompile(`^(.+?) \((?:(plus|not counting|excluding|on top of|after|besides) (?:the |your )?(?:original|first|initial)(?: request| call| attempt| try)?|(including|incl\.?|counting|with) (?:the |your )?(?:original|first|initial)(?: request| call| attempt| try)?|(?:the |your )?(?:original|first|initial)(?: request| call| attempt| try)? (included|counted|not included|excluded|not counted))\)$`)

// firstCounted splits a count value from its parenthetical about the
// first request: first is -1 when the count leaves the first request out
// (retries), 1 when it takes it in (attempts), 0 when it does not say.
func firstCounted(val string) (figure string, first int) {
	m := reFirstCounted.FindStringSubmatch(val)
	switch {
	case m == nil:
		return val, 0
	case m[2] != "" || m[4] == "not included" || m[4] == "excluded" || m[4] == "not counted":
		return m[1], -1
	default:
		return m[1], 1
	}
}

// reAttemptWord names attempts, which count the first request; retries
// do not.
var reAttemptWord = regexp.MustCompile(`attempt|\btries\b`)

// reParens is a parenthetical.
var reParens = regexp.MustCompile(`\([^)]*\)`)

// attrWords reads a config name as words: "retry_on", "retry.on" and
// "retry-on" are "retry on".
var attrWords = strings.NewReplacer("_", " ", ".", " ", "-", " ")

// reCountValue is a count as a value: a figure with a bound before it and
// what it counts after it ("up to 10", "5 attempts", "at most three
// retries").
var reCountValue = regexp.MustCompile(`^(?:(?:up to|at most|max|maximum|a maximum of|no more than|as many as) )?(.+?)(?: (times|retries|retry attempts|attempts|tries))?$`)

// countValue reads a count value: the figure, and whether it counts
// attempts (the first included) by its own word.
func countValue(val string) (n int, attempts, ok bool) {
	m := reCountValue.FindStringSubmatch(val)
	if m == nil {
		return 0, false, false
	}
	v, ok := proseNumber(m[1])
	if !ok || v != float64(int(v)) || v < 0 || v >= 1e6 {
		return 0, false, false
	}
	return int(v), m[2] == "attempts" || m[2] == "tries" || m[2] == "retry attempts", true
}

// reMethodOnly is a bare method named as a table's row: "POST", "post
// (all endpoints)".
var reMethodOnly = regexp.MustCompile(`^(post|patch)( requests?| methods?| \([^)]*\))?$`)

// recordHits judges the records of sentence s of n and appends the
// findings: each record a family judges as its sentence would be.
func (l *linter) recordHits(n *normText, s span, hits []hit) []hit {
	sent := n.text[s.start:s.end]
	if quotedRecord(sent) && !(sent[0] == '{' && !bytes.ContainsAny(sent, "?")) {
		return hits // a JSON object's quotes are its syntax
	}
	for _, r := range l.ownCells(recordsIn(sent)) {
		cl, ok := readRecord(r, string(sent))
		if !ok {
			continue
		}
		h, ok := l.recordHit(cl)
		if !ok {
			continue
		}
		h.start, h.end = n.sourceSpan(s.start+r.at[0], s.start+r.at[1])
		hits = append(hits, h)
	}
	return hits
}

// reCellLabel is a comparison table's cell labelled with whose value it
// is: "Lumapay: all of them", "Others: some".
var reCellLabel = regexp.MustCompile(`^([a-z0-9][a-z0-9 .&'-]{0,30}?): (\S.*)$`)

// ownCells reads a comparison table's labelled cells: a cell labelled
// with the contract's API name (or "us", "we") is this API's value, the
// label dropped ("| Retry-safe | Lumapay: all of them |" reads "all of
// them"); one labelled with another name is that system's value, and no
// record of this API. Unlabelled cells are kept as they are.
func (l *linter) ownCells(rs []record) []record {
	out := rs[:0]
	for _, r := range rs {
		m := reCellLabel.FindStringSubmatchIndex(r.value)
		if m == nil {
			out = append(out, r)
			continue
		}
		if !l.ownLabel(r.value[m[2]:m[3]]) {
			continue
		}
		r.at[0] += m[4]
		r.value = r.value[m[4]:]
		out = append(out, r)
	}
	return out
}

// ownLabel reports whether a cell's label names this API.
func (l *linter) ownLabel(label string) bool {
	switch label {
	case "us", "we", "ours", "our api", "this api":
		return true
	}
	return l.c != nil && l.c.API.Name != "" && label == strings.ToLower(l.c.API.Name)
}

// quotedRecord reports whether the record is a quote of what not to
// write or a question: a table of banned wording is not a promise.
func quotedRecord(sent []byte) bool {
	return bytes.ContainsAny(sent, "\"?") || has(sent, "don't write", "do not write", "never write", "avoid", "banned", "instead of")
}

// recordHit is the finding of one classified record, or ok false when
// the contract agrees or the family is skipped without a contract.
func (l *linter) recordHit(cl recordClaim) (hit, bool) {
	switch {
	case cl.rule != "":
		for i := range l.rules {
			if r := &l.rules[i]; r.id == cl.rule && r.family == nil {
				return hit{rule: r.id, message: r.message, fix: l.fixes[r.id]}, true
			}
		}
		return hit{}, false
	case cl.family == "count":
		return l.countHit(cl)
	}
	for i := range l.rules {
		r := &l.rules[i]
		if r.family == nil || r.family.name != cl.family {
			continue
		}
		if !r.family.contractFree && l.c == nil {
			return hit{}, false // skipped: ContractFamilies
		}
		h, _, ok := l.judgeClaim(r, cl.match, cl.match)
		return h, ok
	}
	return hit{}, false
}

// countHit judges a retry or attempt count against max_attempts, in the
// words of the attempts check.
func (l *linter) countHit(cl recordClaim) (hit, bool) {
	if l.c == nil || l.c.Retry.MaxAttempts <= 0 {
		return hit{}, false
	}
	max := l.c.Retry.MaxAttempts
	if cl.tries {
		if cl.count+1 == max {
			return hit{}, false
		}
		return hit{rule: RuleContradicts, path: "retry.max_attempts",
			message: fmt.Sprintf("says %d retries (%q; %d attempts), but the contract's max_attempts is %d (the first request and %d retries)", cl.count, cl.match, cl.count+1, max, max-1),
			fix:     fmt.Sprintf("write the contract's figure: at most %d retries after the first request (max_attempts: %d)", max-1, max)}, true
	}
	if cl.count == max {
		return hit{}, false
	}
	return hit{rule: RuleContradicts, path: "retry.max_attempts",
		message: fmt.Sprintf("says %d attempts (%q), but the contract's max_attempts is %d (the first request included)", cl.count, cl.match, max),
		fix:     fmt.Sprintf("write the contract's figure: at most %d attempts, the first request and %d retries", max, max-1)}, true
}

// rowMay reports whether a table row or its header holds a word a table
// names its concept by (tableWords, as the raw pass asks before it parses
// a file for its tables): most rows of most tables hold none.
func rowMay(d *document, r tableRow) bool {
	for _, cs := range [][]span{r.header, r.cells} {
		if len(cs) > 0 && tableWordSet.match(d.mask[cs[0].start:cs[len(cs)-1].end]) {
			return true
		}
	}
	return false
}

// tableWordSet finds tableWords in any case.
var tableWordSet = func() *anchorSet {
	ones := make([]uint64, len(tableWords))
	for i := range ones {
		ones[i] = 1
	}
	return newAnchorSet(tableWords, ones)
}()

// rowHits reads the rows of d's tables as records: each row under its
// header, its cells joined as a flattened table writes them ("| h1 | h2 |
// | c1 | c2 |"), so a table in Markdown or HTML is read as the same
// table on one line is. Offsets map back to the cells.
func (l *linter) rowHits(d *document, sc *scratch, hits []hit) []hit {
	for _, r := range d.rows {
		if !rowMay(d, r) {
			continue
		}
		n := &sc.row
		n.text, n.off, n.mask = n.text[:0], n.off[:0], d.mask
		at := r.cells[0].start
		put := func(s string) {
			for i := range len(s) {
				n.text = append(n.text, s[i])
				n.off = append(n.off, at)
			}
		}
		cells := func(cs []span) {
			for _, c := range cs {
				at = c.start
				put(" ")
				normalize(d.mask, c.start, c.end, d.code, false, &sc.cell)
				n.text = append(n.text, sc.cell.text...)
				n.off = append(n.off, sc.cell.off[:len(sc.cell.text)]...)
				at = c.end
				put(" |")
			}
		}
		put("|")
		if len(r.header) > 0 {
			cells(r.header)
			put(" |")
		}
		cells(r.cells)
		n.off = append(n.off, at)
		hits = l.recordHits(n, span{0, len(n.text)}, hits)
	}
	return hits
}

// rawTables follows a raw file's tables block by block, in order, so
// each row is read once under its header without searching back through
// the file.
type rawTables struct {
	// mdHeader is the header line of the Markdown table of the row last
	// read, which starts at mdRow; mdFirst is the first line of the run
	// of table lines above that row (-1: none), so a later row of the
	// same table finds its header without searching back (see
	// tableLinesFrom).
	mdHeader       []byte
	mdRow, mdFirst int
	mdSeen         bool
	// header and headerText are the header row last read and its text
	// (rawRowText), kept for the rows under it.
	header, headerText []byte
	// htmlHeader is the last row of <th> cells of the open HTML table;
	// rowEnd the end of the last HTML row read.
	htmlHeader []byte
	rowEnd     int
}

// rawTableClaim reads the raw table line b of src: a Markdown row under
// its header line, or the HTML <tr> that holds the line under its
// table's header row. It reports whether the row holds a claim: the raw
// pass's reading of what rowHits reads in the parsed table, so a file is
// parsed for its tables only when one may hold a finding.
func (l *linter) rawTableClaim(src []byte, b span, rt *rawTables) bool {
	line := src[b.start:b.end]
	if md := bytes.TrimLeft(line, " \t"); len(md) > 0 && md[0] == '|' {
		var first int
		if rt.mdSeen && tableLinesFrom(src, rt.mdRow, b.start) {
			if first = rt.mdFirst; first < 0 {
				first = rt.mdRow
			}
		} else {
			first = tableRunAbove(src, b.start)
		}
		rt.mdHeader = headerOfRun(src, first)
		rt.mdSeen, rt.mdRow, rt.mdFirst = true, b.start, first
		return l.rawRowClaim(line, rt.mdHeader, rt)
	}
	if nextTag(line, "table") >= 0 {
		rt.htmlHeader = nil
	}
	if b.start < rt.rowEnd {
		return false // read with its row
	}
	row, end := htmlRowAround(src, b.start, b.end)
	rt.rowEnd = end
	switch {
	case nextTag(row, "td") >= 0:
		return l.rawRowClaim(row, rt.htmlHeader, rt)
	case nextTag(row, "th") >= 0:
		rt.htmlHeader = row
	}
	return false
}

// rawRowClaim reports whether a raw row under its raw header row (or
// nil) holds a claim.
func (l *linter) rawRowClaim(row, header []byte, rt *rawTables) bool {
	if !tableWordSet.match(row) && !tableWordSet.match(header) {
		return false // as rowMay
	}
	text := rawRowText(row)
	if header != nil {
		if len(rt.header) != len(header) || len(header) > 0 && &rt.header[0] != &header[0] {
			rt.header, rt.headerText = header, rawRowText(header)
		}
		text = append(append(append([]byte(nil), rt.headerText...), ' '), text...)
	}
	if len(text) == 0 || quotedRecord(text) {
		return false
	}
	for _, r := range l.ownCells(recordsIn(text)) {
		if cl, ok := readRecord(r, string(text)); ok {
			if _, ok := l.recordHit(cl); ok {
				return true
			}
		}
	}
	return false
}

// lastTag is the start of the last tag named name ("tr", "/tr", "th")
// in src, in either case, or -1; nextTag the first. They scan byte by
// byte from the end they start at, so a near tag is found at once.
func lastTag(src []byte, name string) int {
	for i := len(src) - 1; i >= 0; i-- {
		if src[i] == '<' && tagAt(src, i, name) {
			return i
		}
	}
	return -1
}

func nextTag(src []byte, name string) int {
	for i := 0; i < len(src); i++ {
		if src[i] == '<' && tagAt(src, i, name) {
			return i
		}
	}
	return -1
}

// tagAt reports whether the tag at src[i] ('<') is named name.
func tagAt(src []byte, i int, name string) bool {
	j := i + 1 + len(name)
	return j <= len(src) && bytes.EqualFold(src[i+1:j], []byte(name)) && tagEnds(src, j)
}

// tagEnds reports whether a tag's name ends at src[i] ("<th>", "<th
// class>", not "<thead>").
func tagEnds(src []byte, i int) bool {
	return i >= len(src) || src[i] == '>' || src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '/'
}

// rowReach bounds how far an HTML row is looked for around a line: a row
// is short, and a file of long lines must not be scanned from each.
const rowReach = 4096

// htmlRowAround is the HTML table row (<tr> to </tr>) that holds
// src[start:end], which may span many lines, and its end; the line alone
// outside one.
func htmlRowAround(src []byte, start, end int) ([]byte, int) {
	lo := max(0, start-rowReach)
	tr := lastTag(src[lo:end], "tr")
	if tr < 0 {
		return src[start:end], end
	}
	tr += lo
	close := nextTag(src[tr:min(len(src), end+rowReach)], "/tr")
	switch {
	case close < 0:
		return src[tr:end], end
	case tr+close < start:
		return src[start:end], end // that row closed before the line
	}
	return src[tr : tr+close], max(end, tr+close)
}

// rawRowText is a raw table row as records.go reads a row: lower case,
// cells between pipes (an HTML cell's tags become pipes, other tags and
// &nbsp; spaces), one space between words, and the Markdown marks of
// emphasis and code gone.
func rawRowText(line []byte) []byte {
	out := make([]byte, 0, len(line)+8)
	space := true
	put := func(c byte) {
		if c == ' ' {
			if !space {
				out = append(out, ' ')
			}
			space = true
			return
		}
		out = append(out, c)
		space = false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '<':
			end := bytes.IndexByte(line[i:], '>')
			if end < 0 {
				put(c)
				continue
			}
			if tagAt(line, i, "td") || tagAt(line, i, "th") || tagAt(line, i, "/tr") {
				put(' ')
				put('|')
				put(' ')
			}
			i += end
		case c == '&' && bytes.HasPrefix(line[i:], []byte("&nbsp;")):
			put(' ')
			i += len("&nbsp;") - 1
		case c == '*' || c == '`':
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			put(' ')
		default:
			put(lower(c))
		}
	}
	out = bytes.TrimRight(out, " ")
	if len(out) > 0 && out[0] != '|' {
		out = append([]byte("| "), out...)
	}
	if len(out) > 0 && out[len(out)-1] != '|' {
		out = append(out, " |"...)
	}
	return out
}

// tableRunAbove is the start of the first line of the run of Markdown
// table lines just above the line at at, or -1 when the line above is
// not one.
func tableRunAbove(src []byte, at int) int {
	first := -1
	for end := at - 1; end >= 0; {
		start := bytes.LastIndexByte(src[:end], '\n') + 1
		if !tableLineStart(src[start:end]) {
			break
		}
		first, end = start, start-1
	}
	return first
}

// headerOfRun is the run's first line when a delimiter row follows it,
// else nil.
func headerOfRun(src []byte, first int) []byte {
	if first < 0 {
		return nil
	}
	hdrEnd := first + bytes.IndexByte(src[first:], '\n')
	if hdrEnd < first {
		return nil
	}
	next := src[hdrEnd+1:]
	if k := bytes.IndexByte(next, '\n'); k >= 0 {
		next = next[:k]
	}
	if len(bytes.Trim(next, "|-: \t\r")) != 0 {
		return nil
	}
	return src[first:hdrEnd]
}

// tableLinesFrom reports whether every line from from (a line start) up
// to at is a Markdown table line: then the line at at continues the
// table whose row starts at from. Each call reads only the lines between
// two rows, so following a long table stays linear where searching back
// from every row to its header was quadratic.
func tableLinesFrom(src []byte, from, at int) bool {
	if from >= at {
		return false
	}
	for rest := src[from:at]; len(rest) > 0; {
		k := bytes.IndexByte(rest, '\n')
		if k < 0 {
			k = len(rest)
		}
		if !tableLineStart(rest[:k]) {
			return false
		}
		rest = rest[min(k+1, len(rest)):]
	}
	return true
}

// tableLineStart reports whether line starts, after blanks, with '|'.
func tableLineStart(line []byte) bool {
	l := bytes.TrimLeft(line, " \t")
	return len(l) > 0 && l[0] == '|'
}
