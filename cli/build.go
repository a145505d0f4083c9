package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the issue that implements `retryspec build`.
func newBuildCmd(sys *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "build",
		Short: "(not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &ExitError{Code: ExitInput, Err: errors.New("build is not implemented yet")}
		},
	}
}
