package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the issue that implements `retryspec check`.
func newCheckCmd(sys *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "(not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &ExitError{Code: ExitInput, Err: errors.New("check is not implemented yet")}
		},
	}
}
