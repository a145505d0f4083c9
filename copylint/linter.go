package copylint

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// linter is everything that is the same for every file of one run: the
// compiled phrase rules, the contract checks and the prefilter.
type linter struct {
	c        *contract.Contract // nil: the contract-aware rule is skipped
	lintCode bool
	rules    []compiledRule
	checks   *contractChecks
	fixes    map[string]string
	// ruleTags are each rule's tag bits, in rules order; freeForms are
	// the form bits of the rules without a requires list.
	ruleTags  []ruleTags
	freeForms uint64
	// exhaustive turns every prefilter off: each file is parsed, each
	// block and sentence matched against every rule and check, and the
	// patterns' literal gates are skipped (LintSourceUnfiltered).
	exhaustive bool
	// allTags is every tag a block can carry: what a block of a file that
	// may hide its anchors is given before its text is normalized.
	allTags uint64
	// learned is the learned second reader (learned.go), nil when off.
	learned *learnedReader
	// words, tags and key are the prefilter's words, for prefilter, which
	// builds its automaton on first use (anchorsOnce, anchors).
	words       []string
	tags        []uint64
	key         string
	anchorsOnce sync.Once
	anchors     *anchorSet
}

const suppressMarker = "retryspec-disable-next-line"

// compiled caches the phrase rules compiled for one header name: the
// regular expressions are the expensive part of a linter, and build calls
// LintSource once per generated page.
var compiled sync.Map // header -> []compiledRule

// prefilters caches the anchor automata the same way: building the table
// and its byte classes takes milliseconds.
var prefilters sync.Map // header and contract presence -> *anchorSet

func compiledFor(header string) []compiledRule {
	if v, ok := compiled.Load(header); ok {
		return v.([]compiledRule)
	}
	rules, err := compilePhrases(loadPhrases(), header)
	if err != nil {
		panic("copylint: " + err.Error()) // the embedded data is tested
	}
	compiled.Store(header, rules)
	return rules
}

// Anchor tags: bit i is phrase form i; then one bit per rule that
// requires a second word (its requires list); the high bits are the
// contract checks' word groups and the suppression marker.
const (
	tagSuppression = 1 << 63
	// The contract checks read a sentence about keys, windows or
	// retrying (tagCIdem, tagCKey, tagCRetry, tagCOther: contractAbout)
	// that names the idempotency family (idempot, replay, the header) or
	// holds a figure (a digit or a number word) and a word about keys or
	// retrying: see contractChecks.matchSentence and linter.contractMay.
	tagCIdem    = 1 << 62 // idempoten, the header
	tagCKey     = 1 << 61
	tagCRetry   = 1 << 60
	tagCOther   = 1 << 59 // expir, window, ttl, stop retrying
	tagCIdemW   = 1 << 58 // idempot
	tagCReplay  = 1 << 57
	tagCNum     = 1 << 56
	tagContract = tagCIdem | tagCKey | tagCRetry | tagCOther | tagCIdemW | tagCReplay | tagCNum
	// Structured copy (records.go) is read where a mark of a record (a
	// table's pipe, a colon, a default) and a word of an attribute it
	// judges occur together.
	tagRecMark = 1 << 55
	tagRecWord = 1 << 54
	tagRecords = tagRecMark | tagRecWord
	// The learned reader's gate words, in every anchor scan of a linter
	// with the reader on (prefilter): no rule reads this bit.
	tagLearnedGate = 1 << 53
	maxFormBits    = 53
)

// recordMarks and recordWords are the anchors of tagRecMark and
// tagRecWord: every record recordsIn reads holds a mark, and every
// record readRecord classifies holds a word of its concept (the key of a
// keyless record, the keeping word of a retention one, the retry of a
// count or a status list, "idempotent", a duplicate, "safe to").
var (
	recordMarks = []string{"|", ":", "=", " - ", " — ", " – ", "default", "<td", "<th"}
	recordWords = []string{"attempt", "retr", "tries", "resen", "re-sen", "resubmit", "re-submit", "repeat", "idempoten", "duplicat", "double", "twice", "retention", "retained", "kept", "ttl", "lifetime", "life span", "lifespan", "window", "expir", "valid", "remembered", "stored for", "how long", "key", "safe to", "idempotency header", "idempotency-header"}
)

