package copylint

import (
	"bytes"
	"regexp"
	"unicode/utf8"
)

// normText is one prose block in matching form: ASCII lower case, each run
// of white space one space, Unicode dashes "-", curly apostrophes "'", the
// mask's gone bytes dropped. off[i] is the source offset of text[i]; off has
// one extra entry, the end of the block.
type normText struct {
	text []byte
	off  []int
	// mask is the mask the text came from: its bytes keep the source's case.
	mask []byte
	// space is whether the text ends in a space (or is empty), while
	// normalize runs.
	space bool
}

// normalize builds the matching form of mask[start:end]. With skipCode, the
// bytes inside code spans are dropped as well (each code span leaves one
// space, so the words around it do not fuse), except a short span that
// holds only words ("`exactly-once`"): quoting a term as code does not make
// the sentence around it any less of a claim. Look-alike letters become the
// ASCII they imitate, format characters are dropped and text after U+202E
// is read in the order it is shown (fold.go).
func normalize(mask []byte, start, end int, code []span, skipCode bool, n *normText) {
	n.text = n.text[:0]
	n.off = n.off[:0]
	n.mask = mask
	ci := 0
	n.space = true // drop leading space
	for i := start; i < end; {
		if skipCode {
			for ci < len(code) && code[ci].end <= i {
				ci++
			}
			if ci < len(code) && code[ci].start <= i && !wordsOnly(mask[code[ci].start:code[ci].end]) && !operationSpan(mask[code[ci].start:code[ci].end]) && !settingSpan(mask, start, end, code[ci]) && !reStatusSpan.Match(mask[code[ci].start:code[ci].end]) && !reFigureSpan.Match(mask[code[ci].start:code[ci].end]) {
				n.addSpace(i)
				i = code[ci].end
				continue
			}
		}
		b := mask[i]
		if plainByte[b] {
			// The common case, a letter, a digit or a mark no case
			// below handles: the text keeps it, lower case.
			n.addASCII(b, i)
			i++
			continue
		}
		switch {
		case b == gone:
			i++
			continue
		case b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\f' || b == '\v':
			n.addSpace(i)
			i++
			continue
		case b == '\\' && i+1 < end && isASCIIPunct(mask[i+1]):
			// A Markdown escape ("invalid\_idempotent\_request"): the
			// reader sees the character alone.
			i++
			continue
		case b == '.' && !n.space && len(n.text) > 0 && isWordByte(n.text[len(n.text)-1]) && pauseDots(mask[i:end]):
			// An ellipsis between a word and a lower-case one ("double
			// payouts just... can't happen") is a pause inside the
			// sentence: the reader reads on, so the matcher sees a space.
			n.addSpace(i)
			i += 3
			continue
		case (b == '"' || b == '\'') && docstringMark(mask[i:end]):
			// A docstring's delimiter (""" or ''') opens or closes
			// a comment, not a quotation: the text inside is the
			// comment's own claim.
			i += 3
			continue
		case b == '_' && !(isAlnum(maskByteBefore(mask, start, i)) && isAlnum(maskByteAfter(mask, end, i))):
			// An emphasis mark ("_exactly once_"), not the inside of a
			// snake_case name.
			i++
			continue
		case b < utf8.RuneSelf:
			n.addASCII(b, i)
			i++
			continue
		}
		r, size := utf8.DecodeRune(mask[i:end])
		if r == rlo {
			i = n.reversed(mask, i+size, end)
			continue
		}
		n.addRune(mask, r, i, size)
		i += size
	}
	if len(n.text) > 0 && n.text[len(n.text)-1] == ' ' {
		n.text = n.text[:len(n.text)-1]
		n.off = n.off[:len(n.off)-1]
	}
	n.off = append(n.off, end)
}

