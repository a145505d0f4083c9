package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/copylint"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/internal/atomicwrite"
)

type copyOptions struct {
	Contract    string
	contractSet bool // -c given: a missing file is an error, not a notice
	Paths       []string
	Format      string
	Strict      bool
	LintCode    bool
	ExportVale  string
}

func newCopyCmd(sys *IO) *cobra.Command {
	opts := copyOptions{}
	cmd := &cobra.Command{
		Use:   "copy [-c FILE] [PATH...]",
		Short: "Lint marketing and docs copy for false or contract-contradicting claims",
		Long: "Lint Markdown, MDX, HTML and text files for the copy/* rules: exactly-once promises,\n" +
			"absolute guarantees, the header called a standard, PUT/DELETE trusted by method,\n" +
			"retry-on-any-error advice, and figures or names the contract contradicts.\n\n" +
			"PATH is a file, a folder (walked recursively; .gitignore'd and binary files are\n" +
			"skipped) or a glob (** included); without one, docs.copy.include from the contract.\n" +
			"Files over 1 MiB are not copy: found in a folder or by a glob they are skipped with a\n" +
			"notice on stderr; named on the command line they are an error.\n" +
			"Without a contract, copy/contradicts-contract is skipped (one notice on stderr).\n\n" +
			"Suppress one line with <!-- retryspec-disable-next-line RULE -- reason --> above it,\n" +
			"or a path with a docs.copy.allow entry (path, rule, because) in the contract.\n\n" +
			"--export-vale DIR writes the phrase rules as a Vale style (DIR/Retryspec) and exits.\n\n" +
			"Exit status: 0 when nothing is at error severity, 1 when something is (or a\n" +
			"warning, with --strict), 2 when a path or the contract cannot be read.",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(opts.Format); err != nil {
				return err
			}
			opts.Paths = args
			opts.contractSet = cmd.Flags().Changed("contract")
			return runCopy(cmd.Context(), sys, opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Contract, "contract", "c", "retryspec.yaml", "the contract `FILE`")
	addFormatFlag(cmd, &opts.Format)
	cmd.Flags().BoolVar(&opts.Strict, "strict", false, "count warnings as errors")
	cmd.Flags().BoolVar(&opts.LintCode, "lint-code", false, "treat fenced and inline code as copy too (as docs.copy.lint_code)")
	cmd.Flags().StringVar(&opts.ExportVale, "export-vale", "", "write the copy rules as a Vale style into `DIR` and exit")
	return cmd
}

func runCopy(ctx context.Context, sys *IO, opts copyOptions) error {
	c, err := loadCopyContract(sys, opts)
	if err != nil {
		return err
	}
	if opts.ExportVale != "" {
		header := ""
		if c != nil {
			header = c.Idempotency.Header
		}
		err := atomicwrite.Dir(opts.ExportVale, func(tmp string) error { return copylint.ExportVale(tmp, header) })
		if err != nil {
			return inputError(fmt.Errorf("--export-vale %s: %w", opts.ExportVale, err))
		}
		fmt.Fprintf(sys.Err, "wrote Vale style %s/%s; add it with BasedOnStyles = %s in .vale.ini\n", opts.ExportVale, copylint.ValeStyle, copylint.ValeStyle)
		return nil
	}
	if len(opts.Paths) == 0 && (c == nil || len(c.Docs.Copy.Include) == 0) {
		if c == nil {
			return usageErrorf("no paths given and no contract to read docs.copy.include from; pass PATH... or -c FILE")
		}
		return usageErrorf("no paths given and %s has no docs.copy.include; pass PATH... or add docs.copy.include", c.File)
	}
	// The linter keeps a few MB live (a file, its mask, one scratch per
	// worker) but allocates per file; collecting less often buys ~10% on a
	// large tree and keeps memory far below the 200 MB budget.
	if sys.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	// The relaxed GC above would let the heap grow with the findings of a
	// large tree; a soft limit keeps the whole run near a fixed footprint
	// (the 200 MB budget) whatever the corpus size.
	setSoftLimit(sys, copyMemoryLimit, 1.25)
	var stats copylint.Stats
	fs, err := copylint.Lint(ctx, c, opts.Paths, copylint.Options{LintCode: opts.LintCode, Stats: &stats})
	if err != nil {
		// A path that cannot be read (or an interrupted run): exit 2.
		return inputErrorIn(sys, opts.Format, "", err)
	}
	for _, name := range stats.Skipped {
		fmt.Fprintf(sys.Err, "retryspec: skipped %s: larger than %d MiB, which copy is not (name it alone to see the error, or exclude it with .gitignore)\n", name, copylint.MaxFileSize>>20)
	}
	// Only the text format shows source lines under each finding; the
	// machine formats never read them, so memory stays flat however many
	// files have findings.
	sources := map[string][]byte{}
	if opts.Format == "text" {
		if c != nil {
			sources[c.File] = c.Source
		}
		for _, f := range fs {
			if _, ok := sources[f.File]; !ok {
				if data, err := os.ReadFile(f.File); err == nil {
					sources[f.File] = data
				}
			}
		}
	}
	report := findings.Report{
		Tool:     "retryspec",
		Version:  buildVersion().Version,
		Findings: fs,
		Rules:    rules.Docs(),
		Sources:  sources,
		Color:    opts.Format == "text" && sys.Color(sys.OutIsTTY),
	}
	if err := findings.Encode(sys.Out, opts.Format, report); err != nil {
		return err
	}
	if findings.Failed(fs, opts.Strict) {
		return failed()
	}
	return nil
}

// loadCopyContract loads the contract. The default ./retryspec.yaml may be
// absent: copy then runs without the contract-aware rule and says so once.
// A contract named with -c must load.
func loadCopyContract(sys *IO, opts copyOptions) (*contract.Contract, error) {
	if !opts.contractSet {
		if _, err := os.Stat(opts.Contract); errors.Is(err, os.ErrNotExist) {
			if opts.ExportVale == "" {
				fmt.Fprintf(sys.Err, "retryspec: no contract at %s: copy/contradicts-contract is skipped (pass -c FILE to check figures and names)\n", opts.Contract)
			}
			return nil, nil
		}
	}
	c, err := contract.Load(opts.Contract)
	if err != nil {
		return nil, inputErrorIn(sys, opts.Format, opts.Contract, err)
	}
	return c, nil
}

// copyMemoryLimit is the soft heap limit of a copy run. A run holds 20 to
// 40 MB live (the files in flight and the findings so far); at 96 MiB the
// heap grew to the limit on large trees only, so peak memory rose with the
// corpus (37 MB on 10 MB of Markdown, 111 MB on 400 MB). At 56 MiB it stays
// at about 70 MB from 100 MB up, for the same CPU time; at 40 MiB the
// collector starts to cost time (+25%).
const copyMemoryLimit = 56 << 20
