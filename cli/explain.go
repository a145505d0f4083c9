package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the issue that implements `retryspec explain`.
func newExplainCmd(sys *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "explain",
		Short: "(not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &ExitError{Code: ExitInput, Err: errors.New("explain is not implemented yet")}
		},
	}
}