// formGroups returns, per rule, 0 when each of its forms gets a bit of its
// own, else the number of bits its forms with anchors of their own take
// turns on: when one bit per form would not fit in maxFormBits, the rules
// with the most forms give up the excess.
func formGroups(rules []compiledRule, withContract bool) []int {
	own := make([]int, len(rules))
	demand := 0
	for i, r := range rules {
		if r.family != nil && !r.family.contractFree && !withContract {
			continue
		}
		sharedOne := 0
		for _, f := range r.forms {
			if f.shared {
				sharedOne = 1
			} else {
				own[i]++
			}
		}
		demand += own[i] + sharedOne
		if len(r.requires) > 0 {
			demand++
		}
	}
	groups := make([]int, len(rules))
	for demand > maxFormBits {
		big := 0
		for i := range rules {
			if effective(own[i], groups[i]) > effective(own[big], groups[big]) {
				big = i
			}
		}
		n := effective(own[big], groups[big])
		if n <= 1 {
			panic("copylint: more than 56 phrase rules' bits; widen the tag type")
		}
		groups[big] = n - 1
		demand--
	}
	return groups
}

// effective is the number of bits a rule's own-anchored forms use.
func effective(own, group int) int {
	if group > 0 {
		return group
	}
	return own
}

// ruleTags are the bits of one phrase rule: its forms, each form's bit
// (the forms without anchors of their own share one), and the bit of its
// requires list (0 when it has none). A rule skipped for want of a
// contract has no bits.
type ruleTags struct {
	forms, requires uint64
	formBits        []uint64
}

func newLinter(c *contract.Contract, lintCode bool) *linter {
	header := ""
	if c != nil {
		header = c.Idempotency.Header
		lintCode = lintCode || c.Docs.Copy.LintCode
	}
	rules := compiledFor(header)
	l := &linter{c: c, lintCode: lintCode, rules: rules, fixes: map[string]string{}, learned: shippedReader(c)}
	words, tags := []string{suppressMarker}, []uint64{tagSuppression}
	bit := 0
	next := func() uint64 {
		if bit >= maxFormBits {
			panic("copylint: more than 56 phrase forms and requires lists; widen the tag type")
		}
		bit++
		return 1 << (bit - 1)
	}
	groups := formGroups(rules, c != nil)
	for i, r := range rules {
		var rt ruleTags
		if r.family != nil && !r.family.contractFree && c == nil {
			l.ruleTags = append(l.ruleTags, rt) // skipped: ContractFamilies
			continue
		}
		// Each form with anchors of its own has a bit, unless the tag word
		// (56 bits) is short: then the largest rule's forms take turns on
		// fewer bits (formGroups); each form's literal gate still spares
		// the regexp engine the forms whose words are absent. The forms
		// without anchors of their own share one bit.
		var shared uint64
		var group []uint64
		if n := groups[i]; n > 0 {
			for range n {
				group = append(group, next())
			}
		}
		own := 0
		for _, f := range r.forms {
			var b uint64
			switch {
			case !f.shared && group != nil:
				b = group[own%len(group)]
				own++
			case !f.shared:
				b = next()
			case shared == 0:
				shared = next()
				b = shared
			default:
				b = shared
			}
			rt.forms |= b
			rt.formBits = append(rt.formBits, b)
			for _, a := range f.anchors {
				words, tags = append(words, a), append(tags, b)
			}
		}
		if len(r.requires) > 0 {
			rt.requires = next()
			for _, w := range r.requires {
				words, tags = append(words, w), append(tags, rt.requires)
			}
		} else {
			l.freeForms |= rt.forms
		}
		l.ruleTags = append(l.ruleTags, rt)
		if r.family == nil {
			l.fixes[r.id] = fillFix(r.fix, c)
		}
	}
	for _, w := range recordMarks {
		words, tags = append(words, w), append(tags, tagRecMark)
	}
	for _, w := range recordWords {
		words, tags = append(words, w), append(tags, tagRecWord)
	}
	l.allTags = 1<<bit - 1 | tagRecords
	if c != nil {
		l.allTags |= tagContract
		l.checks = newContractChecks(c)
		for _, g := range l.checks.anchors() {
			for _, a := range g.words {
				words, tags = append(words, a), append(tags, g.tag)
			}
		}
	}
	l.words, l.tags, l.key = words, tags, fmt.Sprintf("%q %v", header, c != nil)
	return l
}

// cachedAnchors is the automaton of words, built once per key.
func cachedAnchors(key string, words []string, tags []uint64) *anchorSet {
	if v, ok := prefilters.Load(key); ok {
		return v.(*anchorSet)
	}
	a := newAnchorSet(words, tags)
	prefilters.Store(key, a)
	return a
}

// prefilter is the automaton of every anchor scan: it finds any anchor
// word or a suppression marker, and a file, block or sentence without one
// has no finding. With the learned reader on, it finds the reader's gate
// words too (tagLearnedGate, which no rule reads), so that one scan of a
// file serves the rules and the reader's screen (learnedScreen), and one
// table, not two, stays in the CPU's cache. It is built on first use,
// once the caller has set l.learned.
func (l *linter) prefilter() *anchorSet {
	l.anchorsOnce.Do(func() {
		if l.learned == nil || l.c == nil {
			l.anchors = cachedAnchors(l.key, l.words, l.tags)
			return
		}
		words := append(slices.Clone(l.words), learnedGateWords...)
		tags := slices.Clone(l.tags)
		for range learnedGateWords {
			tags = append(tags, tagLearnedGate)
		}
		l.anchors = cachedAnchors(l.key+" learned", words, tags)
	})
	return l.anchors
}

