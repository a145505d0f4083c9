package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runCLI runs one command in-process with empty stdin and no environment.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	sys := &IO{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: func(string) string { return "" }}
	code = Run(context.Background(), args, sys)
	return code, out.String(), errb.String()
}
