package copylint

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed phrases.yaml
var phrasesYAML []byte

// phraseFile is the shape of phrases.yaml.
type phraseFile struct {
	Clause clauseData   `yaml:"clause"`
	Rules  []phraseRule `yaml:"rules"`
}

type phraseRule struct {
	ID         string       `yaml:"id"`
	Anchors    []string     `yaml:"anchors"`
	Requires   []string     `yaml:"requires"`
	Forms      []phraseForm `yaml:"forms"`
	DenyBefore string       `yaml:"deny_before"`
	DenyAfter  string       `yaml:"deny_after"`
	Qualified  string       `yaml:"qualified"`
	// Bounded is the rule a qualified match reports under instead of
	// passing (copy/exactly-once-bounded); empty: a qualified match passes.
	Bounded boundedRule `yaml:"bounded"`
	// Clause turns on the definition, attribution and modality checks of
	// the clause analysis (clause.go).
	Clause bool `yaml:"clause"`
	// Family names the kind of promise (families.go): the rule is judged
	// against the contract's values, and skipped without a contract
	// unless the family is contract-free.
	Family string `yaml:"family"`
	// Semicolon: the rule also reads two clauses joined by a semicolon
	// as one sentence, for a promise whose parts a writer puts on both
	// sides of it ("send it again; no key is needed"). Each clause is
	// still a sentence of its own for every rule.
	Semicolon bool   `yaml:"semicolon"`
	Message   string `yaml:"message"`
	Fix       string `yaml:"fix"`
}

type boundedRule struct {
	ID      string `yaml:"id"`
	Message string `yaml:"message"`
}

type phraseForm struct {
	Match   string   `yaml:"match"`
	Anchors []string `yaml:"anchors"`
	Needs   []string `yaml:"needs"`
	Unless  []string `yaml:"unless"`
	// DenyWithin is a denial inside the match, for a form whose match
	// spans the words between a verb and its object ("retries do not go
	// on forever").
	DenyWithin string `yaml:"deny_within"`
	// Compares names what the family's judge compares in the match with
	// the contract ("the statuses it names against retry.statuses"): the
	// form's verdict is a figure Vale cannot compare, so the Vale export
	// leaves the form out and names it.
	Compares string `yaml:"compares"`
}

// loadPhrases parses the embedded phrase sets. The file is part of the
// binary and covered by tests, so a parse error is a programming error.
func loadPhrases() []phraseRule { return loadPhraseFile().Rules }

// loadPhraseFile is phrases.yaml, decoded once per process (the linter
// and the clause analysis both read it); callers read the result and
// never change it.
func loadPhraseFile() phraseFile { return phraseFileOnce() }

var phraseFileOnce = sync.OnceValue(decodePhraseFile)

