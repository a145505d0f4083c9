package findings

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Report is what an encoder prints: the findings of one run plus what the
// formats need around them.
type Report struct {
	// Tool names the producer in SARIF and in the text summary ("retryspec").
	Tool string
	// Version of the tool, for SARIF's driver; may be empty.
	Version string
	// Findings, in any order: Encode sorts a copy.
	Findings []Finding
	// Rules documents every rule a finding may name (SARIF rules[]).
	Rules []RuleDoc
	// Sources maps a finding's File to its content, for the source line
	// and caret in text output. A file without an entry prints no excerpt.
	Sources map[string][]byte
	// Color enables ANSI colour in text output; the CLI sets it only for a
	// terminal without NO_COLOR.
	Color bool
}

// Format is one output format: a row of the table behind --format, its
// help text and its shell completion.
type Format struct {
	Name        string
	Description string
	Encode      func(w io.Writer, r Report) error
}

// Formats is every output format, in the order help lists them. To add a
// format, write an encode_<name>.go with func(io.Writer, Report) error, add
// its row here, and a golden file via `go test ./findings -update`; the
// --format flag, its help and completion pick it up from this table.
var Formats = []Format{
	{Name: "text", Description: "file:line:col, the source line with a caret, and the fix", Encode: encodeText},
	{Name: "json", Description: `{"findings": [...], "summary": {...}}`, Encode: encodeJSON},
	{Name: "sarif", Description: "SARIF 2.1.0, for code scanning", Encode: encodeSARIF},
	{Name: "github", Description: "GitHub Actions workflow annotations", Encode: encodeGitHub},
}

// FormatNames lists the names of Formats.
func FormatNames() []string {
	out := make([]string, len(Formats))
	for i, f := range Formats {
		out[i] = f.Name
	}
	return out
}

// LookupFormat finds a format by name.
func LookupFormat(name string) (Format, bool) {
	i := slices.IndexFunc(Formats, func(f Format) bool { return f.Name == name })
	if i < 0 {
		return Format{}, false
	}
	return Formats[i], true
}

// Encode writes r in the named format, findings sorted.
func Encode(w io.Writer, format string, r Report) error {
	f, ok := LookupFormat(format)
	if !ok {
		return fmt.Errorf("unknown format %q (one of %s)", format, strings.Join(FormatNames(), ", "))
	}
	r.Findings = slices.Clone(r.Findings)
	Sort(r.Findings)
	return f.Encode(w, r)
}

// Summary counts a run's findings for the JSON and text summaries.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Waived   int `json:"waived"`
}

// Summarize counts fs: errors and warnings that are not waived, and waived ones.
func Summarize(fs []Finding) Summary {
	var s Summary
	s.Errors, s.Warnings = Counts(fs)
	for _, f := range fs {
		if f.Waived {
			s.Waived++
		}
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func (s Summary) String() string {
	out := plural(s.Errors, "error", "errors") + ", " + plural(s.Warnings, "warning", "warnings")
	if s.Waived > 0 {
		out += fmt.Sprintf(", %d waived", s.Waived)
	}
	return out
}
