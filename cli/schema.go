package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/contract/schema"
)

type schemaOptions struct {
	IO *IO
}

func newSchemaCmd(sys *IO, runF func(context.Context, *schemaOptions) error) *cobra.Command {
	opts := &schemaOptions{IO: sys}
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the contract's JSON Schema (draft 2020-12) for editors",
		Long: "Print the JSON Schema of retryspec.yaml. Save it and point your editor's\n" +
			"YAML language server at it, e.g. with a first line\n" +
			"# yaml-language-server: $schema=./retryspec.schema.json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCommand(cmd.Context(), sys, defaultMemory, opts, runF, runSchema)
		},
	}
}

func runSchema(_ context.Context, opts *schemaOptions) error {
	_, err := opts.IO.Out.Write(schema.JSON())
	return err
}
