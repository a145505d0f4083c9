package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the issue that implements `retryspec schema`.
func newSchemaCmd(sys *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "(not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &ExitError{Code: ExitInput, Err: errors.New("schema is not implemented yet")}
		},
	}
}
