package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the issue that implements `retryspec serve`.
func newServeCmd(sys *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "(not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &ExitError{Code: ExitInput, Err: errors.New("serve is not implemented yet")}
		},
	}
}
