package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the issue that implements `retryspec version`.
func newVersionCmd(sys *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "(not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &ExitError{Code: ExitInput, Err: errors.New("version is not implemented yet")}
		},
	}
}
