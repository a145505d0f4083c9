package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Exec runs programs with os/exec.
type Exec struct {
	// Passthrough names the parent's variables a snippet may see besides
	// the fixed minimum (PATH, HOME, LANG); nil means DefaultPassthrough.
	Passthrough []string
	// Getenv reads the parent environment; nil means os.Getenv.
	Getenv func(string) string
}

// DefaultPassthrough is what runtimes need to find themselves and their
// caches: pyenv's shims, the Go build cache, the JDK.
var DefaultPassthrough = []string{
	"PYENV_ROOT", "PYENV_VERSION", "VIRTUAL_ENV", "PYTHONPATH",
	"GOCACHE", "GOROOT", "GOPATH", "GOTOOLCHAIN", "GOPROXY", "GOFLAGS",
	"JAVA_HOME", "GEM_HOME", "GEM_PATH", "NODE_PATH",
}

type prepared struct {
	dir     string
	run     []string
	env     []string
	timeout time.Duration
	// stdout and stderr receive the program's output live (not the build's).
	stdout, stderr io.Writer
}

// Prepare writes the source into a new temporary folder and runs the build
// step there, if any.
func (x Exec) Prepare(ctx context.Context, p Program) (Prepared, error) {
	dir, err := os.MkdirTemp("", "retryspec-snippet-")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, p.FileName), p.Source, 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	pr := &prepared{dir: dir, run: expand(p.Run, p), env: x.environ(dir, p.Env), timeout: p.Timeout, stdout: p.Stdout, stderr: p.Stderr}
	if pr.timeout <= 0 {
		pr.timeout = time.Minute
	}
	if len(p.Build) > 0 {
		// A build is bounded work, so its limit is only a hang guard: a
		// first Go or Java build with an empty cache on a busy 2-core
		// machine has been seen to take over two and a half minutes.
		res, err := pr.exec(ctx, expand(p.Build, p), nil, 10*time.Minute+pr.timeout, nil, nil)
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		if res.ExitCode != 0 {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("building %s failed (exit %d):\n%s%s", p.FileName, res.ExitCode, res.Stdout, res.Stderr)
		}
	}
	return pr, nil
}

func (pr *prepared) Run(ctx context.Context, env map[string]string) (Result, error) {
	return pr.exec(ctx, pr.run, env, pr.timeout, pr.stdout, pr.stderr)
}

func (pr *prepared) Close() error { return os.RemoveAll(pr.dir) }

func (pr *prepared) exec(ctx context.Context, argv []string, env map[string]string, timeout time.Duration, liveOut, liveErr io.Writer) (Result, error) {
	if len(argv) == 0 {
		return Result{}, errors.New("run: empty command")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	name := argv[0]
	if strings.HasPrefix(name, "./") {
		name = filepath.Join(pr.dir, name)
	}
	cmd := exec.CommandContext(ctx, name, argv[1:]...)
	cmd.Dir = pr.dir
	cmd.Env = append(append([]string(nil), pr.env...), mapEnv(env)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = tee(&stdout, liveOut), tee(&stderr, liveErr)
	cmd.WaitDelay = time.Second
	started := time.Now()
	err := cmd.Run()
	res := Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Started: started, Elapsed: time.Since(started)}
	if ctx.Err() == context.DeadlineExceeded {
		res.TimedOut = true
		res.ExitCode = -1
		return res, nil
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	default:
		return res, err
	}
	return res, nil
}

// environ is the minimal environment: PATH, HOME and a UTF-8 locale from the
// parent, TMPDIR inside the run's folder, the passthrough variables that are
// set, then the program's own.
func (x Exec) environ(dir string, extra map[string]string) []string {
	get := x.Getenv
	if get == nil {
		get = os.Getenv
	}
	pass := x.Passthrough
	if pass == nil {
		pass = DefaultPassthrough
	}
	env := []string{"PATH=" + get("PATH"), "HOME=" + get("HOME"), "LANG=C.UTF-8", "TMPDIR=" + dir}
	for _, k := range pass {
		if v := get(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return append(env, mapEnv(extra)...)
}

func mapEnv(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}

func expand(argv []string, p Program) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		a = strings.ReplaceAll(a, "{file}", p.FileName)
		for k, v := range p.Vars {
			a = strings.ReplaceAll(a, "{"+k+"}", v)
		}
		out[i] = a
	}
	return out
}

// Programs lists the executables a language's commands need, with vars
// expanded, for a check before anything runs: the runtime, and the first
// word of the build and run commands unless it is the built program itself.
func Programs(runtime string, build, run []string, vars map[string]string) []string {
	out := []string{runtime}
	for _, argv := range [][]string{build, run} {
		if len(argv) == 0 || strings.HasPrefix(argv[0], "./") {
			continue
		}
		name := expand(argv[:1], Program{Vars: vars})[0]
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

func tee(buf *bytes.Buffer, live io.Writer) io.Writer {
	if live == nil {
		return buf
	}
	return io.MultiWriter(buf, live)
}