// phrasesMay reports whether a text whose anchors carry tags t can hold a
// phrase rule's finding: a form's anchor, and the rule's required word
// when it has a requires list.
func (l *linter) phrasesMay(t uint64) bool {
	if t&l.freeForms != 0 || recordsMay(t) {
		return true
	}
	for _, rt := range l.ruleTags {
		if rt.requires != 0 && t&rt.forms != 0 && t&rt.requires != 0 {
			return true
		}
	}
	return false
}

// joinMay reports whether two clauses joined by a semicolon, with tags t,
// can hold a finding of a rule that reads across one.
func (l *linter) joinMay(t uint64) bool {
	for i, rt := range l.ruleTags {
		if l.rules[i].semicolon && t&rt.forms != 0 && (rt.requires == 0 || t&rt.requires != 0) {
			return true
		}
	}
	return false
}

// tableWords are the record words a table names its concept by in its
// header or row (a key's by "idempot"): a raw table line with one of
// them is parsed, so its rows are read under their header (rowMay asks
// the same). A narrower list than recordWords, which a table of other
// keys and values (a "key" column, a "valid" flag) holds too.
var tableWords = []string{"attempt", "retr", "tries", "resen", "re-sen", "resubmit", "idempot", "duplicat", "double", "twice", "retention", "ttl", "expir", "replay", "window", "kept", "lifetime"}

// tableLine reports whether a raw block may be a table's: a Markdown
// line that starts with a pipe, or HTML with a tag that starts with t
// (table, tr, th, td).
func tableLine(b []byte) bool {
	t := bytes.TrimLeft(b, " \t")
	return len(t) > 0 && t[0] == '|' || bytes.Contains(b, []byte("<t")) || bytes.Contains(b, []byte("<T"))
}

// recordsMay reports whether a text with tags t may hold a record
// (records.go) of structured copy.
func recordsMay(t uint64) bool { return t&tagRecords == tagRecords }

// contractMay reports the same for the contract checks.
func (l *linter) contractMay(t uint64) bool {
	return l.checks != nil && t&(tagCIdem|tagCKey|tagCRetry|tagCOther) != 0 &&
		(t&(tagCIdem|tagCIdemW|tagCReplay) != 0 || t&tagCNum != 0 && t&(tagCKey|tagCRetry) != 0)
}

// may reports whether a text with tags t can hold any finding.
func (l *linter) may(t uint64) bool { return l.phrasesMay(t) || l.contractMay(t) }

// fillFix fills the contract's figures into a fix template; without a
// contract the placeholders become the generic wording.
func fillFix(fix string, c *contract.Contract) string {
	window, header, scope := "the documented replay window", "Idempotency-Key", ""
	statuses, base, cap, attempts := "429, 502, 503, 504", "1s", "30s", "3"
	if c != nil {
		window = human(c.Idempotency.ReplayWindow.D)
		header = keyRef(c)
		if c.Idempotency.Scope == contract.ScopeAccount {
			scope = " on the same account"
		}
		statuses = contract.StatusList(c.Retry.Statuses)
		base = c.Retry.Backoff.Base.String()
		cap = c.Retry.Backoff.Cap.String()
		attempts = itoa(c.Retry.MaxAttempts)
	}
	return strings.NewReplacer("{window}", window, "{header}", header, "{scope}", scope,
		"{statuses}", statuses, "{base}", base, "{cap}", cap, "{attempts}", attempts).Replace(fix)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// format is how a file's prose is found.
type format int

const (
	formatText format = iota
	formatMarkdown
	formatMDX
	formatHTML
)

// formatOf picks the format from the file name's extension; ok is false for
// an extension this package does not read when it walks a folder.
func formatOf(name string) (f format, ok bool) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".markdown", ".mdown", ".mkd", ".mkdn":
		return formatMarkdown, true
	case ".mdx":
		return formatMDX, true
	case ".html", ".htm", ".xhtml", ".shtml":
		return formatHTML, true
	case ".txt", ".text":
		return formatText, true
	}
	return formatText, false
}

// hit is one match before it becomes a finding: source offsets and texts.
type hit struct {
	rule       string
	start, end int
	message    string
	fix        string
	path       string // contract path, for copy/contradicts-contract
}

