package verify

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/retryspec/retryspec/findings"
)

// Formats are verify's output formats: the findings formats (whose table
// is findings.Formats) plus junit.
var Formats = append(findings.FormatNames(), "junit")

// ownEncoders are the formats verify writes itself: text and json carry
// the gate table, junit is verify's alone. Every other format is the
// findings format of that name, given the findings with their
// reproductions in the message.
var ownEncoders = map[string]func(io.Writer, *Result, findings.Report) error{
	"text":  encodeText,
	"json":  func(w io.Writer, res *Result, _ findings.Report) error { return encodeJSON(w, res) },
	"junit": func(w io.Writer, res *Result, _ findings.Report) error { return encodeJUnit(w, res) },
}

// Summary counts gate results.
type Summary struct {
	Passed, Failed, Skipped int
}

// Summarize counts the gates of a run.
func (res *Result) Summarize() Summary {
	var s Summary
	for _, g := range res.Gates {
		switch g.Result {
		case Passed:
			s.Passed++
		case Failed:
			s.Failed++
		case Skipped:
			s.Skipped++
		}
	}
	return s
}

// Failed reports whether a gate failed.
func (res *Result) Failed() bool { return res.Summarize().Failed > 0 }

// sortedFindings returns the findings in the order every format prints.
func (res *Result) sortedFindings() []Finding {
	fs := slices.Clone(res.Findings)
	slices.SortStableFunc(fs, func(a, b Finding) int {
		if a.File != b.File {
			return strings.Compare(a.File, b.File)
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(a.Rule+a.Message, b.Rule+b.Message)
	})
	return fs
}

// plain returns findings whose message carries the reproduction, for the
// formats that have no place of their own for it (sarif, github).
func (res *Result) plain() []findings.Finding {
	var out []findings.Finding
	for _, f := range res.sortedFindings() {
		ff := f.Finding
		if len(f.Reproduction) > 0 {
			ff.Message += "\nreproduce:\n" + strings.Join(f.Reproduction, "\n")
		}
		out = append(out, ff)
	}
	return out
}

// Encode writes the result in format. base is the findings report the CLI
// builds for every command (tool, version, rule docs, the sources text
// output quotes, colour); Encode fills in the findings. Durations are as
// measured, so only the JSON and junit shapes (not their times) are stable
// across runs.
func Encode(w io.Writer, format string, res *Result, base findings.Report) error {
	if enc, ok := ownEncoders[format]; ok {
		return enc(w, res, base)
	}
	if _, ok := findings.LookupFormat(format); ok {
		base.Findings = res.plain()
		return findings.Encode(w, format, base)
	}
	return fmt.Errorf("unknown format %q (one of %s)", format, strings.Join(Formats, ", "))
}

// encodeText prints the gate table, then the findings through the printer
// every command uses (with the reproduction as a note under its finding),
// then the gate counts.
func encodeText(w io.Writer, res *Result, base findings.Report) error {
	var b strings.Builder
	target := res.BaseURL
	if len(res.ServerCommand) > 0 {
		target += " (server started by verify: " + strings.Join(res.ServerCommand, " ") + ")"
	}
	fmt.Fprintf(&b, "verify %s\n\n", target)
	for _, c := range res.Causes {
		fmt.Fprintf(&b, "first, a cause several gates share: %s\n\n", c)
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GATE\tOPERATION\tRESULT\tREQUESTS\tTIME\tNOTE")
	for _, g := range res.Gates {
		note := g.Reason
		if g.Result != Skipped {
			note = strings.TrimSpace(firstLine(note) + "; effects " + g.Effects)
			note = strings.TrimPrefix(note, "; ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.2fs\t%s\n", g.Gate, g.Operation, g.Result, g.Requests, g.Seconds, note)
	}
	tw.Flush()
	fs := res.sortedFindings()
	if len(fs) > 0 {
		b.WriteString("\n")
	}
	base.Findings = make([]findings.Finding, len(fs))
	for i, f := range fs {
		base.Findings[i] = f.Finding
	}
	p := findings.Printer{W: &b, Color: base.Color}
	for i, d := range base.Diagnostics() {
		if repro := fs[i].Reproduction; len(repro) > 0 {
			d.Notes = append(d.Notes, findings.Note{Label: "reproduce:", Style: findings.StyleLabel, Lines: repro})
		}
		if err := p.Print(d); err != nil {
			return err
		}
	}
	s := res.Summarize()
	word := "gates"
	if len(res.Gates) == 1 {
		word = "gate"
	}
	fmt.Fprintf(&b, "\n%d %s: %d passed, %d failed, %d skipped\n", len(res.Gates), word, s.Passed, s.Failed, s.Skipped)
	if res.Aborted != nil {
		fmt.Fprintf(&b, "run stopped: %v\n", res.Aborted)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

type jsonFinding struct {
	findings.Finding
	Reproduction []string `json:"reproduction,omitempty"`
}

type jsonReport struct {
	BaseURL  string           `json:"base_url"`
	Findings []jsonFinding    `json:"findings"`
	Summary  findings.Summary `json:"summary"`
	Gates    []GateResult     `json:"gates"`
	Aborted  string           `json:"aborted,omitempty"`
	Causes   []string         `json:"causes,omitempty"`
}

func encodeJSON(w io.Writer, res *Result) error {
	out := jsonReport{BaseURL: res.BaseURL, Findings: []jsonFinding{}, Gates: res.Gates, Causes: res.Causes}
	var plain []findings.Finding
	for _, f := range res.sortedFindings() {
		out.Findings = append(out.Findings, jsonFinding(f))
		plain = append(plain, f.Finding)
	}
	out.Summary = findings.Summarize(plain)
	if out.Gates == nil {
		out.Gates = []GateResult{}
	}
	if res.Aborted != nil {
		out.Aborted = res.Aborted.Error()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// encodeJUnit writes one test case per gate and operation, a suite per
// operation, for CI dashboards (the Jenkins / GitLab JUnit XML dialect).
func encodeJUnit(w io.Writer, res *Result) error {
	out := junitSuites{Name: "retryspec verify"}
	var total float64
	byOp := map[string]int{}
	for _, g := range res.Gates {
		i, ok := byOp[g.Operation]
		if !ok {
			i = len(out.Suites)
			byOp[g.Operation] = i
			out.Suites = append(out.Suites, junitSuite{Name: g.Operation})
		}
		out.Suites[i].add(g)
		total += g.Seconds
	}
	for i := range out.Suites {
		out.Suites[i].Time = fmt.Sprintf("%.3f", suiteSeconds(res.Gates, out.Suites[i].Name))
		out.Tests += out.Suites[i].Tests
		out.Failures += out.Suites[i].Failures
		out.Skipped += out.Suites[i].Skipped
	}
	if res.Aborted != nil {
		out.Errors = 1
		out.Suites = append(out.Suites, junitSuite{Name: "run", Tests: 1, Errors: 1, Time: "0.000", Cases: []junitCase{{
			Name: "server answered throughout", Classname: "run", Time: "0.000", Error: &junitMessage{Message: res.Aborted.Error(), Type: "unresponsive"},
		}}})
		out.Tests++
	}
	out.Time = fmt.Sprintf("%.3f", total)
	return writeXML(w, out)
}

// add puts gate result g in the suite as a test case, counted.
func (s *junitSuite) add(g GateResult) {
	c := junitCase{Name: g.Gate, Classname: g.Operation, Time: fmt.Sprintf("%.3f", g.Seconds), SystemOut: "effects " + g.Effects}
	switch g.Result {
	case Failed:
		text := g.Reason
		if len(g.Reproduction) > 0 {
			text += "\n\nreproduce:\n" + strings.Join(g.Reproduction, "\n")
		}
		c.Failure = &junitMessage{Message: firstLine(g.Reason), Type: g.Gate, Text: text}
		s.Failures++
	case Skipped:
		c.Skipped = &junitMessage{Message: g.Reason}
		s.Skipped++
	default:
		if g.Reason != "" {
			c.SystemOut = g.Reason + "\neffects " + g.Effects
		}
	}
	s.Tests++
	s.Cases = append(s.Cases, c)
}

// suiteSeconds is the time the gates of operation op took.
func suiteSeconds(gates []GateResult, op string) float64 {
	var t float64
	for _, g := range gates {
		if g.Operation == op {
			t += g.Seconds
		}
	}
	return t
}

// writeXML writes v as an indented XML document with its header and a
// final newline.
func writeXML(w io.Writer, v any) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
