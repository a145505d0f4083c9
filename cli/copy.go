package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/copylint"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/internal/safeout"
)

type copyOptions struct {
	IO          *IO
	Contract    string
	contractSet bool // -c given: a missing file is an error, not a notice
	Paths       []string
	Format      string
	Strict      bool
	LintCode    bool
	ExportVale  string
	IfIncluded  bool
	Learned     bool
	learnedSet  bool // --learned given: say so when there is no contract to read with
	LearnedVeto bool
	vetoSet     bool // --learned-veto given
}

func newCopyCmd(sys *IO, runF func(context.Context, *copyOptions) error) *cobra.Command {
	opts := &copyOptions{IO: sys}
	cmd := &cobra.Command{
		Use:   "copy [-c FILE] [PATH...]",
		Short: "Lint marketing and docs copy for false or contract-contradicting claims",
		Long: "Lint Markdown, MDX, HTML and text files for the copy/* rules: exactly-once promises,\n" +
			"absolute guarantees, the header called a standard, PUT/DELETE trusted by method,\n" +
			"retry-on-any-error advice, and figures or names the contract contradicts.\n\n" +
			"PATH is a file, a folder (walked recursively; files that .gitignore lists and git\n" +
			"does not track are left out) or a glob (** included); without one,\n" +
			"docs.copy.include from the contract (relative to the working directory), whose\n" +
			"matches must stay inside the working directory once symlinks are followed.\n" +
			"A file that cannot be linted (over 1 MiB, binary, unreadable, a symlink that leads\n" +
			"nowhere or out of its tree) is skipped: named on stderr with the reason and counted\n" +
			"in a summary line; --strict makes any skip fail the run. Everything else is linted.\n" +
			"--if-included: without PATH and without docs.copy.include, say so and exit 0\n" +
			"(the Action's copy: auto), decided from the contract, never from a message.\n" +
			"Claims are read as families (how long a client retries, which requests are safe to\n" +
			"retry, retrying without a key, the whole API idempotent, duplicates never happen,\n" +
			"how long keys are kept) and judged against the contract's values; each finding\n" +
			"names the value it contradicts. Without a contract, copy/contradicts-contract and the\n" +
			"families that need one are skipped (one notice on stderr names them).\n\n" +
			"--learned runs the learned second reader after the rules (it needs a contract): a model\n" +
			"trained on labelled copy proposes claims of the families above (and of methods\n" +
			"idempotent by definition, retrying any error, exactly-once and standards), each\n" +
			"judged against the contract like the rules' findings, whose message says the learned\n" +
			"reader proposed it. It adds a third to two thirds to the lint's CPU. --learned=false\n" +
			"turns it off. Default: " + onOff(copylint.LearnedDefault) + ".\n" +
			"The reader also drops a finding of the rules in a sentence it reads as no claim with\n" +
			"near certainty (" + prob(copylint.LearnedSureVeto) + "), one judged against an endpoint, a window, a count or a status\n" +
			"(never a method's idempotency, nor one on a name it does not see, such as the\n" +
			"header's, nor in a table row or a record). --learned-veto widens that veto to\n" +
			"sentences it reads as no claim at " + prob(copylint.LearnedVeto) + ", method findings included: fewer false\n" +
			"findings, but a claim it misreads as none goes too. It turns the reader on. Default,\n" +
			"when the reader is on: " + onOff(copylint.LearnedVetoDefault) + ".\n\n" +
			"Suppress one line with <!-- retryspec-disable-next-line RULE -- reason --> above it,\n" +
			"or a path with a docs.copy.allow entry (path, rule, because) in the contract.\n\n" +
			"--export-vale DIR writes the phrase rules as a Vale style into DIR/Retryspec and exits;\n" +
			"with -c, also the families the contract contradicts; the checks Vale cannot carry\n" +
			"(figures compared with the contract's) are named on stderr;\n" +
			"nothing else in DIR is touched, and DIR/Retryspec is replaced only while it holds\n" +
			"nothing but an earlier export.\n\n" +
			"Exit status: 0 when nothing is at error severity, 1 when something is (or a\n" +
			"warning or a skipped file, with --strict), 2 when a path or the contract cannot\n" +
			"be read.",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(opts.Format); err != nil {
				return err
			}
			opts.Paths = args
			opts.contractSet = cmd.Flags().Changed("contract")
			opts.learnedSet = cmd.Flags().Changed("learned")
			opts.vetoSet = cmd.Flags().Changed("learned-veto")
			if opts.vetoSet && opts.LearnedVeto && opts.learnedSet && !opts.Learned {
				return usageErrorf("--learned-veto needs the learned reader; drop --learned=false or --learned-veto")
			}
			return runCommand(cmd.Context(), sys, copyMemoryFor(opts.lintOptions().ReaderOn()), opts, runF, runCopy)
		},
	}
	cmd.Flags().StringVarP(&opts.Contract, "contract", "c", "retryspec.yaml", "the contract `FILE`")
	addFormatFlag(cmd, &opts.Format)
	cmd.Flags().BoolVar(&opts.Strict, "strict", false, "count warnings and skipped files as errors")
	cmd.Flags().BoolVar(&opts.IfIncluded, "if-included", false, "without PATH, exit 0 with a notice when the contract lists no docs.copy.include")
	cmd.Flags().BoolVar(&opts.LintCode, "lint-code", false, "treat fenced and inline code as copy too (as docs.copy.lint_code)")
	cmd.Flags().StringVar(&opts.ExportVale, "export-vale", "", "write the copy rules as a Vale style into `DIR` and exit")
	cmd.Flags().BoolVar(&opts.Learned, "learned", copylint.LearnedDefault, "run the learned second reader after the rules (needs a contract)")
	cmd.Flags().BoolVar(&opts.LearnedVeto, "learned-veto", copylint.LearnedVetoDefault, "widen the learned reader's veto of the rules' findings (no claim read at "+prob(copylint.LearnedVeto)+", not "+prob(copylint.LearnedSureVeto)+")")
	return cmd
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func runCopy(ctx context.Context, opts *copyOptions) error {
	sys := opts.IO
	c, err := loadCopyContract(opts)
	if err != nil {
		return err
	}
	if opts.ExportVale != "" {
		// Only DIR/Retryspec is ours: DIR is often Vale's StylesPath, with
		// other styles and vocabularies beside it.
		style := filepath.Join(opts.ExportVale, copylint.ValeStyle)
		var notCarried []string
		err := safeout.ReplaceDir(style, copylint.IsValeExport, func(tmp string) (err error) {
			notCarried, err = copylint.ExportVale(tmp, c)
			return err
		})
		if err != nil {
			return inputError(fmt.Errorf("--export-vale %q: %w", opts.ExportVale, err))
		}
		for _, n := range notCarried {
			fmt.Fprintf(sys.Err, "retryspec: not carried over to Vale: %s\n", n)
		}
		fmt.Fprintf(sys.Err, "wrote Vale style %q; add it with BasedOnStyles = %s in .vale.ini\n", style, copylint.ValeStyle)
		return nil
	}
	if len(opts.Paths) == 0 && (c == nil || len(c.Docs.Copy.Include) == 0) {
		if opts.IfIncluded {
			what := "no contract"
			if c != nil {
				what = fmt.Sprintf("%q", c.File)
			}
			fmt.Fprintf(sys.Err, "retryspec: %s lists no docs.copy.include: nothing to lint (--if-included)\n", what)
			return nil
		}
		if c == nil {
			return usageErrorf("no paths given and no contract to read docs.copy.include from; pass PATH... or -c FILE")
		}
		return usageErrorf("no paths given and %s has no docs.copy.include; pass PATH... or add docs.copy.include", c.File)
	}
	inputsLoaded(ctx)
	lo := opts.lintOptions()
	if lo.ReaderOn() && (opts.learnedSet || opts.vetoSet) && c == nil {
		fmt.Fprintln(sys.Err, "retryspec: --learned needs a contract: the learned reader is skipped; pass -c FILE")
	}
	var stats copylint.Stats
	lo.Stats = &stats
	fs, err := copylint.Lint(ctx, c, opts.Paths, lo)
	if err != nil {
		// A path that cannot be read (or an interrupted run): exit 2.
		return inputErrorIn(sys, opts.Format, "", err)
	}
	// One policy for every file not linted: named here (quoted, so a name
	// with a line break cannot forge a line of a CI log), counted in the
	// summary, and a failure under --strict.
	for _, s := range stats.Skipped {
		fmt.Fprintf(sys.Err, "retryspec: skipped %q: %s\n", s.Path, s.Reason)
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
	if err := findings.Encode(sys.Out, opts.Format, newReport(sys, opts.Format, sys.OutIsTTY, fs, sources)); err != nil {
		return err
	}
	if n := len(stats.Skipped); n > 0 {
		how := "pass --strict to fail on a skip"
		if opts.Strict {
			how = "--strict counts each as a failure"
		}
		fmt.Fprintf(sys.Err, "retryspec: linted %d files; skipped %d, named above (%s)\n", stats.Files, n, how)
	}
	if findings.Failed(fs, opts.Strict) || (opts.Strict && len(stats.Skipped) > 0) {
		return failed()
	}
	return nil
}

// loadCopyContract loads the contract. The default ./retryspec.yaml may be
// absent: copy then runs without the contract-aware rule and says so once.
// A contract named with -c must load.
func loadCopyContract(opts *copyOptions) (*contract.Contract, error) {
	sys := opts.IO
	if !opts.contractSet {
		if _, err := os.Stat(opts.Contract); errors.Is(err, os.ErrNotExist) {
			if opts.ExportVale == "" {
				fmt.Fprintf(sys.Err, "retryspec: no contract at %s: copy/contradicts-contract is skipped, and with it the claim families judged against a contract (%s); pass -c FILE to check them\n",
					opts.Contract, strings.Join(copylint.ContractFamilies(), ", "))
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

// lintOptions are the options copylint lints with: the reader's flags
// only where given, so that copylint's defaults decide the rest.
func (o *copyOptions) lintOptions() copylint.Options {
	lo := copylint.Options{LintCode: o.LintCode}
	if o.learnedSet {
		lo.Learned = &o.Learned
	}
	if o.vetoSet {
		lo.LearnedVeto = &o.LearnedVeto
	}
	return lo
}

// prob is a probability as the help text writes it.
func prob(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }
