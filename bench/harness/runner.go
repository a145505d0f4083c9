package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Tool is one command line the harness times.
type Tool struct {
	Name string   // as printed: "retryspec copy", "vale"
	Argv []string // Argv[0] is the program path
	Dir  string
	Env  []string // added to the harness's environment
	// Ours marks a retryspec command: one that may not exist yet in this
	// build, which is then reported as not available instead of failed.
	Ours bool
	// Stdout is where the output goes; "" is /dev/null.
	Stdout string
	// Before runs untimed before every run (clearing an output folder).
	Before func() error
	// Fallback replaces an Ours tool whose command or flag this build does
	// not have yet with a narrower command that it may have (build without
	// --openapi). The result says so.
	Fallback *Tool
}

func (t Tool) okExit(code int) bool {
	// 0 clean, 1 findings at error severity: both are a finished run for
	// every tool measured here (linters report the spec's own problems).
	return code == 0 || code == 1
}

// Status of a tool after a measurement.
type Status string

const (
	StatusOK          Status = "ok"
	StatusUnavailable Status = "not available in this build"
	StatusFailed      Status = "failed"
	StatusMissing     Status = "not installed"
)

// Result is what was measured for one tool.
type Result struct {
	Tool    Tool
	Status  Status
	Note    string // why it is not ok: the tool's own first error line
	Samples []Sample
	Summary Summary
	// Fallback is set when the figures are of the tool's narrower Fallback
	// command: real, but not the comparison that was asked for.
	Fallback bool
}

// OK reports whether the result holds real figures.
func (r *Result) OK() bool { return r.Status == StatusOK && len(r.Samples) > 0 }

// Step is one run in a schedule.
type Step struct {
	Tool   int
	Warmup bool
}

// Schedule is the order of runs for n tools: one warm-up round, then reps
// rounds, each round running every tool once in the same order, so tools
// alternate (A B A B ...) and a slow phase of the shared machine touches
// every tool alike instead of all runs of one.
func Schedule(n, warmup, reps int) []Step {
	var steps []Step
	for r := 0; r < warmup+reps; r++ {
		for t := 0; t < n; t++ {
			steps = append(steps, Step{Tool: t, Warmup: r < warmup})
		}
	}
	return steps
}

// execFunc runs a tool once. Tests substitute it.
type execFunc func(ctx context.Context, t Tool) (Sample, string, error)

// Runner times tools.
type Runner struct {
	Timeout time.Duration
	Log     func(format string, args ...any)
	exec    execFunc
}

func NewRunner(timeout time.Duration, log func(string, ...any)) *Runner {
	return &Runner{Timeout: timeout, Log: log, exec: runProcess}
}

