package copylint

import (
	"bytes"
	"regexp"
	"strings"
)

// A comparison names a rival and then the page's own side in a second
// clause that leans on the first: by ellipsis ("Stripe makes you send a
// key to retry safely; Lumapay doesn't") or by a pronoun ("Stripe prunes
// keys after a day; Lumapay keeps replaying them for three days"). The
// second clause alone promises nothing a rule can read, so it is read
// with what it leaves out filled in from the first, and a claim found
// there is reported on the second clause.

// reCompare splits a comparison: the first clause (a subject of one to
// three words and its verb), the joint, and the second clause.
var reCompare = regexp.MustCompile(`^(?:unlike [^,;]+, )?(?:[a-z0-9'.-]+ ){1,3}?(` + compareVerbs + `) ([^;]+?)(?:;|,? but|,? while|,? whereas) ([^;]+?)[.!]?$`)

// compareVerbs are the verbs of a rival's practice a comparison names
// first: an obligation it lays on the caller, a limit it keeps, what it
// does with keys, retries and charges.
const compareVerbs = `makes?|requires?|forces?|asks?|needs?|has|have|wants?|expects?|tells?|lets?|gives?|stops?|caps?|limits?|expires?|drops?|prunes?|forgets?|deletes?|discards?|retries|retry|reduces?|lowers?|minimi[sz]es?|charges?|bills?|rejects?|refuses?|offers?|promises?|guarantees?|keeps?`

// reEllipsis is a second clause that leaves its predicate out: a subject
// of one to three words and a negated auxiliary.
var reEllipsis = regexp.MustCompile(`^((?:[a-z0-9'-]+ ){0,2}[a-z0-9'-]+) (doesn't|does not|don't|do not|won't|will not|never does)$`)

// rePronoun is the object pronoun of a second clause that points back at
// the first clause's object.
var rePronoun = regexp.MustCompile(`\b(them|it)\b`)

// reObjectEnd ends the first clause's object: a preposition, a
// conjunction or the end.
var reObjectEnd = regexp.MustCompile(`\b(after|for|within|in|on|by|with|to|at|from|when|if|once|and|or)\b`)

// comparison returns sent's second clause read with what it leaves out
// filled in from the first, and the second clause's offsets in sent; nil
// when sent is no comparison of either kind.
func comparison(sent []byte) (read []byte, at [2]int) {
	// Most sentences hold none of reCompare's joints; these scans cost far
	// less than the regexp's search.
	if !has(sent, ";", " but", " while", " whereas") {
		return nil, at
	}
	m := reCompare.FindSubmatchIndex(sent)
	if m == nil {
		return nil, at
	}
	verb, rest := string(sent[m[2]:m[3]]), string(sent[m[4]:m[5]])
	second := string(sent[m[6]:m[7]])
	at = [2]int{m[6], m[7]}
	if e := reEllipsis.FindStringSubmatch(second); e != nil {
		return []byte(e[1] + " " + e[2] + " " + baseForm(verb) + " " + rest), at
	}
	p := rePronoun.FindStringIndex(second)
	if p == nil {
		return nil, at
	}
	object := rest
	if loc := reObjectEnd.FindStringIndex(object); loc != nil {
		object = strings.TrimSpace(object[:loc[0]])
	}
	// A that-clause ("does not promise that duplicates are impossible")
	// is what was said, not a thing a pronoun can point back at.
	if object == "" || strings.Count(object, " ") > 3 || strings.HasPrefix(object, "that ") {
		return nil, at
	}
	return []byte(second[:p[0]] + object + second[p[1]:]), at
}

// baseForm is the verb as it follows "doesn't": "makes" is "make",
// "retries" "retry", "has" "have".
func baseForm(v string) string {
	switch {
	case v == "has":
		return "have"
	case strings.HasSuffix(v, "ies"):
		return strings.TrimSuffix(v, "ies") + "y"
	case strings.HasSuffix(v, "sses"), strings.HasSuffix(v, "ches"), strings.HasSuffix(v, "shes"), strings.HasSuffix(v, "xes"):
		return strings.TrimSuffix(v, "es")
	case strings.HasSuffix(v, "s") && !strings.HasSuffix(v, "ss"):
		return strings.TrimSuffix(v, "s")
	}
	return v
}

