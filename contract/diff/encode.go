package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// Report is what the encoders print: the changes between two contracts and
// the names the reader knows them by.
type Report struct {
	// Old and New label the two sides: "old.yaml", "3f2a9c1:retryspec.yaml".
	Old, New string
	// File is the new contract's path, for annotations.
	File    string
	Changes []Change
	// Unused are acknowledgements that match no change.
	Unused []contract.Change
	// Color paints the text format's class labels (a terminal, NO_COLOR unset).
	Color bool
}

// Formats maps each --format name to its encoder; the CLI's choices and
// help come from here, so a format cannot be listed without existing.
var Formats = map[string]func(io.Writer, Report) error{
	"text":     encodeText,
	"json":     encodeJSON,
	"markdown": encodeMarkdown,
	"github":   encodeGitHub,
}

// FormatNames lists the formats, sorted.
func FormatNames() []string {
	names := make([]string, 0, len(Formats))
	for n := range Formats {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Encode writes r in the named format.
func Encode(w io.Writer, format string, r Report) error {
	enc, ok := Formats[format]
	if !ok {
		return fmt.Errorf("unknown format %q (one of %s)", format, strings.Join(FormatNames(), ", "))
	}
	return enc(w, r)
}

// DisplayField names a change's field for people: the endpoint's operation
// beside its index, "(contract)" for the whole file.
func DisplayField(c Change) string {
	f := c.Field
	if f == "" {
		f = "(contract)"
	}
	if c.Endpoint != "" {
		f += " (" + c.Endpoint + ")"
	}
	return f
}

// CountLine summarizes the changes in one line.
func CountLine(cs []Change) string { return countLine(cs, true) }

func countLine(cs []Change, acks bool) string {
	s := Summarize(cs)
	if len(cs) == 0 {
		return "no changes to the contract's meaning"
	}
	parts := []string{plural(s.Breaking, "breaking change")}
	if s.Breaking > 0 && acks {
		if s.Unacknowledged == 0 {
			parts[0] += " (all acknowledged)"
		} else if s.Unacknowledged < s.Breaking {
			parts[0] += fmt.Sprintf(" (%d not acknowledged)", s.Unacknowledged)
		} else {
			parts[0] += " (not acknowledged)"
		}
	}
	parts = append(parts, fmt.Sprintf("%d notable", s.Notable), fmt.Sprintf("%d compatible", s.Compatible))
	return strings.Join(parts, ", ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func arrow(c Change) string { return show(c.Old) + " -> " + show(c.New) }

func encodeText(w io.Writer, r Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s -> %s: %s\n", r.Old, r.New, CountLine(r.Changes))
	// The findings printer's colours: breaking as an error, notable as a
	// warning, compatible muted as a waived finding.
	p := findings.Printer{Color: r.Color}
	style := map[Class]findings.Style{Breaking: findings.StyleError, Notable: findings.StyleWarning, Compatible: findings.StyleMuted}
	for _, c := range r.Changes {
		label := p.Paint(style[c.Class], fmt.Sprintf("%-10s", c.Class))
		fmt.Fprintf(&b, "\n%s %s: %s\n", label, DisplayField(c), arrow(c))
		fmt.Fprintf(&b, "  why: %s\n", c.Why)
		if c.Migration != "" {
			fmt.Fprintf(&b, "  migration: %s\n", c.Migration)
		}
		if c.Acknowledged {
			fmt.Fprintf(&b, "  acknowledged: %s\n", c.Because)
		} else if c.Class == Breaking {
			fmt.Fprintf(&b, "  not acknowledged: add a changes: entry for %s with because:, or pass --allow-breaking\n", ackField(c))
		}
	}
	for _, u := range r.Unused {
		fmt.Fprintf(&b, "\nwarning: %s:%d: the changes: entry for %q matches no change\n", r.File, u.Pos.Line, u.Field)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ackField is the field to name in a `changes:` entry: the operation form
// for endpoints, which survives reordering the list.
func ackField(c Change) string {
	if c.Endpoint != "" {
		if i := strings.IndexByte(c.Field, ']'); i >= 0 {
			return "endpoints[" + c.Endpoint + "]" + c.Field[i+1:]
		}
	}
	return c.Field
}

type jsonUnused struct {
	Field   string `json:"field"`
	Because string `json:"because"`
	Line    int    `json:"line"`
}

func encodeJSON(w io.Writer, r Report) error {
	out := struct {
		Old     string       `json:"old"`
		New     string       `json:"new"`
		Changes []Change     `json:"changes"`
		Summary Summary      `json:"summary"`
		Unused  []jsonUnused `json:"unused_acknowledgements"`
	}{Old: r.Old, New: r.New, Changes: r.Changes, Summary: Summarize(r.Changes), Unused: []jsonUnused{}}
	if out.Changes == nil {
		out.Changes = []Change{}
	}
	for _, u := range r.Unused {
		out.Unused = append(out.Unused, jsonUnused{u.Field, u.Because, u.Pos.Line})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// encodeMarkdown writes a PR comment that doubles as a changelog entry:
// breaking changes first, each with its migration note. Contract strings
// are escaped: they reach rendered HTML on GitHub and on the site.
//
// Each acknowledged change is listed once, with its acknowledgement: the
// edits to the contract's changes: list itself are not listed apart (an
// acknowledgement that matches a change is shown under it, one that
// matches none under Unused acknowledgements).
func encodeMarkdown(w io.Writer, r Report) error {
	var b strings.Builder
	var listed []Change
	for _, c := range r.Changes {
		if c.Row != "changes" {
			listed = append(listed, c)
		}
	}
	s := Summarize(listed)
	fmt.Fprintf(&b, "## Contract changes\n\n")
	fmt.Fprintf(&b, "%s → %s: %s.\n", code(r.Old), code(r.New), mdEscape(CountLine(listed)))
	if s.Unacknowledged > 0 {
		fmt.Fprintf(&b, "\n> [!CAUTION]\n> %s break integrators and %s not acknowledged. "+
			"Record each in the contract's `changes:` list with `because:` once integrators are ready, or revert it.\n",
			plural(s.Unacknowledged, "change"), map[bool]string{true: "is", false: "are"}[s.Unacknowledged == 1])
	}
	writeGroups(&b, listed, "###", true)
	for i, u := range r.Unused {
		if i == 0 {
			b.WriteString("\n### Unused acknowledgements\n\n")
		}
		fmt.Fprintf(&b, "- %s (line %d) matches no change.\n", code(u.Field), u.Pos.Line)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeGroups writes the changes under one heading per class, worst first,
// each with its reason, migration note and acknowledgement.
// With instructions, an unacknowledged breaking change says how to
// acknowledge it (for the PR comment, not for the published changelog).
func writeGroups(b *strings.Builder, changes []Change, heading string, instructions bool) {
	titles := map[Class]string{Breaking: "Breaking", Notable: "Notable", Compatible: "Compatible"}
	for _, class := range Classes {
		var group []Change
		for _, c := range changes {
			if c.Class == class {
				group = append(group, c)
			}
		}
		if len(group) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n%s %s\n\n", heading, titles[class])
		for _, c := range group {
			field := code(c.Field)
			if c.Field == "" {
				field = "the contract"
			}
			if c.Endpoint != "" {
				field += " (" + code(c.Endpoint) + ")"
			}
			fmt.Fprintf(b, "- **%s**: %s → %s  \n", field, code(show(c.Old)), code(show(c.New)))
			fmt.Fprintf(b, "  %s", markdownText(c.Why, c.whyTmpl, c))
			if c.Migration != "" {
				fmt.Fprintf(b, "  \n  **Migration:** %s", markdownText(c.Migration, c.migrationTmpl, c))
			}
			switch {
			case c.Acknowledged:
				fmt.Fprintf(b, "  \n  **Acknowledged:** %s", mdEscape(sentence(c.Because)))
			case c.Class == Breaking && instructions:
				fmt.Fprintf(b, "  \n  **Not acknowledged:** to accept it, add %s under %s.", code(fmt.Sprintf("{field: %q, because: \"...\"}", ackField(c))), code("changes:"))
			}
			b.WriteString("\n")
		}
	}
}

// markdownText renders a change's reason or migration note as a Markdown
// sentence, values in code spans when the template is known (a Change
// decoded from JSON has only the expanded text, escaped as prose).
func markdownText(text, tmpl string, c Change) string {
	if tmpl == "" {
		return mdEscape(sentence(text))
	}
	return sentenceMarkdown(expandMarkdown(tmpl, c.Old, c.New, c.value))
}

// sentenceMarkdown capitalizes a leading letter (not a code span) and ends
// the sentence with a full stop.
func sentenceMarkdown(s string) string {
	if s == "" || s[0] == '`' {
		if s != "" && !strings.HasSuffix(s, ".") {
			s += "."
		}
		return s
	}
	return sentence(s)
}

// sentence capitalizes the first letter and ends with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") && !strings.HasSuffix(s, "?") {
		s += "."
	}
	return s
}

// mdEscape makes text inert in Markdown and HTML: punctuation that starts
// markup is backslash-escaped, and <, > and & become entities.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '|', '~', '#', '!', '(', ')':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

var lineBreaks = strings.NewReplacer("\n", " ", "\r", " ")

// code renders s as an inline code span, choosing a fence longer than any
// run of backticks inside it (CommonMark), so s can never close it early.
// Code spans do not interpret entities or markup, so nothing else is needed.
func code(s string) string {
	s = lineBreaks.Replace(s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// encodeGitHub writes workflow commands that annotate the contract file in
// the pull request: an error per unacknowledged breaking change, a warning
// per acknowledged one, a notice per notable one. Compatible changes are
// not annotated.
func encodeGitHub(w io.Writer, r Report) error {
	var b strings.Builder
	for _, c := range r.Changes {
		level, title := "notice", "Notable contract change"
		switch {
		case c.Class == Compatible:
			continue
		case c.Blocking():
			level, title = "error", "Breaking contract change"
		case c.Class == Breaking:
			level, title = "warning", "Breaking contract change (acknowledged)"
		}
		msg := DisplayField(c) + ": " + arrow(c) + ". " + sentence(c.Why)
		if c.Migration != "" {
			msg += " Migration: " + sentence(c.Migration)
		}
		if c.Acknowledged {
			msg += " Acknowledged: " + sentence(c.Because)
		}
		fmt.Fprintf(&b, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", level,
			ghProperty(r.File), max(c.Pos.Line, 1), max(c.Pos.Column, 1), ghProperty(title+": "+DisplayField(c)), ghData(msg))
	}
	for _, u := range r.Unused {
		fmt.Fprintf(&b, "::warning file=%s,line=%d,title=%s::%s\n", ghProperty(r.File), max(u.Pos.Line, 1),
			ghProperty("Unused acknowledgement"), ghData(fmt.Sprintf("the changes: entry for %q matches no change", u.Field)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// GitHub workflow commands: data escapes %, CR and LF; property values
// also escape : and , (actions/toolkit escapeData, escapeProperty). The
// findings package keeps the same two unexported.
var (
	ghDataReplacer     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghPropertyReplacer = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func ghData(s string) string     { return ghDataReplacer.Replace(s) }
func ghProperty(s string) string { return ghPropertyReplacer.Replace(s) }
