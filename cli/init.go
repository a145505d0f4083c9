package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the issue that implements `retryspec init`.
func newInitCmd(sys *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "(not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &ExitError{Code: ExitInput, Err: errors.New("init is not implemented yet")}
		},
	}
}