// Measure runs tools in the alternating schedule. A tool whose warm-up run
// shows the command does not exist in this build is marked unavailable; one
// that fails (an exit code other than 0 or 1, a crash, a timeout) is marked
// failed with its error; both drop out of the later rounds and carry no
// figures.
func (r *Runner) Measure(tools []Tool, warmup, reps int) []*Result {
	tools = append([]Tool(nil), tools...) // fallbacks replace entries
	res := make([]*Result, len(tools))
	for i, t := range tools {
		res[i] = &Result{Tool: t, Status: StatusOK}
		if len(t.Argv) == 0 || t.Argv[0] == "" {
			res[i].Status, res[i].Note = StatusMissing, "the program is not installed"
			continue
		}
		if _, err := os.Stat(t.Argv[0]); err != nil && strings.ContainsRune(t.Argv[0], '/') {
			res[i].Status, res[i].Note = StatusMissing, err.Error()
		}
	}
	for _, st := range Schedule(len(tools), warmup, reps) {
		out := res[st.Tool]
		if out.Status != StatusOK {
			continue
		}
		t := tools[st.Tool]
		if t.Before != nil {
			if err := t.Before(); err != nil {
				out.Status, out.Note = StatusFailed, "preparing the run: "+err.Error()
				continue
			}
		}
		s, stderr, timedOut, err := r.once(t)
		switch {
		case timedOut:
			out.Status, out.Note = StatusFailed, fmt.Sprintf("timed out after %s", r.Timeout)
		case err != nil:
			out.Status, out.Note = StatusFailed, err.Error()
		case t.Ours && notImplemented(s.Exit, stderr) && t.Fallback != nil && st.Warmup:
			// Swap in the fallback for this and every later round; this
			// run becomes the fallback's warm-up.
			why, full := firstLine(stderr), t
			t = *t.Fallback
			tools[st.Tool] = t
			out.Tool, out.Fallback = t, true
			r.logf("  %-28s falls back to %q: %s", full.Name, t.Name, why)
			if t.Before != nil {
				if err := t.Before(); err != nil {
					out.Status, out.Note = StatusFailed, "preparing the run: "+err.Error()
					continue
				}
			}
			s, stderr, timedOut, err = r.once(t)
			out.Note = "the full command is not available in this build (" + why + ")"
			switch {
			case timedOut:
				out.Status, out.Note = StatusFailed, fmt.Sprintf("timed out after %s", r.Timeout)
			case err != nil:
				out.Status, out.Note = StatusFailed, err.Error()
			case notImplemented(s.Exit, stderr):
				// Neither exists: report the command that was asked for.
				out.Tool, out.Fallback, out.Status, out.Note = full, false, StatusUnavailable, why
			case !t.okExit(s.Exit):
				out.Status, out.Note = StatusFailed, fmt.Sprintf("exit %d: %s", s.Exit, firstLine(stderr))
			}
		case t.Ours && notImplemented(s.Exit, stderr):
			out.Status, out.Note = StatusUnavailable, firstLine(stderr)
		case !t.okExit(s.Exit):
			out.Status, out.Note = StatusFailed, fmt.Sprintf("exit %d: %s", s.Exit, firstLine(stderr))
		}
		if out.Status != StatusOK {
			r.logf("  %-28s %s: %s", t.Name, out.Status, out.Note)
			out.Samples = nil
			continue
		}
		if st.Warmup {
			r.logf("  %-28s warm-up %8.3fs", t.Name, s.Wall.Seconds())
			continue
		}
		out.Samples = append(out.Samples, s)
		r.logf("  %-28s %8.3fs  cpu %8.3fs  rss %6.1f MB", t.Name, s.Wall.Seconds(), s.CPU.Seconds(), float64(s.MaxRSS)/1e6)
	}
	for _, out := range res {
		if out.OK() {
			out.Summary = Summarize(out.Samples)
		}
	}
	return res
}

// once runs t under the runner's timeout.
func (r *Runner) once(t Tool) (s Sample, stderr string, timedOut bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), r.Timeout)
	defer cancel()
	s, stderr, err = r.exec(ctx, t)
	if errors.Is(err, errTimedOut) {
		return s, stderr, true, nil
	}
	return s, stderr, ctx.Err() != nil, err
}

func (r *Runner) logf(format string, args ...any) {
	if r.Log != nil {
		r.Log(format, args...)
	}
}

// notImplemented tells a command or flag this build does not have yet from
// a real failure: the placeholders exit 2 saying "not implemented yet", and
// cobra rejects an unknown command or flag with exit 2.
func notImplemented(exit int, stderr string) bool {
	if exit != 2 {
		return false
	}
	for _, s := range []string{"not implemented yet", "unknown flag", "unknown shorthand flag", "unknown command"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	if s == "" {
		return "(no message)"
	}
	return s
}

// limitedBuffer keeps the first max bytes written to it and drops the rest,
// so a chatty tool cannot grow the harness's memory.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}

// runProcess runs t as a child process and reads its wall time, and from
// the kernel's rusage its CPU time and peak RSS. wait4 reports the child
// together with the descendants it waited for, so a wrapper script or a
// Node launcher is counted with the work it starts.
func runProcess(ctx context.Context, t Tool) (Sample, string, error) {
	cmd := exec.CommandContext(ctx, t.Argv[0], t.Argv[1:]...)
	cmd.Dir = t.Dir
	cmd.Env = append(os.Environ(), t.Env...)
	// Own process group, so a timeout kills the tool's children too; and
	// killed with its parent, so an interrupted run leaves nothing behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	outPath := t.Stdout
	if outPath == "" {
		outPath = os.DevNull
	}
	out, err := os.Create(outPath)
	if err != nil {
		return Sample{}, "", err
	}
	defer out.Close()
	cmd.Stdout = out
	stderr := &limitedBuffer{max: 64 << 10}
	cmd.Stderr = stderr
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return Sample{}, stderr.String(), err
	}
	ps := cmd.ProcessState
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return Sample{}, stderr.String(), errors.New("no rusage from the kernel")
	}
	return Sample{
		Wall:   wall,
		CPU:    ps.UserTime() + ps.SystemTime(),
		MaxRSS: ru.Maxrss * 1024, // Linux reports kilobytes
		Exit:   ps.ExitCode(),
	}, stderr.String(), nil
}
