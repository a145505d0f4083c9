package verify

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
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
	// escaped is set by kill when the address still answered after the
	// process group died: the server runs outside it.
	escaped error
	// pipes are the read ends of every start's output, closed by stop.
	pipes []*os.File
}

// escapeFix is what to do about a server that runs outside the process
// group verify starts.
const escapeFix = "make server.command run the server itself in the foreground (exec it; no setsid, nohup, daemon mode or `docker run -d`; for a container, `docker run --rm --init -p ...` still runs it outside verify's reach, so run the server binary directly), or test with --base-url, which skips the crash gates"

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
	copied, err := p.launch()
	if err != nil {
		return err
	}
	return p.awaitReady(ctx, copied)
}

// launch starts server.command on p.addr (a free loopback port unless set)
// in a process group of its own. copied closes once the process's output
// is all copied to p.out.
func (p *serverProc) launch() (copied <-chan struct{}, _ error) {
	if p.addr == "" {
		a, err := freeAddr()
		if err != nil {
			return nil, err
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
	// The output goes through a pipe of our own and done closes when the
	// process exits, not when its output ends: a server that escaped the
	// group keeps the pipe open, and its launcher's exit must still be seen.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	setGroup(cmd)
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, &startError{msg: fmt.Sprintf("server.command cannot start: %v", err), fix: "check the program path in server.command (relative paths are resolved from the current folder)"}
	}
	p.cmd, p.done = cmd, make(chan struct{})
	p.pipes = append(p.pipes, pr)
	done := make(chan struct{})
	go func() { io.Copy(p.out, pr); close(done) }()
	go func() {
		st, err := cmd.Process.Wait()
		if err == nil && !st.Success() {
			err = &exec.ExitError{ProcessState: st}
		}
		p.waitErr = err
		close(p.done)
	}()
	return done, nil
}

// awaitReady polls the ready request, backing off to 200 ms, until it
// answers 2xx, the process fails, ctx ends, or startup_timeout passes.
func (p *serverProc) awaitReady(ctx context.Context, copied <-chan struct{}) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(p.spec.StartupTimeout)
	url := "http://" + p.addr + p.spec.ReadyPath
	exited := false
	for delay := 10 * time.Millisecond; ; delay = min(delay*2, 200*time.Millisecond) {
		select {
		case <-p.done:
			// A launcher that exits 0 at once (setsid, docker run -d) may
			// have left the server running on its own: keep polling, to
			// refuse it by name rather than call it a failed start.
			if p.waitErr != nil || exited && time.Now().After(deadline) {
				return p.exitedBeforeReady(copied)
			}
			exited = true
		case <-ctx.Done():
			p.kill()
			return ctx.Err()
		default:
		}
		ready, last := p.probeReady(ctx, client, url)
		if ready && exited {
			return &startError{msg: fmt.Sprintf("server.command exited (status 0) but a server answers at %s: it runs outside the process verify started, so verify could neither crash it nor stop it (it may still be running)", p.addr), fix: escapeFix}
		}
		if ready {
			return nil
		}
		if time.Now().After(deadline) {
			p.kill()
			return p.notReady(exited, last)
		}
		time.Sleep(delay)
	}
}

// probeReady sends the ready request once; last describes an answer that
// is not 2xx (its status, or the error).
func (p *serverProc) probeReady(ctx context.Context, client *http.Client, url string) (ready bool, last string) {
	req, _ := http.NewRequestWithContext(ctx, p.spec.ReadyMethod, url, nil)
	resp, err := client.Do(req)
	if err != nil {
		return false, err.Error()
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	return resp.StatusCode/100 == 2, resp.Status
}

// exitedBeforeReady is a process that failed, or exited 0 with nothing
// answering by the deadline; it quotes what the process printed.
func (p *serverProc) exitedBeforeReady(copied <-chan struct{}) error {
	select { // the output the process wrote before it exited
	case <-copied:
	case <-time.After(time.Second):
	}
	return &startError{msg: fmt.Sprintf("the server exited before it was ready (%v); its last output: %s", orExit0(p.waitErr), orNothing(p.out.String())),
		fix: "run server.command by hand with --addr 127.0.0.1:8080 and fix what it reports"}
}

// notReady is a startup_timeout passed: after a launcher that exited 0 (a
// server that does not stay in the foreground), or with the process still
// running (the ready check is at fault).
func (p *serverProc) notReady(exited bool, last string) error {
	if exited {
		return &startError{msg: fmt.Sprintf("server.command exited (status 0) and nothing answered %s %s within startup_timeout %s; its last output: %s", p.spec.ReadyMethod, p.spec.ReadyPath, p.spec.StartupTimeout, orNothing(p.out.String())),
			fix: "make server.command run the server in the foreground until it is killed"}
	}
	return &startError{ready: true, msg: fmt.Sprintf("the server did not answer %s %s with 2xx within startup_timeout %s (last: %s)", p.spec.ReadyMethod, p.spec.ReadyPath, p.spec.StartupTimeout, last),
		fix: "point server.ready at a path that answers 200 once the server listens, or raise server.startup_timeout"}
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

func orExit0(err error) any {
	if err == nil {
		return "status 0"
	}
	return err
}

// kill sends SIGKILL to the server's process group, waits for it, then
// waits for its address to stop accepting connections: a restart is only
// trusted on an address nothing answers. When something still answers
// after escapeWait, the server runs outside the group; p.escaped says so.
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
	for deadline := time.Now().Add(escapeWait); ; {
		c, err := net.DialTimeout("tcp", p.addr, 200*time.Millisecond)
		if err != nil {
			return
		}
		c.Close()
		if time.Now().After(deadline) {
			if p.escaped == nil {
				p.escaped = fmt.Errorf("after verify killed server.command's process group, %s still accepts connections: the server runs outside that group (setsid, a daemon, a container), so verify can neither crash it nor stop it, and it may still be running; verify refuses to judge a server it cannot kill. Fix: %s", p.addr, escapeFix)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// escapeWait is how long a killed server's address may keep accepting
// connections (the kernel closes a dead process's sockets at once; this
// is only a margin).
const escapeWait = 5 * time.Second

// stop ends the server at the end of a run; the error says it escaped.
func (p *serverProc) stop() error {
	p.kill()
	for _, f := range p.pipes {
		f.Close()
	}
	p.pipes = nil
	return p.escaped
}
