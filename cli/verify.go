package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/atomicwrite"
	"github.com/retryspec/retryspec/openapi"
	"github.com/retryspec/retryspec/verify"
)

type verifyOptions struct {
	IO          *IO
	Contract    string
	Plan        string
	BaseURL     string
	Only        []string
	Concurrency int
	Yes         bool
	DryRun      bool
	Format      string
	ServerLog   bool
	CrashTrials int
	Timeout     time.Duration
}

func newVerifyCmd(sys *IO, runF func(context.Context, *verifyOptions) error) *cobra.Command {
	opts := &verifyOptions{IO: sys}
	cmd := &cobra.Command{
		Use:   "verify [-c FILE] [--plan FILE] [--base-url URL] [--only GATE,...] [--concurrency N] [--timeout D] [--yes] [--dry-run] [--format FORMAT]",
		Short: "Prove a running API keeps the contract: concurrency, replay, mismatch, scope and crash-recovery gates",
		Long: `Send real requests to a running API and check, gate by gate, that it keeps
the contract's idempotency promises (see docs/verify.md and
` + "`retryspec explain verify/concurrency`" + `):

` + gateHelp() + `
What to send is in the plan (--plan, default retryspec.verify.yaml beside the
contract; ` + "`retryspec verify init`" + ` writes one). verify creates real effects:
a base URL that is not loopback needs --yes. --dry-run prints every request
and sends none. Header values from the plan print as ***.

Exit status: 0 every gate held (or was skipped, with its reason), 1 a gate
failed, 2 the contract, the plan or the command line is wrong, the server
would not start, or it stopped answering (the gates observed so far are
printed).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(verify.Formats, opts.Format) {
				return usageErrorf("unknown --format %q (one of %s)", opts.Format, strings.Join(verify.Formats, ", "))
			}
			for _, g := range opts.Only {
				if _, ok := verify.GateByID(gateID(g)); !ok {
					hint := "gates: " + strings.Join(verify.IDs(), ", ")
					if s := contract.DidYouMean(gateID(g), verify.IDs()); s != "" {
						hint = "did you mean " + s + "?"
					}
					return usageErrorf("--only: unknown gate %q; %s", g, hint)
				}
			}
			if opts.Timeout <= 0 {
				return usageErrorf("--timeout must be positive, e.g. 15m")
			}
			if opts.Concurrency != 0 && (opts.Concurrency < 2 || opts.Concurrency > verify.MaxConcurrency) {
				return usageErrorf("--concurrency must be from 2 to %d", verify.MaxConcurrency)
			}
			return runCommand(cmd.Context(), sys, defaultMemory, opts, runF, runVerify)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Contract, "contract", "c", "retryspec.yaml", "the contract `FILE`")
	f.StringVar(&opts.Plan, "plan", "", "the verify plan `FILE` (default retryspec.verify.yaml beside the contract)")
	f.StringVar(&opts.BaseURL, "base-url", "", "send to this `URL` instead of the plan's base_url (verify then does not start the server)")
	f.StringSliceVar(&opts.Only, "only", nil, "run only these `GATE`s (comma-separated, e.g. verify/concurrency,replay)")
	f.IntVar(&opts.Concurrency, "concurrency", 0, "requests the concurrency gate releases at once (default: the plan's, else 16; up to 1024)")
	f.BoolVar(&opts.Yes, "yes", false, "allow a base URL that is not loopback (verify creates real effects)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "print every request verify would send, as curl commands, and send none")
	f.StringVar(&opts.Format, "format", "text", "output `FORMAT`: "+strings.Join(verify.Formats, ", "))
	f.BoolVar(&opts.ServerLog, "server-output", false, "copy the output of the server verify starts to stderr")
	f.DurationVar(&opts.Timeout, "timeout", verify.DefaultTimeout, "bound the whole run; gates not finished by then are reported as not finished, and the run exits 2")
	f.IntVar(&opts.CrashTrials, "crash-trials", 1, "crash trials per external call and kill point (before and after the stub answers)")
	_ = cmd.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return verify.Formats, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("only", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return verify.IDs(), cobra.ShellCompDirectiveNoFileComp
	})
	cmd.AddCommand(newVerifyInitCmd(sys, nil), newVerifyClientCmd(sys, nil))
	return cmd
}

// gateID is the gate --only names, with or without its verify/ prefix.
func gateID(g string) string {
	return "verify/" + strings.TrimPrefix(g, "verify/")
}

// gateHelp lists the gates in run order, one row of the gate table each,
// for verify's --help.
func gateHelp() string {
	var b strings.Builder
	for _, g := range verify.Gates {
		fmt.Fprintf(&b, "  %-24s%s\n", g.ID, strings.TrimPrefix(wrap(g.Help, 78, strings.Repeat(" ", 26)), strings.Repeat(" ", 26)))
	}
	return b.String()
}

func defaultPlan(contractFile string) string {
	return filepath.Join(filepath.Dir(contractFile), "retryspec.verify.yaml")
}

func runVerify(ctx context.Context, opts *verifyOptions) error {
	sys := opts.IO
	c, err := contract.Load(opts.Contract)
	if err != nil {
		return inputError(err)
	}
	if opts.Plan == "" {
		opts.Plan = defaultPlan(opts.Contract)
	}
	plan, err := verify.LoadPlan(opts.Plan, c, sys.Getenv)
	if err != nil {
		return inputError(err)
	}
	if opts.BaseURL != "" {
		if err := verify.CheckBaseURL(opts.BaseURL); err != nil {
			return usageErrorf("--base-url: %v", err)
		}
	}
	var only []string
	for _, g := range opts.Only {
		only = append(only, gateID(g))
	}
	vo := verify.Options{Contract: c, Plan: plan, BaseURL: opts.BaseURL, Only: only, Concurrency: opts.Concurrency, Yes: opts.Yes, CrashTrials: opts.CrashTrials, Timeout: opts.Timeout}
	if opts.DryRun {
		for _, l := range verify.DryRun(vo) {
			fmt.Fprintln(sys.Out, l)
		}
		fmt.Fprintln(sys.Err, "dry run: nothing was sent")
		return nil
	}
	// Refuse a remote target before anything starts or is sent.
	target := opts.BaseURL
	if target == "" && plan.Server == nil {
		target = plan.BaseURL
	}
	if target != "" {
		if err := verify.CheckTarget(target, opts.Yes); err != nil {
			return usageErrorf("%v", err)
		}
	}
	vo.Env = os.Environ()
	if opts.ServerLog {
		vo.ServerLog = sys.Err
	}
	if sys.ErrIsTTY {
		vo.Progress = func(g verify.GateResult) {
			fmt.Fprintf(sys.Err, "%-22s %-24s %-7s %6.2fs\n", g.Gate, g.Operation, g.Result, g.Seconds)
		}
	}
	res, err := verify.Run(ctx, vo)
	if err != nil {
		return inputError(err)
	}
	if err := verify.Encode(sys.Out, opts.Format, res, newReport(sys, opts.Format, sys.OutIsTTY, nil, map[string][]byte{c.File: c.Source})); err != nil {
		return err
	}
	if res.Aborted != nil {
		return inputError(fmt.Errorf("%v; the gates above are what was observed before", res.Aborted))
	}
	if res.Failed() {
		return failed()
	}
	return nil
}

type verifyInitOptions struct {
	IO       *IO
	Contract string
	Plan     string
	OpenAPI  string
	Force    bool
}

func newVerifyInitCmd(sys *IO, runF func(context.Context, *verifyInitOptions) error) *cobra.Command {
	opts := &verifyInitOptions{IO: sys}
	cmd := &cobra.Command{
		Use:   "init [-c FILE] [--plan FILE] [--openapi SPEC] [--force]",
		Short: "Write a starter verify plan: one entry per keyed endpoint of the contract",
		Long: "Write a starter plan for `retryspec verify`: one entry per endpoint with\n" +
			"key: required or optional, request bodies taken from the OpenAPI spec's\n" +
			"examples when --openapi is given (placeholders to replace otherwise).\n" +
			"An existing plan is never overwritten unless --force is given.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCommand(cmd.Context(), sys, defaultMemory, opts, runF, runVerifyInit)
		},
	}
	cmd.Flags().StringVarP(&opts.Contract, "contract", "c", "retryspec.yaml", "the contract `FILE`")
	cmd.Flags().StringVar(&opts.Plan, "plan", "", "the plan `FILE` to write (default retryspec.verify.yaml beside the contract)")
	cmd.Flags().StringVar(&opts.OpenAPI, "openapi", "", "take request bodies from this OpenAPI `SPEC`'s examples")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite an existing plan")
	return cmd
}

func runVerifyInit(_ context.Context, opts *verifyInitOptions) error {
	sys := opts.IO
	c, err := contract.Load(opts.Contract)
	if err != nil {
		return inputError(err)
	}
	if opts.Plan == "" {
		opts.Plan = defaultPlan(opts.Contract)
	}
	if !opts.Force {
		if _, err := os.Stat(opts.Plan); err == nil {
			return usageErrorf("%s already exists; pass --force to overwrite it", opts.Plan)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return inputError(err)
		}
	}
	bodies := map[string][]byte{}
	if opts.OpenAPI != "" {
		s, err := openapi.Load(opts.OpenAPI, openapi.LoadOptions{SkipValidation: true})
		if err != nil {
			return inputError(err)
		}
		for _, e := range c.KeyedEndpoints() {
			if b, ok := s.RequestExample(e.Method, e.Path); ok {
				bodies[e.Operation] = b
			} else {
				fmt.Fprintf(sys.Err, "%s: no JSON request example for %s; its body is a placeholder\n", opts.OpenAPI, e.Operation)
			}
		}
	}
	data := verify.StarterPlan(c, bodies)
	if err := atomicwrite.File(opts.Plan, data, 0o644); err != nil {
		return inputError(err)
	}
	fmt.Fprintf(sys.Err, "wrote %s; fill in the bodies marked REPLACE_ME, then run `retryspec verify -c %s --dry-run`\n", opts.Plan, opts.Contract)
	return nil
}
