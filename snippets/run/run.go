package run

import (
	"context"
	"io"
	"time"
)

// Program is one snippet to run.
type Program struct {
	FileName string
	Source   []byte
	// Build, when set, runs once in the folder before Run; Run is the
	// program itself. "{file}" and any key of Vars are replaced in both.
	Build []string
	Run   []string
	Vars  map[string]string
	// Env is added to the minimal environment (e.g. the base URL).
	Env     map[string]string
	Timeout time.Duration
	// Stdout and Stderr, when set, also receive the program's output as it
	// runs (Result keeps a copy either way), so a long run shows its log.
	Stdout, Stderr io.Writer
}

// Result is how a run ended.
type Result struct {
	ExitCode int
	Stdout   []byte
	Stderr   []byte
	Started  time.Time
	Elapsed  time.Duration
	TimedOut bool
}

// Runner runs programs. Prepare does the per-source work (writing, building)
// once, so a snippet can run through many scenarios for the price of one
// build.
type Runner interface {
	Prepare(ctx context.Context, p Program) (Prepared, error)
}

// Prepared is a built snippet, ready to run any number of times.
type Prepared interface {
	// Run runs the program once with env added to its environment.
	Run(ctx context.Context, env map[string]string) (Result, error)
	// Close removes the temporary folder.
	Close() error
}
