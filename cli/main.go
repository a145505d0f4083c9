// Package cli is the retryspec command line: one file per command, each an
// options struct, a constructor and a run function over the domain packages.
// Only this package imports cobra, reads flags and the environment, and maps
// errors to exit codes.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
)

// Exit codes, for every command (docs/contract.md, "Exit codes").
const (
	ExitOK       = 0
	ExitFindings = 1 // findings at error severity, a failed test, a breaking change
	ExitInput    = 2 // unreadable or invalid input, or a wrong command line
)

// IO is everything a command touches outside its arguments, injected so
// tests run commands in-process.
type IO struct {
	In       io.Reader
	Out      io.Writer
	Err      io.Writer
	OutIsTTY bool
	ErrIsTTY bool
	// Getenv reads the environment (NO_COLOR, CI, ...).
	Getenv func(string) string
}

// SystemIO is the process's real standard streams and environment.
func SystemIO() *IO {
	return &IO{
		In:       os.Stdin,
		Out:      os.Stdout,
		Err:      os.Stderr,
		OutIsTTY: term.IsTerminal(int(os.Stdout.Fd())),
		ErrIsTTY: term.IsTerminal(int(os.Stderr.Fd())),
		Getenv:   os.Getenv,
	}
}

// Color reports whether output to a terminal may use colour.
func (s *IO) Color(tty bool) bool {
	return tty && s.Getenv("NO_COLOR") == "" && s.Getenv("TERM") != "dumb"
}

// ExitError carries an exit code out of a command. Message, when not empty,
// is printed once to stderr by Main.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// The exit helpers are the only places an ExitError is made
// (TestExitErrorsOnlyFromHelpers).

// failed is the error a command returns when it printed its findings and the
// run must exit 1 without a further message.
func failed() error { return &ExitError{Code: ExitFindings} }

// failedf is exit 1 with a message: a refused build, a breaking change, a
// snippet that could not run or failed.
func failedf(format string, args ...any) error { return failedWith(fmt.Errorf(format, args...)) }

// failedWith is failedf for an error already made.
func failedWith(err error) error { return &ExitError{Code: ExitFindings, Err: err} }

// inputError reports input that could not be read or parsed (exit 2);
// Main prints a *contract.LoadError with carets.
func inputError(err error) error { return &ExitError{Code: ExitInput, Err: err} }

// usageErrorf reports a wrong command line (exit 2).
func usageErrorf(format string, args ...any) error {
	return &ExitError{Code: ExitInput, Err: fmt.Errorf(format, args...)}
}

// Main runs the command line and returns the process exit code.
func Main(args []string, sys *IO) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, args, sys)
}

// Run is Main with a caller-supplied context (tests, serve).
func Run(ctx context.Context, args []string, sys *IO) int {
	root := newRootCmd(sys)
	root.SetArgs(args)
	root.SetIn(sys.In)
	root.SetOut(sys.Out)
	root.SetErr(sys.Err)
	return exitCode(sys, root.ExecuteContext(ctx))
}

// exitCode is the one place an error becomes an exit code: it prints the
// error once (a load error with carets) and returns its code.
func exitCode(sys *IO, err error) int {
	if err == nil {
		return ExitOK
	}
	var exit *ExitError
	if errors.As(err, &exit) {
		if exit.Err != nil {
			printError(sys, exit.Err)
		}
		return exit.Code
	}
	// Anything else that reaches here is cobra's own argument or flag
	// error, or an input problem: both are exit 2.
	printError(sys, err)
	return ExitInput
}

func printError(sys *IO, err error) {
	var le *contract.LoadError
	if errors.As(err, &le) {
		printLoadError(sys, le)
		return
	}
	fmt.Fprintf(sys.Err, "retryspec: %v\n", err)
}

// printLoadError prints every diagnostic like a compiler, with the printer
// findings use: position, message, the source line with a caret under the
// value, and the fix.
func printLoadError(sys *IO, le *contract.LoadError) {
	p := findings.Printer{W: sys.Err, Color: sys.Color(sys.ErrIsTTY)}
	for _, d := range le.Diagnostics {
		pd := findings.Diagnostic{File: d.File, Level: "error", LevelStyle: findings.StyleError, Message: d.Message}
		if !d.Pos.IsZero() {
			pd.Line, pd.Column = d.Pos.Line, d.Pos.Column
			pd.Source = le.SourceLine(d.Pos.Line)
			pd.HasSource = pd.Source != ""
		}
		if d.Fix != "" {
			pd.Notes = []findings.Note{{Label: "fix:", Style: findings.StyleLabel, Text: d.Fix}}
		}
		p.Print(pd)
	}
	if n := len(le.Diagnostics); n > 1 {
		fmt.Fprintf(sys.Err, "%s: %d problems; nothing was checked\n", le.File, n)
	}
}

// newRootCmd builds the command tree. Each command lives in its own file.
func newRootCmd(sys *IO) *cobra.Command {
	root := &cobra.Command{
		Use:           "retryspec",
		Short:         "Lint an API's idempotency and retry contract and publish it as docs, OpenAPI and tested snippets",
		SilenceUsage:  true,
		SilenceErrors: true,
		// Flag errors are usage errors: exit 2 with the message and a hint.
	}
	// --version prints what `retryspec version` prints.
	root.Version = "set"
	root.SetVersionTemplate(buildVersion().String())
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageErrorf("%v\nRun '%s --help' for usage.", err, cmd.CommandPath())
	})
	root.CompletionOptions.HiddenDefaultCmd = true
	root.AddCommand(
		newCheckCmd(sys, nil),
		newExplainCmd(sys, nil),
		newSchemaCmd(sys, nil),
		newInitCmd(sys, nil),
		newVersionCmd(sys, nil),
		newBuildCmd(sys, nil),
		newServeCmd(sys, nil),
		newOpenAPICmd(sys, nil),
		newSnippetsCmd(sys, nil),
		newCopyCmd(sys, nil),
		newDiffCmd(sys, nil),
		newStorageCmd(sys, nil),
		newVerifyCmd(sys, nil),
		newTemplatesCmd(sys),
	)
	return root
}
