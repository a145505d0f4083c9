package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// PLACEHOLDER: replaced by the issue that implements `retryspec snippets`.
func newSnippetsCmd(sys *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "snippets",
		Short: "(not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &ExitError{Code: ExitInput, Err: errors.New("snippets is not implemented yet")}
		},
	}
}