// plainByte marks the ASCII bytes normalize copies as they are (lower
// case): every one but the mask's gone byte, white space and the bytes
// its switch reads in context (a backslash, a dot, quotes, an
// underscore). Most of a text is such bytes, and one lookup spares them
// the switch.
var plainByte = func() (t [256]bool) {
	for b := 0; b < utf8.RuneSelf; b++ {
		t[b] = true
	}
	for _, b := range []byte{gone, ' ', '\n', '\t', '\r', '\f', '\v', '\\', '.', '"', '\'', '_'} {
		t[b] = false
	}
	return t
}()

// docstringMark reports whether rest opens with three of the same
// quote mark, a docstring's delimiter.
func docstringMark(rest []byte) bool {
	return len(rest) >= 3 && rest[1] == rest[0] && rest[2] == rest[0]
}

// pauseDots reports whether rest opens with "..." followed by white
// space and a lower-case letter: the sentence goes on after the dots.
func pauseDots(rest []byte) bool {
	if !bytes.HasPrefix(rest, []byte("...")) {
		return false
	}
	rest = rest[3:]
	i := 0
	for i < len(rest) && (rest[i] == ' ' || rest[i] == '\n' || rest[i] == '\t') {
		i++
	}
	return i > 0 && i < len(rest) && rest[i] >= 'a' && rest[i] <= 'z'
}

// addASCII appends the ASCII byte b at source offset off, lower case.
func (n *normText) addASCII(b byte, off int) {
	if b >= 'A' && b <= 'Z' {
		b += 'a' - 'A'
	}
	n.text = append(n.text, b)
	n.off = append(n.off, off)
	n.space = false
}

func (n *normText) addSpace(off int) {
	if !n.space {
		n.text = append(n.text, ' ')
		n.off = append(n.off, off)
		n.space = true
	}
}

// addRune appends the matching form of the rune r at mask[i:i+size].
func (n *normText) addRune(mask []byte, r rune, i, size int) {
	if r < utf8.RuneSelf {
		switch {
		case r == ' ' || r == '\n' || r == '\t' || r == '\r':
			n.addSpace(i)
			return
		case r >= 'A' && r <= 'Z':
			r += 'a' - 'A'
		}
		n.text = append(n.text, byte(r))
		n.off = append(n.off, i)
		n.space = false
		return
	}
	var out byte
	switch r {
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2212':
		out = '-'
	case '\u2018', '\u2019', '\u02bc':
		out = '\''
	case '\u201c', '\u201d':
		out = '"'
	case '\u00a0', '\u2009', '\u202f', '\u2002', '\u2003':
		n.addSpace(i)
		return
	}
	if out != 0 {
		n.text = append(n.text, out)
		n.off = append(n.off, i)
		n.space = false
		return
	}
	if a, drop := foldRune(r); drop {
		return // no width in prose: soft hyphen, zero-width, bidi marks
	} else if a != "" {
		for k := 0; k < len(a); k++ {
			n.text = append(n.text, a[k])
			n.off = append(n.off, i)
		}
		n.space = false
		return
	}
	// Any other non-ASCII rune is kept as is, byte for byte.
	for k := 0; k < size; k++ {
		n.text = append(n.text, mask[i+k])
		n.off = append(n.off, i+k)
	}
	n.space = false
}

// reversed appends the run after a RIGHT-TO-LEFT OVERRIDE at mask[from:]
// in the order a reader sees it, last rune first, up to the POP
// DIRECTIONAL FORMATTING, a line break or end; it returns where the run
// ends. Offsets still name each rune's own source bytes.
func (n *normText) reversed(mask []byte, from, end int) int {
	stop := from
	for stop < end {
		r, size := utf8.DecodeRune(mask[stop:end])
		if r == pdf || r == '\n' || r == rlo {
			break
		}
		stop += size
	}
	for j := stop; j > from; {
		r, size := utf8.DecodeLastRune(mask[from:j])
		j -= size
		if r == 0 { // gone
			continue
		}
		n.addRune(mask, r, j, size)
	}
	return stop
}

// wordsOnly reports whether a code span is a term rather than code: short,
// letters, digits, spaces and hyphens only.
func wordsOnly(b []byte) bool {
	if len(b) == 0 || len(b) > 40 {
		return false
	}
	letters := 0
	for _, c := range b {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		case c == ' ' || c == '-' || c == gone:
		default:
			return false
		}
	}
	return letters >= 4
}