// comparisonMay reports whether a sentence after a semicolon may be the
// second clause of a comparison: it is short, and leaves its predicate
// out or points back with a pronoun.
func comparisonMay(second []byte) bool {
	return len(second) <= 120 && (reEllipsis.Match(trimStop(second)) || rePronoun.Match(second))
}

// trimStop is b without its final stop.
func trimStop(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '.' || b[len(b)-1] == '!') {
		b = b[:len(b)-1]
	}
	return b
}

// reWhAnswer is a which- or what-question answered by a universal
// ("Which errors does the SDK retry? All of them, including 400."): the
// answer names every thing the question asks about.
var reWhAnswer = regexp.MustCompile(`^(?:[^?:]*: )?(?:which|what) ([a-z0-9 -]{1,40}?) (does|do|did|will|can|could|should|would|are|is) ([^?]{1,80})\? (?:a: |answer: )?((?:all|every one|each one|every single one|each and every one)(?: of them)?|every last one)\b(.*)$`)

// filledIn returns the reading of sent with what a part of it leaves out
// filled in, and the offsets of that part in sent: the second clause of
// a comparison (comparison) or the answer to a question it completes
// (whAnswer); nil when sent has neither.
func filledIn(sent []byte) (read []byte, at [2]int) {
	if read, at = comparison(sent); read != nil {
		return read, at
	}
	if read, at = whAnswer(sent); read != nil {
		return read, at
	}
	return statusPronoun(sent)
}

// reStatusPronoun is a status named and then retried as a pronoun: "if
// you get a 409, don't worry: the sdk retries it for you".
var reStatusPronoun = regexp.MustCompile(`\b([45](?:\d\d|xx))s?\b[^.]{0,80}?\b(?:retr(?:y|ies|ied|ying)|re-?sends?|re-?sent|tries again) (it|them)\b`)

// statusPronoun reads the clause of the retry, with the pronoun that
// points back at a status read as that status ("the sdk retries 409 for
// you"); the offsets run from the status to the pronoun.
func statusPronoun(sent []byte) (read []byte, at [2]int) {
	// Nearly every sentence lacks a 4xx/5xx digit or one of the regexp's
	// verbs of retrying; these scans cost far less than its search.
	if !bytes.ContainsAny(sent, "45") || !has(sent, "retr", "resen", "re-sen", "tries again") {
		return nil, at
	}
	m := reStatusPronoun.FindSubmatchIndex(sent)
	if m == nil {
		return nil, at
	}
	from := m[3]
	if i := bytes.LastIndexAny(sent[m[3]:m[4]], ",:;-"); i >= 0 {
		from = m[3] + i + 1
	}
	read = append(append(append([]byte(nil), bytes.TrimLeft(sent[from:m[4]], " ")...), sent[m[2]:m[3]]...), sent[m[5]:]...)
	return read, [2]int{m[2], m[5]}
}

// whAnswer reads a which-question answered by a universal as the
// statement the answer makes: "which errors does the sdk retry? all of
// them" is "the sdk retry all errors"; "which endpoints are idempotent?
// every one" is "all endpoints are idempotent". The offsets are the
// answer's.
func whAnswer(sent []byte) (read []byte, at [2]int) {
	if !bytes.Contains(sent, []byte("? ")) {
		return nil, at
	}
	m := reWhAnswer.FindSubmatchIndex(sent)
	if m == nil {
		return nil, at
	}
	noun, aux, rest := string(sent[m[2]:m[3]]), string(sent[m[4]:m[5]]), string(sent[m[6]:m[7]])
	after := string(sent[m[10]:m[11]])
	at = [2]int{m[8], len(sent)}
	if aux == "are" || aux == "is" {
		return []byte("all " + noun + " " + aux + " " + rest + after), at
	}
	return []byte(rest + " all " + noun + after), at
}
