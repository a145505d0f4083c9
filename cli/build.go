package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/site"
)

type buildOptions struct {
	Contract     string
	Out          string
	Templates    string
	MarkdownOnly bool
	SiteURL      string
}

func newBuildCmd(sys *IO) *cobra.Command {
	opts := &buildOptions{}
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Check the contract, then render the integrator docs as Markdown and a static HTML site",
		Long: `Check the contract, then render the integrator docs: Markdown pages for a
docs platform (under OUT/markdown) and a static HTML site (OUT). A contract
with errors is refused. The output folder is replaced as a whole, and only
once everything rendered: a failed build leaves the previous site in place.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBuild(cmd, sys, opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Contract, "contract", "c", "retryspec.yaml", "contract file")
	cmd.Flags().StringVar(&opts.Out, "out", "docs.out", "output folder (replaced as a whole)")
	cmd.Flags().StringVar(&opts.Templates, "templates", "", "folder of templates that override the built-in ones (same file names)")
	cmd.Flags().BoolVar(&opts.MarkdownOnly, "markdown-only", false, "write only the Markdown pages and pictures")
	cmd.Flags().StringVar(&opts.SiteURL, "site-url", "", "public URL of the site, for absolute sitemap locations")
	return cmd
}

func runBuild(cmd *cobra.Command, sys *IO, opts *buildOptions) error {
	files, err := site.Build(cmd.Context(), site.Options{
		Contract:     opts.Contract,
		Out:          opts.Out,
		Templates:    opts.Templates,
		MarkdownOnly: opts.MarkdownOnly,
		SiteURL:      opts.SiteURL,
	})
	if err != nil {
		return buildError(sys.Err, err)
	}
	fmt.Fprintf(sys.Err, "retryspec: wrote %d files to %s\n", len(files), opts.Out)
	return nil
}

// buildError maps a failed build to its exit code, printing findings.
func buildError(w io.Writer, err error) error {
	var fe *site.FindingsError
	if errors.As(err, &fe) {
		printFindings(w, fe.Findings)
		return &ExitError{Code: ExitFindings, Err: err}
	}
	var le *contract.LoadError
	if errors.As(err, &le) {
		return &ExitError{Code: ExitInput, Err: err}
	}
	return &ExitError{Code: ExitInput, Err: err}
}

// printFindings writes findings one per line, compiler style.
func printFindings(w io.Writer, fs []findings.Finding) {
	for _, f := range fs {
		fmt.Fprintf(w, "%s:%d:%d: %s: %s [%s]\n", f.File, f.Line, f.Column, f.Severity, f.Message, f.Rule)
		if f.Fix != "" {
			fmt.Fprintf(w, "  fix: %s\n", f.Fix)
		}
	}
}