// reStatusSpan is a status as a code span writes it (`409`, `5xx`): a
// figure the reader reads as part of the sentence.
var reStatusSpan = regexp.MustCompile(`^[1-5](?:\d\d|xx|XX)$`)

// reFigureSpan is a figure as a code span writes it (`5`, `72h`, `600 s`,
// `2.5x`): the reader reads it as part of the sentence ("keys are
// honoured for `72h`"), as one written without the backticks.
var reFigureSpan = regexp.MustCompile(`^\d{1,6}(?:\.\d{1,3})? ?(?:ms|s|m|h|d|w|secs?|seconds?|mins?|minutes?|hours?|hrs?|days?|weeks?|x|%)?$`)

// reSetting is a setting's name as a code span writes it: "retry_on",
// "max_attempts", "retry.limit".
var reSetting = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]{1,39}$`)

// settingSpan reports whether the code span c opens the block
// mask[start:end] as the name of a setting its colon or equals sign
// then gives a value ("`retry_on`: all errors"): the attribute of a
// record (records.go), read as prose.
func settingSpan(mask []byte, start, end int, c span) bool {
	if c.start < start || !reSetting.Match(mask[c.start:c.end]) {
		return false
	}
	for _, b := range mask[start:c.start] {
		if isAlnum(b) {
			return false
		}
	}
	for i := c.end; i < end; i++ {
		switch mask[i] {
		case ':', '=':
			return true
		case ' ', '`', gone:
			continue
		}
		return false
	}
	return false
}

// reOperation is an HTTP operation as a code span writes it: a method
// and a path ("POST /v1/reports/{id}/archive").
var reOperation = regexp.MustCompile(`^(?i:get|head|options|post|put|patch|delete) /[A-Za-z0-9/{}_.:~-]*$`)

// operationSpan reports whether a code span names an operation: the
// subject of the sentence around it ("`POST /v1/x` is safe to retry"), so
// it is read as prose, the way a reader reads it.
func operationSpan(b []byte) bool {
	return len(b) <= 120 && bytes.IndexByte(b, gone) < 0 && reOperation.Match(b)
}

// sentences splits normalized text into sentences: at ". ", "! ", "? " and
// "; ", and not after common abbreviations (e.g., i.e., etc., vs.) or a
// single letter ("U.S."). A claim is matched within one sentence, so a
// denial in the next sentence does not excuse it.
func sentences(text []byte, out []span) []span {
	out = out[:0]
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '.' && c != '!' && c != '?' && c != ';' {
			continue
		}
		if c == '?' && (answerFollows(text[i+1:]) || fragmentQuestion(text[start:i])) {
			continue
		}
		if (c == '.' || c == '!') && emphaticFollows(text[i+1:]) {
			continue
		}
		if i+1 < len(text) && text[i+1] != ' ' && text[i+1] != '"' && text[i+1] != ')' {
			continue
		}
		if c == '.' && isAbbrev(text[start:i]) {
			continue
		}
		out = append(out, span{start, i + 1})
		start = i + 1
		for start < len(text) && text[start] == ' ' {
			start++
		}
		i = start - 1
	}
	if start < len(text) {
		out = append(out, span{start, len(text)})
	}
	return out
}

// answerFollows reports whether the text after a question mark is its
// answer, marked as one ("A:", "Answer:") or opening with a short reply
// ("Yes", "No", "Nope", "Nothing", "All of them", a figure): the answer
// takes its subject from the question ("Which calls can I retry? All of
// them."), so the two are one sentence. The clause analysis still reads
// a match inside the question as a question (clause.go).
func answerFollows(rest []byte) bool {
	rest = bytes.TrimLeft(rest, " \"')-")
	return reAnswer.Match(rest)
}

