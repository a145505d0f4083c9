package verify

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// serverProc runs the plan's server command.
type serverProc struct {
	spec    *Server
	env     []string
	addr    string
	out     *tailBuffer
	logs    io.Writer
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
}

// tailBuffer keeps the last bytes a server printed, for error messages.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	w   io.Writer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4096 {
		t.buf = t.buf[len(t.buf)-4096:]
	}
	if t.w != nil {
		t.w.Write(p)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

// freeAddr picks a free loopback port.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startError is a server that would not start: exit 2, at the plan line.
type startError struct {
	msg, fix string
	ready    bool // the ready check, not the command, is at fault
}

func (e *startError) Error() string { return e.msg }

// start runs the command and polls the ready request until it answers 2xx,
// the process exits, or startup_timeout passes.
func (p *serverProc) start(ctx context.Context) error {
	if p.addr == "" {
		a, err := freeAddr()
		if err != nil {
			return err
		}
		p.addr = a
	}
	args := make([]string, len(p.spec.Command))
	for i, a := range p.spec.Command {
		args[i] = strings.ReplaceAll(a, "{addr}", p.addr)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = p.env
	if p.out == nil {
		p.out = &tailBuffer{w: p.logs}
	}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	setGroup(cmd)
	if err := cmd.Start(); err != nil {
		return &startError{msg: fmt.Sprintf("server.command cannot start: %v", err), fix: "check the program path in server.command (relative paths are resolved from the current folder)"}
	}
	p.cmd, p.done = cmd, make(chan struct{})
	go func() { p.waitErr = cmd.Wait(); close(p.done) }()

	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(p.spec.StartupTimeout)
	url := "http://" + p.addr + p.spec.ReadyPath
	last := "no answer"
	for delay := 10 * time.Millisecond; ; delay = min(delay*2, 200*time.Millisecond) {
		select {
		case <-p.done:
			return &startError{msg: fmt.Sprintf("the server exited before it was ready (%v); its last output: %s", p.waitErr, orNothing(p.out.String())),
				fix: "run server.command by hand with --addr 127.0.0.1:8080 and fix what it reports"}
		case <-ctx.Done():
			p.kill()
			return ctx.Err()
		default:
		}
		req, _ := http.NewRequestWithContext(ctx, p.spec.ReadyMethod, url, nil)
		resp, err := client.Do(req)
		if err == nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			p.kill()
			return &startError{ready: true, msg: fmt.Sprintf("the server did not answer %s %s with 2xx within startup_timeout %s (last: %s)", p.spec.ReadyMethod, p.spec.ReadyPath, p.spec.StartupTimeout, last),
				fix: "point server.ready at a path that answers 200 once the server listens, or raise server.startup_timeout"}
		}
		time.Sleep(delay)
	}
}

func orNothing(s string) string {
	if s == "" {
		return "(nothing)"
	}
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	return s
}

// kill sends SIGKILL to the server's process group and waits for it.
func (p *serverProc) kill() {
	if p.cmd == nil {
		return
	}
	killGroup(p.cmd)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
	}
	p.cmd = nil
}