func decodePhraseFile() phraseFile {
	var f phraseFile
	dec := yaml.NewDecoder(strings.NewReader(string(phrasesYAML)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		panic(fmt.Sprintf("copylint: phrases.yaml: %v", err))
	}
	return f
}

// compiledRule is a phrase rule ready to match, with the contract's header
// name substituted into its patterns.
type compiledRule struct {
	id         string
	anchors    []string
	requires   []string
	forms      []compiledForm
	denyBefore *gatedRE
	denyAfter  *gatedRE
	qualified  *gatedRE
	bounded    boundedRule
	clause     bool
	semicolon  bool
	family     *familyRow // nil: a phrase rule of its own
	message    string
	fix        string
}

type compiledForm struct {
	anchors []string // the rule's when the form has none of its own
	// shared: the form has no anchors of its own and shares the rule's
	// prefilter bit with the rule's other such forms.
	shared bool
	match  *gatedRE
	needs  []*gatedRE
	unless []*gatedRE
	// denyWithin, matched on the match itself, makes it honest.
	denyWithin *gatedRE
}

// headerPattern is the regexp for the idempotency header name in prose: the
// contract's header (matching is on lower-cased text) besides the common
// Idempotency-Key spelling.
func headerPattern(header string) string {
	const common = `idempotency[ -]key`
	h := strings.ToLower(header)
	if h == "" || h == "idempotency-key" {
		return common
	}
	return "(?:" + common + "|" + regexp.QuoteMeta(h) + ")"
}

// durationPattern is {duration} in phrases.yaml: a span of time in
// digits (with thousands separators: "259,200 seconds") or words, as reDuration reads it (families.go judges the match
// with reDuration), in groups that capture nothing so the forms' own
// groups keep their numbers.
const durationPattern = `(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?[ -]?(?:seconds?|minutes?|hours?|days?|weeks?|fortnights?|months?|years?|h|d|w)|(?:half an?|a couple of|several|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|eighteen|twenty|twenty-four|thirty|thirty-six|forty|forty-five|forty-eight|fifty|sixty|seventy-two|ninety)[ -](?:full |whole |entire |single )?(?:seconds?|minutes?|hours?|days?|weeks?|fortnights?|months?|years?))`

// percentPattern stands for "100%" in every pattern: the whole said in
// words ("100 percent", "a hundred per cent") is the same promise.
const percentPattern = `(?:100%|100 ?percent|100 per ?cent|(?:one |a )?hundred (?:percent|per ?cent))`

// expandPattern fills a phrases.yaml pattern's placeholders: {header}
// with hp (headerPattern), {duration} with durationPattern, and reads a
// literal "100%" as percentPattern.
func expandPattern(s, hp string) string {
	s = strings.ReplaceAll(s, "100%", percentPattern)
	return strings.ReplaceAll(strings.ReplaceAll(s, "{header}", hp), "{duration}", durationPattern)
}

func compilePhrases(rules []phraseRule, header string) ([]compiledRule, error) {
	hp := headerPattern(header)
	re := func(s string) (*regexp.Regexp, error) {
		if s == "" {
			return nil, nil
		}
		return regexp.Compile(expandPattern(s, hp))
	}
	var out []compiledRule
	for _, r := range rules {
		var requires []string
		for _, w := range r.Requires {
			if w == "{header}" {
				if header == "" {
					continue
				}
				w = strings.ToLower(header)
			}
			requires = append(requires, w)
		}
		c := compiledRule{id: r.ID, anchors: r.Anchors, requires: requires, message: r.Message, fix: r.Fix, bounded: r.Bounded, clause: r.Clause, semicolon: r.Semicolon}
		if r.Family != "" {
			fam, ok := familyByName(r.Family)
			if !ok {
				return nil, fmt.Errorf("%s: unknown family %q", r.ID, r.Family)
			}
			c.family = fam
		}
		var err error
		var x *regexp.Regexp
		if x, err = re(r.DenyBefore); err != nil {
			return nil, fmt.Errorf("%s deny_before: %w", r.ID, err)
		}
		c.denyBefore = gated(x)
		if x, err = re(anchored(r.DenyAfter)); err != nil {
			return nil, fmt.Errorf("%s deny_after: %w", r.ID, err)
		}
		c.denyAfter = gated(x)
		if x, err = re(r.Qualified); err != nil {
			return nil, fmt.Errorf("%s qualified: %w", r.ID, err)
		}
		c.qualified = gated(x)
		for i, f := range r.Forms {
			cf := compiledForm{anchors: f.Anchors}
			if len(cf.anchors) == 0 {
				cf.anchors, cf.shared = r.Anchors, true
			}
			if x, err = re(f.Match); err != nil {
				return nil, fmt.Errorf("%s form %d: %w", r.ID, i+1, err)
			}
			cf.match = gated(x)
			for _, n := range f.Needs {
				x, err := re(n)
				if err != nil {
					return nil, fmt.Errorf("%s form %d needs: %w", r.ID, i+1, err)
				}
				cf.needs = append(cf.needs, gated(x))
			}
			for _, n := range f.Unless {
				x, err := re(n)
				if err != nil {
					return nil, fmt.Errorf("%s form %d unless: %w", r.ID, i+1, err)
				}
				cf.unless = append(cf.unless, gated(x))
			}
			if x, err = re(f.DenyWithin); err != nil {
				return nil, fmt.Errorf("%s form %d deny_within: %w", r.ID, i+1, err)
			}
			cf.denyWithin = gated(x)
			c.forms = append(c.forms, cf)
		}
		out = append(out, c)
	}
	return out, nil
}

// anchored wraps a pattern that is documented to match at the start of the
// text after a match (each alternative begins with "^") in one "^(?:...)":
// Go's matcher tries only position 0 then, instead of every position.
func anchored(p string) string {
	if p == "" {
		return ""
	}
	return "^(?:" + p + ")"
}

// gated puts a literal gate before re; nil stays nil.
func gated(re *regexp.Regexp) *gatedRE {
	if re == nil {
		return nil
	}
	return newGatedRE(re)
}
