package copylint

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// suppression is one inline comment:
//
//	<!-- retryspec-disable-next-line copy/exactly-once -- quoting a vendor -->
//
// (or {/* ... */} in MDX, or the Markdown comment
// [//]: # (retryspec-disable-next-line copy/exactly-once -- quoting a vendor)). It waives the named rules on the next non-blank
// line; the reason after "--" is required and shown with the waived finding.
type suppression struct {
	off    int // of the marker
	rules  []string
	reason string
	target int // 1-based line it applies to; 0 when nothing follows
	used   bool
}

// findSuppressions finds the markers of src that sit in comments: not in
// prose (the mask keeps prose) and not in a code example.
func findSuppressions(src []byte, d *document, f format) []*suppression {
	var out []*suppression
	marker := []byte(suppressMarker)
	for from := 0; ; {
		i := bytes.Index(src[from:], marker)
		if i < 0 {
			break
		}
		off := from + i
		from = off + len(marker)
		if f != formatText && (d.mask[off] != gone || inSpans(d.skipped, off)) {
			continue // prose or a code example that shows the syntax
		}
		end := from
		for end < len(src) && src[end] != '\n' && !bytes.HasPrefix(src[end:], []byte("-->")) && !bytes.HasPrefix(src[end:], []byte("*/")) {
			end++
		}
		body := string(src[from:end])
		if linkRefComment(src, off) {
			// [//]: # (retryspec-disable-next-line RULES -- reason): the
			// Markdown comment h14's renderer writes; its title ends at
			// the last ")" of the line.
			if k := strings.LastIndexByte(body, ')'); k >= 0 {
				body = body[:k]
			}
		}
		ruleText, reason, _ := strings.Cut(body, "--")
		s := &suppression{off: off, reason: strings.TrimSpace(reason)}
		s.rules = append(s.rules, strings.FieldsFunc(ruleText, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })...)
		// The target is the first line after the comment's end that holds
		// prose: in HTML, a line of tags only (the <blockquote> that opens
		// a quoted example) is passed over, as a blank line is.
		for end < len(src) && src[end] != '\n' {
			end++
		}
		view := src
		if f != formatText && d != nil {
			view = d.mask
		}
		line := 1 + bytes.Count(src[:end], []byte("\n"))
		for p := end + 1; p < len(src); {
			q := bytes.IndexByte(src[p:], '\n')
			l := view[p:]
			if q >= 0 {
				l = view[p : p+q]
			}
			line++
			if hasProse(l) {
				s.target = line
				break
			}
			if q < 0 {
				break
			}
			p += q + 1
		}
		out = append(out, s)
	}
	return out
}

// hasProse reports whether a line of a mask holds any text.
func hasProse(l []byte) bool {
	for _, c := range l {
		if c != gone && c != ' ' && c != '\t' && c != '\r' {
			return true
		}
	}
	return false
}

// linkRefComment reports whether the marker at off is the title of a
// Markdown link reference definition used as a comment,
// "[//]: # (retryspec-disable-next-line ...)" on its own line, which
// CommonMark, MDX and Docusaurus read as nothing.
func linkRefComment(src []byte, off int) bool {
	ls := bytes.LastIndexByte(src[:off], '\n') + 1
	line := bytes.TrimLeft(src[ls:off], " \t")
	if !bytes.HasPrefix(line, []byte("[")) {
		return false
	}
	k := bytes.Index(line, []byte("]:"))
	if k < 1 {
		return false
	}
	rest := bytes.TrimSpace(line[k+2:])
	// The destination ("#", "<>", "/") then "(" opening the title.
	sp := bytes.IndexAny(rest, " \t")
	if sp < 0 {
		return false
	}
	return bytes.Equal(bytes.TrimSpace(rest[sp:]), []byte("("))
}

func inSpans(spans []span, off int) bool {
	for _, s := range spans {
		if off >= s.start && off < s.end {
			return true
		}
	}
	return false
}

// waivedBy reports, for a hit, whether one of sups waives it (waives).
// The learned reader does not veto such a hit: the writer has already
// judged the line (a rule page quoting what not to write), and a veto
// would leave the suppression waiving nothing, a finding of its own, and
// the line flagged again once the reader is off.
func waivedBy(sups []*suppression, src []byte) func(hit) bool {
	if len(sups) == 0 {
		return func(hit) bool { return false }
	}
	var lines *lineIndex
	return func(h hit) bool {
		if lines == nil {
			li := newLineIndex(src)
			lines = &li
		}
		line, _ := lines.pos(src, h.start)
		return slices.ContainsFunc(sups, func(s *suppression) bool { return s.waives(h.rule, line) })
	}
}

// waives reports whether s waives a finding of rule on line: a marker
// that names only copy rules and gives a reason (applySuppressions
// reports any other as a finding of its own), on the line above, naming
// the rule or all of them.
func (s *suppression) waives(rule string, line int) bool {
	return s.reason != "" && s.target == line && s.covers(rule) && len(s.unknownRules()) == 0
}

// unknownRules are the names s gives that are no copy rule.
func (s *suppression) unknownRules() []string {
	known := knownRules()
	var out []string
	for _, r := range s.rules {
		if !known[r] {
			out = append(out, r)
		}
	}
	return out
}

func (s *suppression) covers(rule string) bool {
	if len(s.rules) == 0 {
		return true
	}
	for _, r := range s.rules {
		if r == rule || r == "copy/*" {
			return true
		}
	}
	return false
}

