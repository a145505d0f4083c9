package hostiletest

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Why a spawner: Go starts a child with vfork semantics (CLONE_VM), and at
// exec Linux folds the peak RSS of the address space being left, the
// parent's, into the child's ru_maxrss. This test process grows large (it
// renders the Markdown and parses the HTML of every output, under the race
// detector too), and every command it started itself would report at least
// that peak. So the commands are started by a second, small copy of the
// test binary, launched before this one allocates anything; its own few
// megabytes are the floor of every figure. (bench/harness does the same.)

// spawnerEnv, when set, makes the test binary serve as the spawner.
const spawnerEnv = "RETRYSPEC_HOSTILE_SPAWNER"

type spawnRequest struct {
	ID        int
	Argv      []string
	Dir       string
	Env       []string
	StopAfter time.Duration
	Hang      time.Duration // CPU time after which the command is killed as hung
}

type spawnReply struct {
	ID                 int
	Err                string
	Code               int
	Stdout, Stderr     []byte
	OutBytes, ErrBytes int64
	Wall, CPU          time.Duration
	RSS                int64
	Measured           bool
	Signaled           bool
	Hung               bool // killed by the hang guard (CPU time past Hang)
}

// serveSpawner runs the requests read from in, each in a goroutine of its
// own (the tests run in parallel), and writes each reply to out when its
// process ends, until in closes.
func serveSpawner(in io.Reader, out io.Writer) error {
	dec, enc := json.NewDecoder(in), json.NewEncoder(out)
	var mu sync.Mutex
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		var req spawnRequest
		if err := dec.Decode(&req); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, err := runProcess(req)
			rep.ID = req.ID
			if err != nil {
				rep.Err = err.Error()
			}
			mu.Lock()
			defer mu.Unlock()
			enc.Encode(rep)
		}()
	}
}

// spawner is the test's end of the spawner process.
var spawner struct {
	mu      sync.Mutex
	enc     *json.Encoder
	next    int
	waiting map[int]chan spawnReply
	err     error // set when the spawner is gone
}

// startSpawner launches this test binary again as the spawner, and a
// goroutine that hands each reply to the run waiting for it.
func startSpawner() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), spawnerEnv+"=1")
	// Should this process die, the spawner reads the end of its input,
	// lets the commands it runs finish, and exits.
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	spawner.enc = json.NewEncoder(in)
	spawner.waiting = map[int]chan spawnReply{}
	go func() {
		dec := json.NewDecoder(out)
		for {
			var rep spawnReply
			if err := dec.Decode(&rep); err != nil {
				spawner.mu.Lock()
				spawner.err = fmt.Errorf("spawner: %v", err)
				for _, ch := range spawner.waiting {
					close(ch)
				}
				spawner.waiting = nil
				spawner.mu.Unlock()
				return
			}
			spawner.mu.Lock()
			ch := spawner.waiting[rep.ID]
			delete(spawner.waiting, rep.ID)
			spawner.mu.Unlock()
			if ch != nil {
				ch <- rep
			}
		}
	}()
	return nil
}

// spawn runs req in the spawner and waits for its reply.
func spawn(req spawnRequest) (spawnReply, error) {
	ch := make(chan spawnReply, 1)
	spawner.mu.Lock()
	if spawner.err != nil {
		spawner.mu.Unlock()
		return spawnReply{}, spawner.err
	}
	spawner.next++
	req.ID = spawner.next
	spawner.waiting[req.ID] = ch
	err := spawner.enc.Encode(req)
	spawner.mu.Unlock()
	if err != nil {
		return spawnReply{}, fmt.Errorf("spawner: %w", err)
	}
	rep, ok := <-ch
	if !ok {
		spawner.mu.Lock()
		defer spawner.mu.Unlock()
		return spawnReply{}, spawner.err
	}
	if rep.Err != "" {
		return rep, fmt.Errorf("starting %s: %s", req.Argv[0], rep.Err)
	}
	return rep, nil
}
