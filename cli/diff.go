package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the issue that implements `retryspec diff`.
func newDiffCmd(sys *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "diff",
		Short: "(not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &ExitError{Code: ExitInput, Err: errors.New("diff is not implemented yet")}
		},
	}
}
