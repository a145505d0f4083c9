package cli

import (
	"context"

	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
)

// runCommand is how every command's RunE ends, once its flags are copied
// into opts and validated: tests that pass runF get the options and
// nothing runs (gh's seam); otherwise run runs under the command's memory
// profile, applied here once and restored when it returns.
func runCommand[O any](ctx context.Context, sys *IO, mem memoryProfile, opts *O, runF, run func(context.Context, *O) error) error {
	if runF != nil {
		return runF(ctx, opts)
	}
	ctx, m := mem.start(ctx, sys.Getenv)
	defer m.end()
	return run(ctx, opts)
}

// newReport is the findings report every command prints: retryspec's name
// and version, the catalog's rule docs (SARIF rules[]), the sources text
// output quotes, and colour when the text goes to a terminal (tty says
// whether the stream it goes to is one) for a person.
func newReport(sys *IO, format string, tty bool, fs []findings.Finding, sources map[string][]byte) findings.Report {
	return findings.Report{
		Tool:     "retryspec",
		Version:  buildVersion().Version,
		Findings: fs,
		Rules:    rules.Docs(),
		Sources:  sources,
		Color:    format == "text" && sys.Color(tty),
	}
}
