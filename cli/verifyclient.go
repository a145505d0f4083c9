package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/verify"
	"github.com/retryspec/retryspec/verify/client"
)

type verifyClientOptions struct {
	IO        *IO
	Contract  string
	Operation string
	Only      []string
	Runs      int
	DryRun    bool
	Format    string
	Command   []string
}

// clientFormats are the formats of verify client: verify's with a gate
// table and a gates list.
var clientFormats = []string{"text", "json", "junit"}

func newVerifyClientCmd(sys *IO, runF func(context.Context, *verifyClientOptions) error) *cobra.Command {
	opts := &verifyClientOptions{IO: sys}
	cmd := &cobra.Command{
		Use:   "client [-c FILE] [--operation \"METHOD /path\"] [--only GATE,...] [--runs N] [--dry-run] [--format FORMAT] -- CMD [ARG...]",
		Short: "Prove a client program (an SDK, your own code) keeps the contract's retry policy",
		Long: `Run CMD once per fault scenario against a fault server on a free loopback
port, and judge, gate by gate, what the server saw (every attempt's time,
key and body) and the exit code (see docs/verify.md, "Verify a client", and
` + "`retryspec explain client/same-key`" + `).

CMD makes one logical call to the operation with its own retry settings and
exits 0 when it got a final success, non-zero when it gave up. It finds:

  RETRYSPEC_BASE_URL   http://127.0.0.1:PORT, the fault server
  RETRYSPEC_OPERATION  the operation, e.g. "POST /v1/transfers"
  RETRYSPEC_SCENARIO   the scenario's name, for its own logs

Gates: ` + strings.Join(client.IDs(), ", ") + `.

A program that hangs (past max_elapsed plus a margin; it is killed with its
process group), never calls the server or calls another operation fails the
gates of that scenario, with its last output lines. --runs repeats the
backoff scenario to judge the jitter. --dry-run prints each scenario's fault
sequence and runs nothing.

Exit status: 0 every gate held (or was skipped, with its reason), 1 a gate
failed, 2 the contract, the command line or the program cannot be used.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dash := cmd.ArgsLenAtDash(); dash != 0 || len(args) == 0 {
				return usageErrorf("give the client program after --, e.g. `retryspec verify client -c retryspec.yaml -- python3 client.py`")
			}
			opts.Command = args
			if !slices.Contains(clientFormats, opts.Format) {
				return usageErrorf("unknown --format %q (one of %s)", opts.Format, strings.Join(clientFormats, ", "))
			}
			for i, g := range opts.Only {
				if !strings.HasPrefix(g, "client/") {
					g = "client/" + g
				}
				if !slices.Contains(client.IDs(), g) {
					hint := "gates: " + strings.Join(client.IDs(), ", ")
					if s := contract.DidYouMean(g, client.IDs()); s != "" {
						hint = "did you mean " + s + "?"
					}
					return usageErrorf("--only: unknown gate %q; %s", opts.Only[i], hint)
				}
				opts.Only[i] = g
			}
			if opts.Runs < 1 {
				return usageErrorf("--runs must be at least 1")
			}
			return runCommand(cmd.Context(), sys, defaultMemory, opts, runF, runVerifyClient)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Contract, "contract", "c", "retryspec.yaml", "the contract `FILE`")
	f.StringVar(&opts.Operation, "operation", "", "the keyed endpoint the program calls, \"METHOD /path\" (default: the one the snippets call)")
	f.StringSliceVar(&opts.Only, "only", nil, "run only these `GATE`s (comma-separated, e.g. client/same-key,jitter)")
	f.IntVar(&opts.Runs, "runs", client.DefaultRuns, "runs of the backoff scenario, to judge the jitter")
	f.BoolVar(&opts.DryRun, "dry-run", false, "print each scenario's fault sequence and what the gates judge; run nothing")
	f.StringVar(&opts.Format, "format", "text", "output `FORMAT`: "+strings.Join(clientFormats, ", "))
	_ = cmd.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return clientFormats, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("only", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return client.IDs(), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func runVerifyClient(ctx context.Context, opts *verifyClientOptions) error {
	sys := opts.IO
	c, err := contract.Load(opts.Contract)
	if err != nil {
		return inputError(err)
	}
	co := client.Options{Contract: c, Operation: opts.Operation, Only: opts.Only, Runs: opts.Runs, Command: opts.Command}
	if opts.DryRun {
		lines, err := client.DryRun(co)
		if err != nil {
			return usageErrorf("%v", err)
		}
		for _, l := range lines {
			fmt.Fprintln(sys.Out, l)
		}
		fmt.Fprintln(sys.Err, "dry run: nothing was run")
		return nil
	}
	co.Env = os.Environ()
	if sys.ErrIsTTY {
		co.Progress = func(t client.Trial) {
			fmt.Fprintf(sys.Err, "%-36s %2d attempts  exit %-3d %6.2fs\n", t.Scenario.Name, len(t.Attempts), t.ExitCode, t.Elapsed.Seconds())
		}
	}
	res, err := client.Run(ctx, co)
	if err != nil {
		if client.IsInputError(err) {
			return usageErrorf("%v", err)
		}
		return inputError(err)
	}
	if err := verify.Encode(sys.Out, opts.Format, res, newReport(sys, opts.Format, sys.OutIsTTY, nil, map[string][]byte{c.File: c.Source})); err != nil {
		return err
	}
	if res.Failed() {
		return failed()
	}
	return nil
}
