package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the issue that implements `retryspec openapi`.
func newOpenAPICmd(sys *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "openapi",
		Short: "(not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &ExitError{Code: ExitInput, Err: errors.New("openapi is not implemented yet")}
		},
	}
}
