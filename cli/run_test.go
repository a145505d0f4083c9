package cli

import (
	"context"
	"testing"
)

// runCLI runs one command in-process with empty stdin and no environment.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	sys, out, errb := testIO()
	code = Run(context.Background(), args, sys)
	return code, out.String(), errb.String()
}
