package cli

import (
	"github.com/spf13/cobra"

	"github.com/retryspec/retryspec/contract/schema"
)

func newSchemaCmd(sys *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the contract's JSON Schema (draft 2020-12) for editors",
		Long: "Print the JSON Schema of retryspec.yaml. Save it and point your editor's\n" +
			"YAML language server at it, e.g. with a first line\n" +
			"# yaml-language-server: $schema=./retryspec.schema.json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := sys.Out.Write(schema.JSON())
			return err
		},
	}
}
