package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/site"
)

type serveOptions struct {
	IO        *IO
	Contract  string
	Addr      string
	Templates string
}

func newServeCmd(sys *IO, runF func(context.Context, *serveOptions) error) *cobra.Command {
	opts := &serveOptions{IO: sys}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Build and serve the docs site, rebuilding when the contract or templates change",
		Long: `Build the docs site into a temporary folder and serve it, by default on
127.0.0.1:8080 (this machine only). Editing the contract or a template
rebuilds the site and reloads open pages. An edit that breaks the build
keeps the last good site up and shows the problem in the page and here.
Only requests addressed to the listening address (or localhost, 127.0.0.1,
[::1] with its port) are answered, so another web site cannot read the
pages through a DNS name of its own (DNS rebinding).`,
		Args: contractFlagArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCommand(cmd.Context(), sys, defaultMemory, opts, runF, runServe)
		},
	}
	cmd.Flags().StringVarP(&opts.Contract, "contract", "c", "retryspec.yaml", "the contract `FILE`")
	cmd.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:8080", "`ADDR` to listen on (host:port; loopback unless you say otherwise)")
	cmd.Flags().StringVar(&opts.Templates, "templates", "", "`DIR` of templates that override the built-in ones by the same relative path")
	return cmd
}

func runServe(ctx context.Context, opts *serveOptions) error {
	err := site.Serve(ctx, site.ServeOptions{
		Build: site.Options{Contract: opts.Contract, Templates: opts.Templates},
		Addr:  opts.Addr,
		Log:   opts.IO.Err,
	})
	if err != nil {
		return inputError(err)
	}
	return nil
}