// knownRules are the names a suppression may give, built once: building
// them per file copied the whole catalog each time, a tenth of a run's
// allocated bytes.
var knownRules = sync.OnceValue(func() map[string]bool {
	known := map[string]bool{"copy/*": true}
	for _, id := range RuleIDs() {
		known[id] = true
	}
	return known
})

// applySuppressions waives the findings an inline comment covers and adds
// the findings about the comments themselves: one without a reason waives
// nothing and is an error; one that waived nothing is a warning.
func applySuppressions(fs []findings.Finding, sups []*suppression, name string, lines lineIndex, src []byte) []findings.Finding {
	for _, s := range sups {
		line, col := lines.pos(src, s.off)
		at := findings.Finding{File: name, Line: line, Column: col}
		if unknown := s.unknownRules(); len(unknown) > 0 {
			f := at
			f.Rule, f.Severity = RuleUnusedSuppression, severityOf(RuleUnusedSuppression)
			// Quoted, so a name with a control character in it still
			// prints on one line.
			for i, r := range unknown {
				unknown[i] = strconv.Quote(r)
			}
			f.Message = fmt.Sprintf("suppression names %s, which is not a copy rule", strings.Join(unknown, ", "))
			f.Fix = "name a rule from `retryspec explain --list` (copy/exactly-once, copy/absolute-guarantee, ...)"
			fs = append(fs, f)
			continue
		}
		if s.reason == "" {
			f := at
			f.Rule, f.Severity = RuleSuppressionNoReason, severityOf(RuleSuppressionNoReason)
			f.Message = "suppression has no reason, so it waives nothing"
			f.Fix = "add the reason after two dashes: <!-- retryspec-disable-next-line " + strings.Join(s.rules, " ") + " -- why this copy is honest -->"
			fs = append(fs, f)
			continue
		}
		for i := range fs {
			f := &fs[i]
			if !f.Waived && strings.HasPrefix(f.Rule, "copy/") && f.Rule != RuleUnusedSuppression && f.Rule != RuleSuppressionNoReason && s.waives(f.Rule, f.Line) {
				f.Waived, f.WaivedBecause = true, s.reason
				s.used = true
			}
		}
		if !s.used {
			f := at
			f.Rule, f.Severity = RuleUnusedSuppression, severityOf(RuleUnusedSuppression)
			f.Message = fmt.Sprintf("suppression of %s waives nothing on line %d", ruleList(s.rules), s.target)
			f.Fix = "remove the comment, or move it to the line just above the finding"
			fs = append(fs, f)
		}
	}
	return fs
}

func ruleList(rules []string) string {
	if len(rules) == 0 {
		return "all copy rules"
	}
	return strings.Join(rules, ", ")
}

// allowList applies docs.copy.allow: each entry waives one rule (or copy/*)
// on the files matching its path glob. It is shared by the workers of a
// run, and remembers which entries matched a file and which waived a
// finding, to report the unused ones.
type allowList struct {
	entries []contract.CopyAllow
	file    string // the contract, for positions of unused entries
	mu      sync.Mutex
	matched []bool
	used    []bool
}

func newAllowList(c *contract.Contract) *allowList {
	if c == nil || len(c.Docs.Copy.Allow) == 0 {
		return nil
	}
	n := len(c.Docs.Copy.Allow)
	return &allowList{entries: c.Docs.Copy.Allow, file: c.File, matched: make([]bool, n), used: make([]bool, n)}
}

// allowMatch reports whether the path glob matches name, as written or
// relative to the folder the glob is rooted in.
func allowMatch(glob, name string) bool {
	p := filepath.ToSlash(filepath.Clean(name))
	g := strings.TrimPrefix(filepath.ToSlash(glob), "./")
	if ok, _ := doublestar.Match(g, p); ok {
		return true
	}
	// A glob without a folder part matches the base name anywhere.
	if !strings.Contains(g, "/") {
		ok, _ := doublestar.Match(g, filepath.Base(p))
		return ok
	}
	return false
}

// saw records that name was linted, for the entries whose glob matches it.
func (a *allowList) saw(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, e := range a.entries {
		if !a.matched[i] && allowMatch(e.Path, name) {
			a.matched[i] = true
		}
	}
}

func (a *allowList) apply(name string, fs []findings.Finding) []findings.Finding {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, e := range a.entries {
		if !allowMatch(e.Path, name) {
			continue
		}
		a.matched[i] = true
		for j := range fs {
			f := &fs[j]
			if f.Waived || f.Rule == RuleUnusedSuppression || f.Rule == RuleSuppressionNoReason {
				continue
			}
			if e.Rule == f.Rule || e.Rule == "copy/*" {
				f.Waived, f.WaivedBecause = true, e.Because
				a.used[i] = true
			}
		}
	}
	return fs
}

// unused reports the entries that matched a linted file but waived nothing.
// An entry whose glob matched no linted file is not reported: the run may
// have been given a subset of the docs.
func (a *allowList) unused() []findings.Finding {
	var out []findings.Finding
	for i, e := range a.entries {
		if a.matched[i] && !a.used[i] {
			out = append(out, findings.Finding{
				Rule: RuleUnusedSuppression, Severity: severityOf(RuleUnusedSuppression),
				Message: fmt.Sprintf("docs.copy.allow entry for %s on %s waives nothing", e.Rule, e.Path),
				File:    a.file, Line: e.Pos.Line, Column: e.Pos.Column,
				Path: fmt.Sprintf("docs.copy.allow[%d]", i),
				Fix:  "remove the entry, or narrow its path to the files that still need it",
			})
		}
	}
	return out
}
