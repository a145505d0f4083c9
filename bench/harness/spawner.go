package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Why a spawner: Go starts a child with vfork semantics (CLONE_VM), and at
// exec Linux folds the peak RSS of the address space being left (the
// parent's) into the child's ru_maxrss. A harness that has parsed a 4 MB
// spec has a high-water mark near 200 MB, and every tool it starts after
// that would report at least as much. So the tools are started by a
// separate, small process launched before the harness allocates anything;
// its own few megabytes are the floor of every peak-RSS figure.

// spawnerEnv, when set, makes the binary serve as the spawner.
const spawnerEnv = "RETRYSPEC_BENCH_SPAWNER"

var errTimedOut = errors.New("timed out")

type spawnRequest struct {
	Argv    []string
	Dir     string
	Env     []string
	Stdout  string
	Timeout time.Duration
}

type spawnReply struct {
	Sample   Sample
	Stderr   string
	Err      string
	TimedOut bool
}

// serveSpawner runs each request read from in and writes its reply to out,
// until in closes.
func serveSpawner(in io.Reader, out io.Writer) error {
	dec, enc := json.NewDecoder(in), json.NewEncoder(out)
	for {
		var req spawnRequest
		if err := dec.Decode(&req); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), req.Timeout)
		s, stderr, err := runProcess(ctx, Tool{Argv: req.Argv, Dir: req.Dir, Env: req.Env, Stdout: req.Stdout})
		rep := spawnReply{Sample: s, Stderr: stderr, TimedOut: ctx.Err() != nil}
		cancel()
		if err != nil {
			rep.Err = err.Error()
		}
		if err := enc.Encode(rep); err != nil {
			return err
		}
	}
}

// spawner is the harness's end of the spawner process.
type spawner struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	enc *json.Encoder
	dec *json.Decoder
}

// startSpawner launches this binary again as the spawner. Call it first,
// while the harness is still small.
func startSpawner() (*spawner, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), spawnerEnv+"=1")
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &spawner{cmd: cmd, in: in, enc: json.NewEncoder(in), dec: json.NewDecoder(out)}, nil
}

// exec runs t in the spawner; it has the execFunc signature.
func (s *spawner) exec(ctx context.Context, t Tool) (Sample, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	timeout := 10 * time.Minute
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	if err := s.enc.Encode(spawnRequest{Argv: t.Argv, Dir: t.Dir, Env: t.Env, Stdout: t.Stdout, Timeout: timeout}); err != nil {
		return Sample{}, "", fmt.Errorf("spawner: %w", err)
	}
	var rep spawnReply
	if err := s.dec.Decode(&rep); err != nil {
		return Sample{}, "", fmt.Errorf("spawner: %w", err)
	}
	switch {
	case rep.TimedOut:
		return rep.Sample, rep.Stderr, errTimedOut
	case rep.Err != "":
		return rep.Sample, rep.Stderr, errors.New(rep.Err)
	}
	return rep.Sample, rep.Stderr, nil
}

func (s *spawner) Close() error {
	s.in.Close()
	return s.cmd.Wait()
}
