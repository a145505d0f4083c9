package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/idempotency/alerting"
	"github.com/retryspec/retryspec/openapi"
	"github.com/retryspec/retryspec/site"
)

type buildOptions struct {
	IO           *IO
	Contract     string
	Out          string
	Templates    string
	MarkdownOnly bool
	SiteURL      string
	OpenAPI      string
	Format       string
}

func newBuildCmd(sys *IO, runF func(context.Context, *buildOptions) error) *cobra.Command {
	opts := &buildOptions{IO: sys}
	cmd := &cobra.Command{
		Use:   "build [-c FILE] [--out DIR] [--openapi SPEC]",
		Short: "Check the contract, then render the integrator docs as Markdown and a static HTML site",
		Long: `Check the contract, then render the integrator docs: Markdown pages for a
docs platform (OUT/markdown) and a static HTML site (OUT). A contract with
errors is refused, and so is a build whose own pages break a copy rule.
The output folder is replaced as a whole, and only once everything
rendered: a failed build leaves the previous site in place. It is replaced
only when it is empty or holds nothing but an earlier build's files,
unchanged (each build leaves a .retryspec-manifest listing them); a folder
with anything else in it is refused. docs.out must stay inside the
contract's folder, symlinks followed.

Exit status: 0 built, 1 refused because of findings (printed), 2 the
contract or a template could not be read, or the command line is wrong.`,
		Args: contractFlagArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(opts.Format); err != nil {
				return err
			}
			if cmd.Flags().Changed("out") && opts.Out == "" {
				return usageErrorf("--out needs a folder")
			}
			return runCommand(cmd.Context(), sys, opts.memory(), opts, runF, runBuild)
		},
	}
	cmd.Flags().StringVarP(&opts.Contract, "contract", "c", "retryspec.yaml", "the contract `FILE`")
	cmd.Flags().StringVar(&opts.Out, "out", "", "output `DIR`, replaced as a whole when it holds only an earlier build (default: the contract's docs.out, beside the contract)")
	cmd.Flags().StringVar(&opts.Templates, "templates", "", "`DIR` of templates that override the built-in ones (same file names)")
	cmd.Flags().BoolVar(&opts.MarkdownOnly, "markdown-only", false, "write only the Markdown pages and pictures")
	cmd.Flags().StringVar(&opts.SiteURL, "site-url", "", "public `URL` of the site, for absolute sitemap locations")
	cmd.Flags().StringVar(&opts.OpenAPI, "openapi", "", "the API's OpenAPI `SPEC`: check the endpoints against it and write OUT/openapi/overlay.yaml and the merged spec")
	addFormatFlag(cmd, &opts.Format)
	return cmd
}

// memory: with --openapi, a spec in memory, as check --openapi and openapi.
func (o *buildOptions) memory() memoryProfile {
	if o.OpenAPI != "" {
		return specMemory
	}
	return defaultMemory
}

func runBuild(ctx context.Context, opts *buildOptions) error {
	sys := opts.IO
	res, err := site.Build(ctx, site.Options{
		Contract:     opts.Contract,
		Out:          opts.Out,
		Templates:    opts.Templates,
		MarkdownOnly: opts.MarkdownOnly,
		SiteURL:      opts.SiteURL,
		OpenAPI:      opts.OpenAPI,
		Extra:        alertFiles,
	})
	var fe *site.FindingsError
	switch {
	case errors.As(err, &fe):
		// Findings are the diagnosis: text goes to stderr with the other
		// diagnostics; a machine format goes to stdout for tools.
		w := sys.Err
		if opts.Format != "text" {
			w = sys.Out
		}
		shown := fe.Findings
		if opts.Format == "text" {
			shown = openapi.SummarizeUnclassified(shown)
		}
		if err := findings.Encode(w, opts.Format, newReport(sys, opts.Format, sys.ErrIsTTY, shown, fe.Sources)); err != nil {
			return err
		}
		if opts.Format == "text" {
			// The findings and their count are right above.
			return failedf("build refused: nothing was written")
		}
		return failedf("build refused: %v", fe)
	case err != nil:
		return inputErrorIn(sys, opts.Format, opts.Contract, err)
	}
	fmt.Fprintf(sys.Err, "retryspec: wrote %d files to %q\n", len(res.Files), res.Out)
	if writesAlerts(res.Contract) {
		fmt.Fprintf(sys.Err, "retryspec: wrote alerting rules to %q\n", filepath.Join(res.Out, filepath.FromSlash(AlertsPath)))
	}
	return nil
}

// AlertsPath is where a build writes the Prometheus alerting rules on the
// idempotency middleware's metrics, inside its output folder (OUT/monitoring/alerts.yml):
// `build --out _site` writes nothing outside _site, so a clone stays clean
// with _site ignored. Only where writesAlerts says.
const AlertsPath = "monitoring/alerts.yml"

// writesAlerts: the rules watch the Go middleware's metrics, so a build
// writes them for a contract with keyed endpoints that the middleware
// serves (not a GraphQL one, which it refuses).
func writesAlerts(c *contract.Contract) bool {
	return len(c.KeyedEndpoints()) > 0 && len(c.MiddlewareGaps()) == 0
}

// alertFiles is site.Options.Extra: the alerting rules for the contract
// the build loaded (loading it again doubled the load's cost, 0.7 s of
// CPU on 20,000 endpoints).
func alertFiles(c *contract.Contract) ([]site.File, error) {
	if !writesAlerts(c) {
		return nil, nil
	}
	data, err := alerting.Rules(c)
	if err != nil {
		return nil, err
	}
	return []site.File{{Path: AlertsPath, Data: data}}, nil
}