// emphaticFollows reports whether the text after a full stop is a
// one-word sentence that only stresses the one before it ("No duplicate
// payouts. Ever.", "Exactly once. Period."): it belongs to that sentence,
// whose claim it makes absolute. It is the pattern
// ^ (ever|...)[.!]*( |$) written out (FuzzEmphaticFollows compares the
// two): the regexp engine's backtracker cleared a bitmap as long as the
// rest of the block at every full stop.
func emphaticFollows(rest []byte) bool {
	r, ok := bytes.CutPrefix(rest, []byte(" "))
	if !ok {
		return false
	}
	for _, w := range emphaticWords {
		if !bytes.HasPrefix(r, []byte(w)) {
			continue
		}
		j := len(w)
		for j < len(r) && (r[j] == '.' || r[j] == '!') {
			j++
		}
		if j == len(r) || r[j] == ' ' {
			return true
		}
	}
	return false
}

// emphaticWords are the words and phrases emphaticFollows reads.
var emphaticWords = []string{"ever", "not ever", "never", "not once", "period", "full stop", "guaranteed", "forever", "for good", "every time", "no exceptions"}

// fragmentQuestion reports whether q (a question, without its "?") is a
// fragment of at most six words that asks no question of its own
// ("Errors?", "Network hiccup?", "Retrying a transfer from curl?"): it
// names the topic the next sentence answers ("Errors? Our SDKs retry all
// of them."), so the two are one sentence. A question that opens with a
// question word or an auxiliary asks, and stands alone. A match inside
// the fragment still only asks (clause.go).
func fragmentQuestion(q []byte) bool {
	if bytes.Count(q, []byte(" ")) > 5 || len(q) == 0 {
		return false
	}
	return !reAsks.Match(q)
}

var reAsks = regexp.MustCompile(`^\W*(what|which|who|whom|whose|why|when|where|how|is|are|am|was|were|do|does|did|can|could|will|would|should|shall|may|might|must|have|has|had|isn't|aren't|don't|doesn't|can't|won't|really|right|ok|okay|huh|eh)\b`)

var reAnswer = regexp.MustCompile(`^(a|answer|ans)\s*:|^(yes|yep|yeah|no|nope|not really|not at all|nothing|none|all|any|every|forever|always|never|sure|absolutely|of course|as (often|many times|long|much) as)\b|^(about |roughly |for |up to )?(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fourteen|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|a day|a week|a month|a year|a fortnight|an hour|half a|half an|a couple)\b`)

func isAbbrev(before []byte) bool {
	j := len(before)
	for j > 0 && before[j-1] != ' ' && before[j-1] != '(' {
		j--
	}
	w := string(before[j:])
	switch w {
	case "e.g", "i.e", "etc", "vs", "cf", "approx", "incl", "fig", "dr", "mr", "ms", "inc", "ltd":
		return true
	}
	return len(w) == 1 && w[0] >= 'a' && w[0] <= 'z'
}

// sourceSpan is the source range of text[a:b]: the least and the greatest
// offset in it (reversed text runs backwards), the end moved past the last
// rune's bytes.
func (n *normText) sourceSpan(a, b int) (start, end int) {
	start, end = n.off[a], n.off[a]
	for _, o := range n.off[a:b] {
		if o < start {
			start = o
		}
		if o > end {
			end = o
		}
	}
	end++
	for end < len(n.mask) && !utf8.RuneStart(n.mask[end]) {
		end++
	}
	return start, end
}

// maskByteBefore is the byte before mask[i] that is not gone (a Markdown
// escape's backslash is gone: "invalid\_request" is one word), or 0.
func maskByteBefore(mask []byte, start, i int) byte {
	for j := i - 1; j >= start; j-- {
		if mask[j] != gone && mask[j] != '\\' {
			return mask[j]
		}
	}
	return 0
}

// maskByteAfter is the byte after mask[i] that is not gone, or 0.
func maskByteAfter(mask []byte, end, i int) byte {
	for j := i + 1; j < end; j++ {
		if mask[j] != gone {
			return mask[j]
		}
	}
	return 0
}

func isASCIIPunct(b byte) bool {
	return b > ' ' && b < 0x7f && !isAlnum(b)
}
