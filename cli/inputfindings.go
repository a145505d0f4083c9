package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"errors"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/openapi"
)

// RuleInputInvalid is the rule a machine format gives an input that could
// not be read or parsed: CI annotates the typo in the contract at its line,
// as it would a lint finding, instead of showing an empty report.
const RuleInputInvalid = "input/invalid"

var inputInvalidDoc = findings.RuleDoc{
	ID:        RuleInputInvalid,
	Severity:  findings.Error,
	Summary:   "the input could not be read or parsed",
	Rationale: "Nothing was checked: a contract or spec that does not load cannot be linted. The run exits 2.",
	Fix:       "correct the file at the position given; the message says what was expected there",
}

// inputFindings turns a load error into findings, one per diagnostic, each
// with the file, line and column the error knows. file names the input
// when the error itself does not.
func inputFindings(err error, file string) []findings.Finding {
	var le *contract.LoadError
	var oe *openapi.LoadError
	switch {
	case errors.As(err, &le):
		fs := make([]findings.Finding, 0, len(le.Diagnostics))
		for _, d := range le.Diagnostics {
			f := findings.Finding{Rule: RuleInputInvalid, Severity: findings.Error, Message: d.Message, File: d.File,
				Line: d.Pos.Line, Column: d.Pos.Column, Path: d.Path, Fix: d.Fix}
			if f.File == "" {
				f.File = le.File
			}
			fs = append(fs, f)
		}
		if len(fs) > 0 {
			return fs
		}
	case errors.As(err, &oe):
		return []findings.Finding{{Rule: RuleInputInvalid, Severity: findings.Error, Message: oe.Message, File: oe.File,
			Line: oe.Line, Column: oe.Column, Fix: oe.Fix}}
	}
	return []findings.Finding{{Rule: RuleInputInvalid, Severity: findings.Error, Message: err.Error(), File: file}}
}

// inputErrorIn is inputError for a command with --format: a machine
// format of the findings table (json, sarif, github; diff's json and
// github too) also gets the error as findings on stdout, so a CI step that
// reads only stdout still sees it. Text keeps the compiler-style message
// on stderr alone.
func inputErrorIn(sys *IO, format, file string, err error) error {
	if _, ok := findings.LookupFormat(format); ok && format != "text" {
		report := newReport(sys, format, false, inputFindings(err, file), nil)
		report.Rules = append(report.Rules, inputInvalidDoc)
		if encErr := findings.Encode(sys.Out, format, report); encErr != nil {
			return encErr
		}
	}
	return inputError(err)
}

// contractFlagArgs is the Args check of a command that reads the contract
// from -c: a bare argument is most often the contract itself, so the error
// says how to pass it ("retryspec check foo.yaml" -> "-c foo.yaml").
func contractFlagArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	if f := cmd.Flags().Lookup("contract"); f == nil || f.Changed {
		return usageErrorf("%s takes no arguments; got %q", name, args[0])
	}
	return usageErrorf("%s takes no arguments; to use %s as the contract, pass it with -c:\n  %s -c %s",
		name, args[0], cmd.CommandPath(), shellQuote(args[0]))
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
