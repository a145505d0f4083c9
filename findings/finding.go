// Package findings holds the one finding type every checker produces (the
// contract rules, the copy linter, OpenAPI drift, snippet tests) and the
// encoders that print them. It imports nothing of retryspec's own.
package findings

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Severity orders findings; only Error fails a run (Warning too with --strict).
type Severity int

const (
	Warning Severity = iota + 1
	Error
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "unknown"
}

// ParseSeverity is the inverse of String.
func ParseSeverity(s string) (Severity, error) {
	switch s {
	case "error":
		return Error, nil
	case "warning":
		return Warning, nil
	}
	return 0, fmt.Errorf("unknown severity %q", s)
}

func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

func (s *Severity) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	p, err := ParseSeverity(v)
	*s = p
	return err
}

// Finding is one problem at one place. Its JSON shape is the interface
// docs/contract.md ("Findings") documents: rule, severity, message, file,
// line, column, path, fix.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Column   int      `json:"column"`
	// EndColumn, when set, bounds the span on Line (for copy findings).
	EndColumn int    `json:"end_column,omitempty"`
	Path      string `json:"path,omitempty"`
	Fix       string `json:"fix,omitempty"`
	// Waived findings stay listed, with the reason, and never fail a run.
	Waived        bool   `json:"waived,omitempty"`
	WaivedBecause string `json:"waived_because,omitempty"`
}

// Counts reports error and warning findings that are not waived.
func Counts(fs []Finding) (errors, warnings int) {
	for _, f := range fs {
		if f.Waived {
			continue
		}
		switch f.Severity {
		case Error:
			errors++
		case Warning:
			warnings++
		}
	}
	return errors, warnings
}

// Failed reports whether the findings fail a run: any unwaived error, or
// with strict any unwaived warning.
func Failed(fs []Finding, strict bool) bool {
	e, w := Counts(fs)
	return e > 0 || (strict && w > 0)
}

// Sort orders findings by file, line, column, rule and message, so every
// encoder prints the same order for the same input.
func Sort(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
}

// RuleDoc is the documentation of one rule as encoders need it (SARIF's
// rules[] array, help links). The catalog in contract/rules fills it.
type RuleDoc struct {
	ID        string
	Severity  Severity
	Summary   string
	Rationale string
	Fix       string
	Sources   []Source
}

// Source is a citation behind a rule.
type Source struct {
	Title string
	URL   string
}
