package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/atomicwrite"
)

type initOptions struct {
	IO       *IO
	Contract string
	Force    bool
	Name     string
	BaseURL  string
	// Endpoints to write; empty means two examples. The seam for
	// `init --openapi SPEC`: fill it from the spec's operations.
	Endpoints []contract.StarterEndpoint
	// OpenAPI is the spec whose operations become the endpoints.
	OpenAPI string
	// Update adds the spec's unclassified operations to the existing
	// contract named by -c, instead of writing a new one.
	Update bool
	// ContractGiven is set when -c was on the command line: --update
	// edits a file the user names, never a default they did not choose.
	ContractGiven bool
}

func newInitCmd(sys *IO, runF func(context.Context, *initOptions) error) *cobra.Command {
	opts := &initOptions{IO: sys}
	cmd := &cobra.Command{
		Use:   "init [-c FILE]",
		Short: "Write a sound, commented starter contract",
		Long: "Write a starter contract: every section spelled out with sound values and a\n" +
			"comment saying why. What only your team knows is left as a question that\n" +
			"`retryspec check` reports until you answer it: the longest retry chain\n" +
			"(queued or human re-submits) and whether each keyed endpoint calls other\n" +
			"systems. With --openapi, PUT and DELETE operations are written\n" +
			"`reviewed: false` until a person confirms their effect.\n" +
			"With --openapi SPEC --update -c FILE, the spec's state-changing operations\n" +
			"that FILE does not classify yet are appended to its endpoints, each marked\n" +
			"`# review:` with how sure the guess is; the rest of FILE is kept byte for\n" +
			"byte, and a second run with the same spec changes nothing.\n" +
			"An existing file is never overwritten unless --force is given.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ContractGiven = cmd.Flags().Changed("contract")
			return runCommand(cmd.Context(), sys, defaultMemory, opts, runF, runInit)
		},
	}
	cmd.Flags().StringVarP(&opts.Contract, "contract", "c", "retryspec.yaml", "the contract `FILE` to write")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite an existing file")
	cmd.Flags().StringVar(&opts.Name, "name", "", "the API's `NAME`")
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "the API's base `URL`")
	cmd.Flags().StringVar(&opts.OpenAPI, "openapi", "", "import every operation of this OpenAPI `SPEC`, each with a proposed effect marked for review")
	cmd.Flags().BoolVar(&opts.Update, "update", false, "with --openapi and -c: add the spec's unclassified operations to the existing contract")
	return cmd
}

func runInit(_ context.Context, opts *initOptions) error {
	sys := opts.IO
	if opts.Update {
		switch {
		case opts.OpenAPI == "":
			return usageErrorf("--update needs --openapi SPEC: the spec whose operations to add")
		case !opts.ContractGiven:
			return usageErrorf("--update needs -c FILE: name the contract to add the spec's operations to")
		case opts.Force || opts.Name != "" || opts.BaseURL != "":
			return usageErrorf("--update keeps the contract as it is; --force, --name and --base-url apply only to a new one")
		}
		return runInitUpdate(sys, *opts)
	}
	if !opts.Force {
		if _, err := os.Stat(opts.Contract); err == nil {
			return usageErrorf("%s already exists; pass --force to overwrite it", opts.Contract)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return inputError(err)
		}
	}
	if opts.OpenAPI != "" {
		if err := importEndpoints(sys, opts); err != nil {
			return err
		}
	}
	data := contract.Starter(contract.StarterOptions{APIName: opts.Name, BaseURL: opts.BaseURL, Endpoints: opts.Endpoints})
	// Refuse to write a starter that does not load (a bad --base-url): the
	// promise is a file that check reads, asking only the team's questions.
	if _, err := contract.Parse(opts.Contract, data); err != nil {
		var le *contract.LoadError
		if errors.As(err, &le) {
			return usageErrorf("cannot write a valid contract: %s", le.Diagnostics[0].Message)
		}
		return usageErrorf("cannot write a valid contract: %v", err)
	}
	if err := atomicwrite.File(opts.Contract, data, 0o644); err != nil {
		return inputError(err)
	}
	fmt.Fprintf(sys.Err, "wrote %s; run `retryspec check -c %s`\n", opts.Contract, opts.Contract)
	return nil
}
