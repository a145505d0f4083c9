package render

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
)

// markdownFuncs are the functions Markdown templates may call. The
// escapers (see escapers) are the only way a value reaches the output.
var markdownFuncs = template.FuncMap{
	// md escapes text: no emphasis, link, HTML or table syntax survives.
	"md": func(v any) string { return EscapeMarkdown(fmt.Sprint(v)) },
	// code writes inline code; cellcode does the same inside a table cell.
	"code":     func(v any) string { return CodeSpan(fmt.Sprint(v)) },
	"cellcode": func(v any) string { return CellCodeSpan(fmt.Sprint(v)) },
	// conflictcode is a conflict's code in a table cell, or says the API
	// answers it by status only; conflictstatus is "409 code" (or "409").
	"conflictcode": func(c contract.Conflict) string {
		if c.Code == "" {
			return "none (status only)"
		}
		return CellCodeSpan(c.Code)
	},
	"conflictstatus": func(c contract.Conflict) string {
		if c.Code == "" {
			return CellCodeSpan(fmt.Sprint(c.Status))
		}
		return CellCodeSpan(fmt.Sprintf("%d %s", c.Status, c.Code))
	},
	// fence writes a fenced code block whose content is exactly code.
	"fence": func(lang string, code any) string {
		var s string
		switch c := code.(type) {
		case []byte:
			s = string(c)
		default:
			s = fmt.Sprint(c)
		}
		return FencedCode(safeFenceTag(lang), s)
	},
	"num":   formatNumber,
	"dur":   formatDuration,
	"human": humanDuration,
	// slug turns a name into [a-z0-9-] for anchors, file names and markers.
	"slug": Slug,
	// ident prints a rule ID as it is when it is one, escaped otherwise.
	"ident": func(s string) string {
		if ruleID.MatchString(s) {
			return s
		}
		return EscapeMarkdown(s)
	},
	// marker writes a copy-linter marker line naming the rules in ids
	// (space-separated rule IDs) with a reason, or nothing when ids is
	// empty. The marker is a link reference definition, the form
	// CommonMark, MDX 3 and Docusaurus's format: md all accept and never
	// show (an HTML comment fails as MDX); the HTML site turns it back into
	// a comment. The reason is template text; it cannot end the marker.
	"marker": func(ids, reason string) string {
		if ids == "" {
			return ""
		}
		for _, id := range strings.Fields(ids) {
			if !ruleID.MatchString(id) {
				return ""
			}
		}
		return CopyMarker(strings.Fields(ids), reason) + "\n"
	},
	// link is the relative Markdown path of a rule's page.
	"link": func(r rules.Rule) string { return RulePath(r.ID) },
	// rulefile is a rule page's file name, for links between rule pages.
	"rulefile": func(r rules.Rule) string { return Slug(r.ID) + ".md" },
	// url percent-encodes what could end or break a link destination.
	"url": safeURL,
	// markdown inserts Markdown written by retryspec's own packages (the
	// snippet languages' library notes), never contract text.
	"markdown": func(s string) string { return s },
	// oneline joins a multi-line text so a marker comment covers all of it.
	"oneline": oneLine,
	"inc":     func(i int) int { return i + 1 },
	// capfirst starts a catalog sentence with a capital letter.
	"capfirst": capFirst,
}

var ruleID = regexp.MustCompile(`^[a-z0-9][a-z0-9/_.-]*$`)

var fenceTag = regexp.MustCompile(`^[a-z0-9+#-]*$`)

func safeFenceTag(s string) string {
	if fenceTag.MatchString(s) {
		return s
	}
	return ""
}

func formatNumber(v any) string {
	switch n := v.(type) {
	case int:
		return strconv.Itoa(n)
	case float64:
		return strconv.FormatFloat(n, 'f', -1, 64)
	}
	return EscapeMarkdown(fmt.Sprint(v))
}

func toDuration(v any) time.Duration {
	switch d := v.(type) {
	case contract.Duration:
		return d.D
	case time.Duration:
		return d
	}
	return 0
}

// formatDuration writes a duration in the contract's syntax: the user's own
// spelling for a contract value, canonical for a computed one.
func formatDuration(v any) string {
	if d, ok := v.(contract.Duration); ok && d.Text != "" {
		return EscapeMarkdown(d.Text)
	}
	d := toDuration(v)
	if d%time.Millisecond != 0 {
		d = d.Round(time.Millisecond)
	}
	return contract.FormatDuration(d)
}

func humanDuration(v any) string { return contract.HumanDuration(toDuration(v)) }

// Slug lowers s to letters, digits and single dashes.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// RulePath is the Markdown path of a rule's page, relative to the site root.
func RulePath(id string) string { return "rules/" + Slug(id) + ".md" }

// safeURL keeps http(s), relative and fragment links, percent-encoding the
// characters that would end a Markdown link destination; anything else
// (javascript:, data:) becomes "#".
func safeURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "#"
	}
	if u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" {
		return "#"
	}
	var b strings.Builder
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>[]\\\"'`{}|^ ", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func capFirst(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// CopyMarker is the Markdown form of a copy-lint suppression for the next
// line: `[//]: # (retryspec-disable-next-line RULE... -- reason)`.
func CopyMarker(ids []string, reason string) string {
	reason = strings.NewReplacer("(", "", ")", "", "\n", " ", "\r", " ", "--", "-").Replace(reason)
	return "[//]: # (retryspec-disable-next-line " + strings.Join(ids, " ") + " -- " + strings.TrimSpace(reason) + ")"
}
