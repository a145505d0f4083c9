package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the issue that implements `retryspec copy`.
func newCopyCmd(sys *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "copy",
		Short: "(not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &ExitError{Code: ExitInput, Err: errors.New("copy is not implemented yet")}
		},
	}
}
