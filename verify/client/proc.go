package client

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// ran is how one program run ended.
type ran struct {
	exitCode int
	killed   bool
	output   string
	started  time.Time
	elapsed  time.Duration
}

// outputLines is how many of the program's last lines a failure quotes.
const outputLines = 12

// runProgram runs argv in its own process group with env, bounded by
// bound; at the bound (or when ctx ends) the whole group is killed. The
// group is killed after a normal exit too, so nothing the program left
// behind outlives its run. err is set only when the program cannot start.
func runProgram(ctx context.Context, argv, env []string, dir string, bound time.Duration) (ran, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, dir
	killTree := ownGroup(cmd)
	// One pipe of our own for stdout and stderr: Wait returns when the
	// program exits, even if a child it left behind holds the pipe.
	pr, pw, err := os.Pipe()
	if err != nil {
		return ran{}, err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	started := time.Now()
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return ran{}, err
	}
	var out tail
	copied := make(chan struct{})
	go func() { io.Copy(&out, pr); close(copied) }()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	timer := time.NewTimer(bound)
	defer timer.Stop()
	res := ran{started: started}
	var werr error
	select {
	case werr = <-exited:
	case <-timer.C:
		res.killed = true
		killTree()
		werr = <-exited
	case <-ctx.Done():
		killTree()
		werr = <-exited
	}
	res.elapsed = time.Since(started)
	killTree()
	select { // the output written before the end; a survivor outside the group keeps the pipe
	case <-copied:
	case <-time.After(2 * time.Second):
	}
	pr.Close()
	res.output = out.lastLines(outputLines)
	res.exitCode = cmd.ProcessState.ExitCode()
	if werr != nil && cmd.ProcessState == nil {
		return ran{}, werr
	}
	return res, nil
}

// tail keeps the last bytes a program printed.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 8 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailBytes; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

func (t *tail) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimRight(string(bytes.ToValidUTF8(t.buf, []byte("?"))), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
