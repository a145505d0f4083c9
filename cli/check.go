package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/openapi"
)

type checkOptions struct {
	IO       *IO
	Contract string
	Format   string
	Strict   bool
	OpenAPI  string
}

func newCheckCmd(sys *IO, runF func(context.Context, *checkOptions) error) *cobra.Command {
	opts := &checkOptions{IO: sys}
	cmd := &cobra.Command{
		Use:   "check [-c FILE]",
		Short: "Parse and lint the contract",
		Long: "Parse the contract and run every rule of the catalog on it.\n\n" +
			"Exit status: 0 when nothing is at error severity, 1 when something is\n" +
			"(or a warning, with --strict), 2 when the contract cannot be read or parsed.\n" +
			"Waived findings are listed as waived and never fail the run.",
		Args: contractFlagArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(opts.Format); err != nil {
				return err
			}
			return runCommand(cmd.Context(), sys, opts.memory(), opts, runF, runCheck)
		},
	}
	cmd.Flags().StringVarP(&opts.Contract, "contract", "c", "retryspec.yaml", "the contract `FILE`")
	addFormatFlag(cmd, &opts.Format)
	cmd.Flags().BoolVar(&opts.Strict, "strict", false, "count warnings as errors")
	cmd.Flags().StringVar(&opts.OpenAPI, "openapi", "", "also check the endpoints against this OpenAPI `SPEC` (endpoint/unclassified, endpoint/unknown)")
	return cmd
}

// addFormatFlag registers --format with its choices, help and completion
// taken from the findings.Formats table.
func addFormatFlag(cmd *cobra.Command, dst *string) {
	var help []string
	for _, f := range findings.Formats {
		help = append(help, f.Name+" ("+f.Description+")")
	}
	cmd.Flags().StringVar(dst, "format", "text", "output `FORMAT`: "+strings.Join(help, "; "))
	_ = cmd.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return findings.FormatNames(), cobra.ShellCompDirectiveNoFileComp
	})
}

// checkFormat rejects a --format that findings.Formats does not have, as a
// usage error before any work.
func checkFormat(format string) error {
	if _, ok := findings.LookupFormat(format); !ok {
		return usageErrorf("unknown --format %q (one of %s)", format, strings.Join(findings.FormatNames(), ", "))
	}
	return nil
}

// memory: a spec in memory (--openapi) is checked under specMemory.
func (o *checkOptions) memory() memoryProfile {
	if o.OpenAPI != "" {
		return specMemory
	}
	return defaultMemory
}

func runCheck(_ context.Context, opts *checkOptions) error {
	sys := opts.IO
	c, err := contract.Load(opts.Contract)
	if err != nil {
		return inputErrorIn(sys, opts.Format, opts.Contract, err)
	}
	sources := map[string][]byte{c.File: c.Source}
	var drift []findings.Finding
	if opts.OpenAPI != "" {
		// The spec is read first: its request examples stand in for the
		// ones the contract does not name (endpoint/no-example-request).
		var src []byte
		if drift, src, err = driftFindings(c, opts.OpenAPI); err != nil {
			return inputErrorIn(sys, opts.Format, opts.OpenAPI, err)
		}
		sources[opts.OpenAPI] = src
	}
	fs := rules.Run(c)
	if drift != nil {
		fs = append(fs, drift...)
		findings.Sort(fs)
	}
	shown := fs
	if opts.Format == "text" {
		// Text is read by a person: many unclassified operations are one
		// finding with a count. Machine formats list each, at its line.
		shown = openapi.SummarizeUnclassified(fs)
	}
	if err := findings.Encode(sys.Out, opts.Format, newReport(sys, opts.Format, sys.OutIsTTY, shown, sources)); err != nil {
		return err
	}
	if opts.Format == "text" && len(fs) == 0 {
		fmt.Fprintf(sys.Err, "%s: no findings (%d endpoints, %d rules)\n", c.File, len(c.Endpoints), countContractRules())
	}
	if findings.Failed(fs, opts.Strict) {
		return failed()
	}
	return nil
}

func countContractRules() int {
	n := 0
	for _, r := range rules.Catalog() {
		if r.Scope == rules.ScopeContract {
			n++
		}
	}
	return n
}
