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
			"An existing file is never overwritten unless --force is given.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCommand(cmd.Context(), sys, defaultMemory, opts, runF, runInit)
		},
	}
	cmd.Flags().StringVarP(&opts.Contract, "contract", "c", "retryspec.yaml", "the contract `FILE` to write")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite an existing file")
	cmd.Flags().StringVar(&opts.Name, "name", "", "the API's `NAME`")
	cmd.Flags().StringVar(&opts.BaseURL, "base-url", "", "the API's base `URL`")
	cmd.Flags().StringVar(&opts.OpenAPI, "openapi", "", "import every operation of this OpenAPI `SPEC`, each with a proposed effect marked for review")
	return cmd
}

func runInit(_ context.Context, opts *initOptions) error {
	sys := opts.IO
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
