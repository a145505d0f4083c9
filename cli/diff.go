package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/diff"
)

type diffOptions struct {
	IO            *IO
	Args          []string
	Base          string
	Contract      string
	ContractSet   bool
	Format        string
	AllowBreaking bool
	// Git runs git for --base; tests may replace it.
	Git diff.Git
}

func newDiffCmd(sys *IO, runF func(context.Context, *diffOptions) error) *cobra.Command {
	opts := &diffOptions{IO: sys, Git: diff.ExecGit{}}
	cmd := &cobra.Command{
		Use:   "diff {OLD NEW | --base GITREF [-c FILE]}",
		Short: "Class the contract's changes as breaking, notable or compatible for integrators",
		Long: `Compare two revisions of the contract and class every change by what it
means for integrators: breaking (a client built on the old contract
misbehaves or is refused), notable (worth adopting or knowing) or compatible
(documentation only). Whitespace, comments, key order and equal values
spelled differently are not changes; endpoints are matched by method and
path shape.

With --base, the contract at that git revision is compared with the working
tree; the command works from any folder of the repository, follows a renamed
file, and treats a contract that did not exist at that revision as new.

Exits 1 when a breaking change is neither acknowledged nor allowed. To
acknowledge one, add an entry to the new contract's changes: list in the
same change, naming the field and why integrators can absorb it:

  changes:
    - field: idempotency.replay_window
      because: "no partner retries beyond 2h (checked 2026-01)"

Entries the old contract already had do not count: they acknowledged an
earlier change.`,
		Example: `  retryspec diff old/retryspec.yaml retryspec.yaml
  retryspec diff --base origin/main --format markdown >> "$GITHUB_STEP_SUMMARY"
  retryspec diff --base HEAD~1 --format json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = args
			opts.ContractSet = cmd.Flags().Changed("contract")
			if err := opts.validate(); err != nil {
				return err
			}
			return runCommand(cmd.Context(), sys, defaultMemory, opts, runF, runDiff)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Base, "base", "", "compare the contract at this git `REV` with the working tree")
	f.StringVarP(&opts.Contract, "contract", "c", "retryspec.yaml", "the contract `FILE` (with --base)")
	f.StringVar(&opts.Format, "format", "text", "output `FORMAT`: "+strings.Join(diff.FormatNames(), ", "))
	f.BoolVar(&opts.AllowBreaking, "allow-breaking", false, "exit 0 even when a breaking change is not acknowledged")
	_ = cmd.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return diff.FormatNames(), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func (o *diffOptions) validate() error {
	if _, ok := diff.Formats[o.Format]; !ok {
		return usageErrorf("unknown --format %q (one of %s)", o.Format, strings.Join(diff.FormatNames(), ", "))
	}
	switch {
	case o.Base != "" && len(o.Args) > 0:
		return usageErrorf("give either OLD NEW or --base GITREF, not both")
	case o.Base == "" && o.ContractSet:
		return usageErrorf("-c names the contract for --base; without --base, pass OLD NEW")
	case o.Base == "" && len(o.Args) != 2:
		return usageErrorf("diff needs two contract files (OLD NEW), or --base GITREF to compare with a git revision\nRun 'retryspec diff --help' for usage.")
	}
	return nil
}

func runDiff(ctx context.Context, opts *diffOptions) error {
	sys := opts.IO
	var (
		old, new *contract.Contract
		report   diff.Report
		err      error
	)
	if opts.Base != "" {
		path := opts.Contract
		if !opts.ContractSet {
			path = defaultContractInRepo(ctx, opts.Git, path)
		}
		if new, err = contract.Load(path); err != nil {
			return inputErrorIn(sys, opts.Format, path, err)
		}
		snap, err := diff.Base(ctx, opts.Git, path, opts.Base)
		if err != nil {
			return inputError(err)
		}
		old = snap.Contract
		report.Old = snap.Label()
		if old == nil {
			report.Old = opts.Base + " (no contract yet)"
		}
		report.New, report.File = path, path
		// Annotations name files relative to the repository's top, wherever
		// the command runs from.
		if _, rel, err := diff.Repo(ctx, opts.Git, path); err == nil {
			report.File = rel
		}
	} else {
		if old, err = contract.Load(opts.Args[0]); err != nil {
			return inputErrorIn(sys, opts.Format, opts.Args[0], err)
		}
		if new, err = contract.Load(opts.Args[1]); err != nil {
			return inputErrorIn(sys, opts.Format, opts.Args[1], err)
		}
		report.Old, report.New, report.File = opts.Args[0], opts.Args[1], opts.Args[1]
	}
	report.Changes = diff.Compare(old, new)
	report.Unused = diff.Unused(report.Changes, old, new)
	report.Color = opts.Format == "text" && sys.Color(sys.OutIsTTY)
	if err := diff.Encode(sys.Out, opts.Format, report); err != nil {
		return err
	}
	s := diff.Summarize(report.Changes)
	if s.Unacknowledged == 0 || opts.AllowBreaking {
		return nil
	}
	return failedf(
		"%d breaking change(s) not acknowledged: record each in the contract's changes: list with because:, or pass --allow-breaking", s.Unacknowledged)
}

// defaultContractInRepo lets `diff --base` run from any folder of the
// repository: without -c, a missing ./retryspec.yaml falls back to the one
// at the repository's top.
func defaultContractInRepo(ctx context.Context, g diff.Git, path string) string {
	if _, err := os.Stat(path); err == nil {
		return path
	}
	top, _, err := diff.Repo(ctx, g, ".")
	if err != nil {
		return path
	}
	cand := filepath.Join(top, path)
	if _, err := os.Stat(cand); err != nil {
		return path
	}
	if rel, err := filepath.Rel(mustGetwd(), cand); err == nil {
		return rel
	}
	return cand
}

func mustGetwd() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}