// lintSource lints one file's bytes and returns its findings, suppressions
// applied. allowed is the docs.copy.allow state for this run (nil: none).
//
// sc0 is the caller's scratch (a Lint worker keeps one for its files); nil
// takes one from a pool.
func (l *linter) lintSource(name string, src []byte, allow *allowList, sc0 *scratch) []findings.Finding {
	f, _ := formatOf(name)
	if sc0 == nil {
		sc0 = scratchPool.Get().(*scratch)
		defer scratchPool.Put(sc0)
	}
	// A block that may hide an anchor word (a character reference, a
	// look-alike letter, an invisible character) cannot be judged by the
	// byte-level prefilter: it is normalized first and searched after.
	clear(sc0.verdictIndex)
	clear(sc0.verdicts) // drop the old hits for the collector
	sc0.verdicts = sc0.verdicts[:0]
	sc0.hiding = hidingAt(src, f, sc0.hiding[:0])
	hiding := sc0.hiding
	markerSeen := true
	// rulesRun is false for a file parsed for the reader alone: the raw
	// pass found no hit of the rules in it, so the rules report nothing
	// there, as they do with the reader off (a raw pass's known gaps,
	// rawPassGaps, included), and the reader reads every sentence as
	// holding no finding.
	rulesRun := true
	if l.exhaustive || (f == formatText && l.learned.parseAll(src)) {
		// no prefilter
	} else if f != formatText {
		// Parsing is most of the cost of a file. Match the raw text first,
		// with tags and emphasis marks dropped: it holds every sentence of
		// the prose (plus code and markup), so a file whose raw text has
		// no hit has none in its prose either, and is done. Only the raw
		// blocks that hold an anchor are prepared at all. A file with a
		// suppression marker is parsed: an unused marker is a finding.
		switch {
		case l.rawCandidate(src, f, sc0, hiding):
			// The marker is one of the anchors, found in the source even
			// with skipped bytes inside it: without it, there is no
			// suppression to look for.
			markerSeen = sc0.srcTags&tagSuppression != 0
		case !l.learnedScreen(src, f, sc0, hiding):
			return nil
		case len(hiding) == 0:
			rulesRun, markerSeen = false, false
		}
	} else if len(hiding) == 0 && !l.prefilter().match(src) {
		return nil
	}
	var d *document
	switch f {
	case formatMarkdown:
		d = markdownDocument(src, l.lintCode)
	case formatMDX:
		d = mdxDocument(src, l.lintCode)
	case formatHTML:
		d = htmlDocument(src, l.lintCode)
	default:
		d = textDocument(src)
	}
	if f != formatText {
		brAsSpace(d.mask, src)
	}
	if f == formatMarkdown && len(hiding) > 0 {
		blankWordComments(d.mask, src)
	}
	var hits []hit
	if rulesRun {
		hits = l.matchBlocks(d, sc0, false, hiding, false)
	}
	var sups []*suppression
	if markerSeen {
		sups = findSuppressions(src, d, f)
	}
	hits = l.learnedHits(d, hits, sc0, waivedBy(sups, src))
	if len(hits) == 0 && len(sups) == 0 {
		return nil
	}
	hits = oneFindingPerClaim(hits)
	lines := newLineIndex(src)
	var out []findings.Finding
	for _, h := range hits {
		fd := findings.Finding{
			Rule: h.rule, Severity: severityOf(h.rule), Message: h.message,
			File: name, Fix: h.fix, Path: h.path,
		}
		fd.Line, fd.Column = lines.pos(src, h.start)
		if el, ec := lines.pos(src, h.end); el == fd.Line {
			fd.EndColumn = ec
		}
		out = append(out, fd)
	}
	out = applySuppressions(out, sups, name, lines, src)
	if allow != nil {
		out = allow.apply(name, out)
	}
	return out
}

// oneFindingPerClaim drops a hit whose span overlaps an earlier hit of the
// same rule: a claim a phrase family and a contract check both read (a
// retention sentence) is one finding. Hits come in source order by
// sentence, so only the hits of the last few are compared.
func oneFindingPerClaim(hits []hit) []hit {
	out := hits[:0]
	for _, h := range hits {
		dup := false
		for j := len(out) - 1; j >= 0 && j >= len(out)-8; j-- {
			o := out[j]
			if o.rule == h.rule && h.start < o.end && o.start < h.end {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, h)
		}
	}
	return out
}

// scratch is a worker's reusable buffers: a run allocates them once per
// worker, not once per file or block.
type scratch struct {
	raw     []byte
	n       normText
	sents   []span
	hits    []anchorHit
	docHits []anchorHit
	hiding  []int // offsets of the file's possible disguises (hidingAt)
	// srcTags are the tags of every anchor in the file's source, as
	// rawCandidate found them.
	srcTags uint64
	blocks  []span
	kept    []span
	// verdicts are the phrase rules' findings in each sentence matched so
	// far in the file, by text and tags (verdictIndex); lintSource empties
	// them for each file.
	verdicts     [][]sentenceHit
	verdictIndex map[verdictKey]int
	found        []sentenceHit
	// sentTags are the anchor tags of each sentence of a block.
	sentTags []uint64
	// row and cell hold a table row's text as records.go reads it.
	row, cell normText
	// tails are the anchor scan's buffers (anchorSet.hitsWith).
	tails [4][]anchorHit
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// rawCandidate reports whether the raw form of src has any hit.
func (l *linter) rawCandidate(src []byte, f format, sc *scratch, hiding []int) bool {
	// The raw text of MDX keeps {expressions}, so a word split by one
	// ("e{/* */}xactly", in Markdown too: blankWordComments) is whole
	// only in the parsed prose: parse.
	if len(hiding) > 0 && (f == formatMDX || f == formatMarkdown && bytes.Contains(src, []byte("{/*"))) {
		return true
	}
	sc.docHits = l.prefilter().hitsWith(src, sc.docHits[:0], &sc.tails)
	if len(sc.docHits) == 0 && len(hiding) == 0 {
		return false
	}
	var all uint64
	for _, h := range sc.docHits {
		all |= h.tags
	}
	sc.srcTags = all
	if all&tagSuppression != 0 && bytes.Contains(src, []byte(suppressMarker)) {
		return true
	}
	if !l.may(all) && len(hiding) == 0 {
		return false
	}
	if cap(sc.raw) < len(src) {
		sc.raw = make([]byte, len(src), len(src)+4096)
	}
	m := sc.raw[:len(src)]
	kept := sc.kept[:0]
	defer func() { sc.kept, sc.blocks = kept, sc.blocks[:0] }()
	from := 0
	var fences []span
	if f == formatMarkdown && !l.lintCode {
		fences = rawFences(src)
		// The fences matter only when their code could hold a finding:
		// then check that the file is read as Markdown at all.
		var t uint64
		hidden := false
		from := 0
		for _, fs := range fences {
			t |= tagsIn(sc.docHits, fs.start, fs.end, &from)
			hidden = hidden || hiddenIn(hiding, fs.start, fs.end)
		}
		if (hidden || l.may(t)) && readsAsText(src) {
			fences = nil
		}
	}
	sc.blocks = rawBlocks(src, fences, sc.blocks[:0])
	// The blocks a phrase rule may fire in go first: the answer does not
	// depend on the order, and a file with a claim is done sooner.
	first := 0
	// The tables, followed line by line (records.go, rawTables).
	var tables rawTables
	for _, b := range sc.blocks {
		t := tagsIn(sc.docHits, b.start, b.end, &from)
		hidden := hiddenIn(hiding, b.start, b.end)
		if tableLine(src[b.start:b.end]) && l.rawTableClaim(src, b, &tables) {
			// A table row is read under its header (rowHits) once parsed;
			// its raw row and its header's say whether that finds one.
			return true
		}
		if l.may(t) || hidden {
			rawMaskRange(m, src, b.start, b.end)
			kept = append(kept, b)
			if hidden || l.phrasesMay(t) {
				kept[first], kept[len(kept)-1] = kept[len(kept)-1], kept[first]
				first++
			}
		}
	}
	if len(kept) == 0 {
		return false
	}
	// The anchors were found in the source; the mask differs only by
	// dropped markup, which the per-sentence scan sees.
	brAsSpace(m, src)
	return len(l.matchBlocks(&document{mask: m, blocks: kept}, sc, true, hiding, true)) > 0
}

// matchBlocks matches d's blocks. With hitsReady, sc.docHits already holds
// the anchors of the file (found in its source). With hidden, anchors may
// be disguised in the bytes (fold.go): every block is normalized and its
// sentences are searched for anchors in normalized form. With first, it
// returns at the first hit, and leaves out the fixes that cost time to
// write (boundedFix): the caller only asks whether there is one.
func (l *linter) matchBlocks(d *document, sc *scratch, hitsReady bool, hiding []int, first bool) []hit {
	var hits []hit
	n := &sc.n
	sents := sc.sents
	defer func() { sc.sents = sents }()
	hasCode := len(d.code) > 0
	// One scan of the whole mask finds every anchor; a block's tags are
	// the hits inside it.
	if !hitsReady {
		sc.docHits = l.prefilter().hitsWith(d.mask, sc.docHits[:0], &sc.tails)
	}
	if len(sc.docHits) == 0 && len(hiding) == 0 && !l.exhaustive {
		return nil
	}
	if len(d.rows) > 0 {
		hits = l.rowHits(d, sc, hits)
	}
	for _, b := range d.blocks {
		if first && len(hits) > 0 {
			return hits
		}
		from := sort.Search(len(sc.docHits), func(i int) bool { return sc.docHits[i].end >= b.start })
		blockTags := tagsIn(sc.docHits, b.start, b.end, &from)
		if l.exhaustive || hiddenIn(hiding, b.start, b.end) {
			blockTags |= l.allTags
		}
		// The phrase rules read the prose without code unless told
		// otherwise; the contract checks read names in code too. One
		// normalization serves both when the block holds no code.
		phrases := l.phrasesMay(blockTags)
		contractToo := l.contractMay(blockTags)
		if !phrases && !contractToo {
			continue
		}
		skipCode := hasCode && !l.lintCode && codeIn(d.code, b)
		normalized := false
		if phrases {
			normalize(d.mask, b.start, b.end, d.code, skipCode, n)
			sents = sentences(n.text, sents)
			normalized = true
			// One scan of the block tags every sentence.
			sc.hits = l.prefilter().hitsWith(n.text, sc.hits[:0], &sc.tails)
			from := 0
			ts := sc.sentTags[:0]
			for _, s := range sents {
				t := tagsIn(sc.hits, s.start, s.end, &from)
				if l.exhaustive {
					t = l.allTags
				}
				ts = append(ts, t)
			}
			sc.sentTags = ts
			for i, s := range sents {
				t := ts[i]
				if disownedNext(n.text, sents, i) {
					continue
				}
				if l.phrasesMay(t) {
					hits = l.matchSentence(n, s, t, hits, sc, !first, false)
				}
				if recordsMay(t) {
					hits = l.recordHits(n, s, hits)
				}
				if contractToo && !skipCode && l.contractMay(t) {
					hits = l.checks.matchSentence(n, s, t, hits)
				}
				// Two clauses joined by a semicolon, for the rules that
				// read a promise across one (phraseRule.Semicolon).
				if i+1 < len(sents) && n.text[s.end-1] == ';' {
					if tj := t | ts[i+1]; l.joinMay(tj) || comparisonMay(n.text[sents[i+1].start:sents[i+1].end]) {
						hits = l.matchSentence(n, span{s.start, sents[i+1].end}, tj, hits, sc, !first, true)
					}
				}
			}
		}
		if contractToo && (!normalized || skipCode) {
			normalize(d.mask, b.start, b.end, d.code, false, n)
			sents = sentences(n.text, sents)
			sc.hits = l.prefilter().hitsWith(n.text, sc.hits[:0], &sc.tails)
			from := 0
			for i, s := range sents {
				t := tagsIn(sc.hits, s.start, s.end, &from)
				if l.exhaustive {
					t = l.allTags
				}
				if l.contractMay(t) && !disownedNext(n.text, sents, i) {
					hits = l.checks.matchSentence(n, s, t, hits)
				}
			}
		}
	}
	return hits
}

// disownedNext reports whether sentence i ends in a semicolon and the
// clause after it disowns what it says ("...; don't carry that figure
// over", "...; Lumapay's own client stops after three attempts"): its
// claims are another system's, stated as the contrast.
func disownedNext(text []byte, sents []span, i int) bool {
	s := sents[i]
	return i+1 < len(sents) && text[s.end-1] == ';' && disownedClause(text[sents[i+1].start:sents[i+1].end])
}

// codeIn reports whether any code span lies inside block b.
func codeIn(code []span, b span) bool {
	i := sort.Search(len(code), func(i int) bool { return code[i].end > b.start })
	return i < len(code) && code[i].start < b.end
}

// matchSentence reports at most one hit per rule in the sentence s of n;
// tags says which rules' anchors occur in it. The verdicts depend on the
// sentence's text and tags alone, so they are kept for the rest of the
// file (sc.verdicts): a file with a claim is matched twice, once in its
// raw form to decide whether to parse it and once parsed, and the claim's
// sentence, the one the clause analysis spends most on, reads the same
// both times.
//
// Without withFix, a bounded claim's fix (a rewrite of the sentence) is
// left out: the raw pass only asks whether the file has a finding.
//
// With joined, s is two clauses joined by a semicolon, and only the rules
// that read a promise across one are matched.
func (l *linter) matchSentence(n *normText, s span, tags uint64, hits []hit, sc *scratch, withFix, joined bool) []hit {
	sent := n.text[s.start:s.end]
	var found []sentenceHit
	if i, ok := sc.verdictIndex[verdictKey{string(sent), tags, joined}]; ok {
		found = sc.verdicts[i]
	} else {
		sc.found = l.judgeSentence(sent, tags, joined, sc.found[:0])
		if len(sc.found) > 0 {
			found = append([]sentenceHit(nil), sc.found...)
		}
		if sc.verdictIndex == nil {
			sc.verdictIndex = map[verdictKey]int{}
		}
		sc.verdictIndex[verdictKey{string(sent), tags, joined}] = len(sc.verdicts)
		sc.verdicts = append(sc.verdicts, found)
	}
	for _, f := range found {
		r := &l.rules[f.rule]
		h, at, ok := l.judgeClaim(r, string(sent[f.start:f.end]), string(sent))
		if !ok {
			continue
		}
		if at != nil {
			f.start, f.end = f.start+at[0], f.start+at[1]
		}
		if f.bound != nil {
			h.rule, h.message, h.fix = r.bounded.ID, r.bounded.Message, ""
			if withFix {
				h.fix = boundedFix(n, s, f.bound)
			}
		}
		h.start, h.end = n.sourceSpan(s.start+f.start, s.start+f.end)
		hits = append(hits, h)
	}
	return hits
}

// judgeClaim is the finding of rule r's claim in match, read in its
// sentence (what the claim is about may lie outside the match: the
// method of "PATCH handlers are idempotent"): a family's is
// judged against the contract (or, for a contract-free family without
// one, keeps the rule's words); ok is false when the contract agrees. at,
// when set, narrows the finding to the figure inside the match.
func (l *linter) judgeClaim(r *compiledRule, match, sentence string) (h hit, at []int, ok bool) {
	h = hit{rule: r.id, message: r.message, fix: l.fixes[r.id]}
	switch {
	case r.family != nil && r.family.keepsRule:
		// Judged (against the contract, or the default retry policy
		// without one) under the rule's own id: a contradiction names
		// the contract value; an empty one keeps the rule's words.
		x, ok := r.family.judge(l.c, match, sentence)
		if !ok {
			return hit{}, nil, false
		}
		h.fix = fillFix(r.fix, l.c)
		if x.message != "" {
			h.message, h.path = x.message, x.path
		}
		if x.fix != "" {
			h.fix = x.fix
		}
	case r.family != nil && l.c != nil:
		// Judged against the contract: the contract value the claim
		// contradicts, or nothing when the contract agrees.
		x, ok := r.family.judge(l.c, match, sentence)
		if !ok {
			return hit{}, nil, false
		}
		h = hit{rule: RuleContradicts, message: x.message, fix: x.fix, path: x.path}
		at = x.at
	case r.family != nil:
		h.fix = fillFix(r.fix, nil)
	}
	return h, at, true
}

// sentenceHit is one rule's finding in a sentence, offsets in the
// sentence; bound is set for a bounded claim reported under the rule's
// bounded ID.
type sentenceHit struct {
	rule       int
	start, end int
	bound      []int
}

// verdictKey is a sentence's text and anchor tags: all judgeSentence reads.
type verdictKey struct {
	text   string
	tags   uint64
	joined bool
}

// judgeSentence appends the findings of the phrase rules in sent, at most
// one per rule. A yes-or-no question a bare "yes" answers is read a
// second time as the statement it affirms (affirmedQuestion), and a
// sentence with a part that leans on another (a comparison's second
// clause, an answer to a which-question) with that part filled in
// (filledIn), by the rules that found nothing in it as written.
func (l *linter) judgeSentence(sent []byte, tags uint64, joined bool, out []sentenceHit) []sentenceHit {
	affirmed := affirmedQuestion(sent)
	compared, at := filledIn(sent)
	for i := range l.rules {
		mark := len(out)
		out = l.judgeRule(i, sent, tags, joined, out)
		if len(out) == mark && len(affirmed) > 0 {
			out = l.judgeRule(i, affirmed, tags, joined, out)
		}
		if len(out) == mark && len(compared) > 0 {
			out = l.comparedClaim(i, compared, at, out)
		}
	}
	return out
}

// comparedClaim appends rule i's claim in the second clause of a
// comparison, read filled in (comparison): one hit on that clause. Every
// tag is set, since the filled-in words are not the sentence's; a
// bounded claim is left out, its bound's offsets being the reading's.
func (l *linter) comparedClaim(i int, read []byte, at [2]int, out []sentenceHit) []sentenceHit {
	for _, h := range l.judgeRule(i, read, l.allTags, false, nil) {
		if h.bound == nil {
			return append(out, sentenceHit{rule: i, start: at[0], end: at[1]})
		}
	}
	return out
}

// judgeRule appends the claims of rule i in sent.
func (l *linter) judgeRule(i int, sent []byte, tags uint64, joined bool, out []sentenceHit) []sentenceHit {
	r := &l.rules[i]
	rt := l.ruleTags[i]
	if joined && !r.semicolon || tags&rt.forms == 0 || rt.requires != 0 && (tags&rt.requires == 0 || !has(sent, r.requires...)) {
		return out
	}
	cl := clauseAnalysis()
	var memo boundMemo
	// Every claim of the rule in the sentence is reported, one hit per
	// claim: the forms' matches, overlaps merged.
	mark := len(out)
	for fi, f := range r.forms {
		if tags&rt.formBits[fi] == 0 {
			continue
		}
		if !f.match.Match(sent) || !allMatch(f.needs, sent) || anyMatch(f.unless, sent) {
			continue
		}
		for _, loc := range f.match.FindAllIndex(sent, -1) {
			if overlaps(out[mark:], loc[0], loc[1]) || f.denyWithin != nil && f.denyWithin.Match(sent[loc[0]:loc[1]]) {
				continue
			}
			v, bound := cl.judge(r, sent, loc[0], loc[1], &memo)
			if v == vMention {
				return out[:mark] // a definition: its other phrases are the definiens
			}
			if v == vHonest {
				continue
			}
			if joined && !retryAcross(sent, loc) {
				continue
			}
			h := sentenceHit{rule: i, start: loc[0], end: loc[1]}
			if v == vBounded {
				if r.bounded.ID == "" {
					return out[:mark] // the bound makes the sentence honest
				}
				h.bound = bound
			}
			out = append(out, h)
		}
	}
	sort.Slice(out[mark:], func(a, b int) bool { return out[mark+a].start < out[mark+b].start })
	return out
}

// reAffirmed is a yes-or-no question (it opens with an auxiliary, at the
// sentence's start or after a colon) answered by a bare affirmative:
// "is it safe to retry any call? yes." The answer may go on, but not with
// a hedge or a bound ("yes, but only with the same key", "yes, if ...").
var reAffirmed = regexp.MustCompile(`^([^?:]*: )?(is|are|was|were|do|does|did|can|could|will|would|should|shall|may|might|must|has|have)\b[^?]*(\?) (a: |answer: )?(yes|yep|yeah|yup|sure|absolutely|of course|definitely|indeed|correct|always)\b([.!,]|$)( (but|only|if|unless|when|whenever|as long as|provided|within|except|with (the|a|an|its|your) (same )?(idempotency[ -])?key)\b)?`)

// affirmedQuestion is a copy of sent with the question mark of a yes-or-no question
// that a bare "yes" answers made a comma: the answer affirms what the
// question asks ("Is it safe to retry any call? Yes." says it is), so the
// question is read as a statement. Any other sentence is returned as it
// is not one: nil. The copy keeps every offset.
func affirmedQuestion(sent []byte) []byte {
	if bytes.IndexByte(sent, '?') < 0 {
		return nil
	}
	m := reAffirmed.FindSubmatchIndex(sent)
	if m == nil || m[14] >= 0 || bytes.IndexByte(sent[m[7]:], '?') >= 0 {
		return nil // no affirmative, a hedged one, or a second question
	}
	out := append([]byte(nil), sent...)
	out[m[6]] = ','
	return out
}

// reJoinRetry is a verb of sending again (a replay from a console is one).
var reJoinRetry = regexp.MustCompile(`\b(retr\w*|re-?sen\w*|re-?submit\w*|replay\w*|again|once more)\b`)

// retryAcross reports whether the clause across the semicolon from the
// match at loc (sent is two clauses joined by one) sends again: that
// clause must supply the retry the match's clause lacks, not a harm it
// reports ("no keyed transfer ran twice; three keyless requests did").
func retryAcross(sent []byte, loc []int) bool {
	cut := bytes.Index(sent, []byte("; "))
	if cut < 0 {
		return false
	}
	other := sent[cut:]
	if loc[0] >= cut {
		other = sent[:cut]
	}
	return reJoinRetry.Match(other)
}

// overlaps reports whether [start, end) overlaps a hit of hs.
func overlaps(hs []sentenceHit, start, end int) bool {
	for _, h := range hs {
		if start < h.end && h.start < end {
			return true
		}
	}
	return false
}

func allMatch(res []*gatedRE, s []byte) bool {
	for _, re := range res {
		if !re.Match(s) {
			return false
		}
	}
	return true
}

func anyMatch(res []*gatedRE, s []byte) bool {
	for _, re := range res {
		if re.Match(s) {
			return true
		}
	}
	return false
}

// lineIndex maps byte offsets to 1-based line and column (in characters).
type lineIndex struct{ starts []int }

func newLineIndex(src []byte) lineIndex {
	starts := []int{0}
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return lineIndex{starts}
}

func (x lineIndex) pos(src []byte, off int) (line, col int) {
	lo, hi := 0, len(x.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if x.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if off > len(src) {
		off = len(src)
	}
	return lo + 1, utf8.RuneCount(src[x.starts[lo]:off]) + 1
}
