//go:build linux

package verify

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestNothingLeftRunning: whether a run ends, is interrupted (Ctrl-C and
// SIGTERM cancel its context) or reaches its --timeout, every process
// verify started (each server start, and a child the server command left
// in its group) is gone when Run returns, and so is the external-call stub.
func TestNothingLeftRunning(t *testing.T) {
	bin := referenceServer(t)
	c, file := shortLockContract(t)
	for _, tc := range []struct {
		name      string
		timeout   time.Duration
		interrupt bool
	}{
		{"completed", 0, false},
		{"interrupted", 0, true},
		// Five trials per kill point wait out lock_timeout (3s) over a
		// hundred seconds, so 45s cuts the crash gate mid-trial, once
		// the server has started (in under 12s: the gate needs 33s left).
		{"timeout", 45 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each has its own folder, store and ports
			dir := t.TempDir()
			script := `echo "$RETRYSPEC_EXTERNAL_URL" > "$PIDDIR/stub"; sleep 600 & echo $! > "$PIDDIR/child.$!"; echo $$ > "$PIDDIR/server.$$"; exec "$BIN" --addr "$0" --store "$STORE" --contract "$CONTRACT" --jobs-every 0`
			p := referencePlan(t, c, []string{"sh", "-c", script, "{addr}"})
			envv := append(os.Environ(), "PIDDIR="+dir, "BIN="+bin, "STORE=sqlite:"+filepath.Join(dir, "p.db"), "CONTRACT="+file)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			o := Options{Contract: c, Plan: p, Env: envv, Timeout: tc.timeout,
				Only: []string{GateMissingKey, GateRestartReplay, GateCrashRecovery, GateReplay}}
			if tc.timeout > 0 {
				o.CrashTrials = 5
			}
			if tc.interrupt {
				o.Progress = func(g GateResult) {
					if g.Gate == GateRestartReplay {
						cancel()
					}
				}
			}
			res, err := Run(ctx, o)
			if err != nil && !tc.interrupt && tc.timeout == 0 {
				t.Fatal(err)
			}
			if tc.interrupt && (res == nil || res.Aborted != ErrInterrupted) {
				t.Errorf("interrupted run: %+v, %v", res, err)
			}
			if tc.timeout > 0 && (res == nil || !errors.Is(res.Aborted, ErrRunTimeout)) {
				t.Errorf("the run was not cut by its timeout: %+v, %v", res, err)
			}
			pids, _ := filepath.Glob(filepath.Join(dir, "*.*"))
			if len(pids) < 2 {
				t.Fatalf("the server command never ran: %v", pids)
			}
			for _, f := range pids {
				if strings.HasSuffix(f, ".db") || strings.Contains(f, ".db-") {
					continue
				}
				pid, _ := strconv.Atoi(strings.TrimPrefix(filepath.Ext(f), "."))
				if outlives(pid) {
					t.Errorf("%s (pid %d) still runs after Run returned", filepath.Base(f), pid)
				}
			}
			stub, _ := os.ReadFile(filepath.Join(dir, "stub"))
			if u := strings.TrimPrefix(strings.TrimSpace(string(stub)), "http://"); u != "" {
				if c, err := net.Dial("tcp", u); err == nil {
					c.Close()
					t.Errorf("the stub at %s still answers after Run returned", u)
				}
			}
		})
	}
}

// outlives reports whether pid is still alive after a grace period: a
// process verify killed with SIGKILL dies, but on a loaded machine the
// kernel may still be tearing it down as Run returns, while one nobody
// killed (a sleep 600) outlives any grace.
func outlives(pid int) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !running(pid) {
			return false
		}
	}
	return true
}

// running reports whether pid is a live process (a zombie is not: it only
// waits for a parent to read its status).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestFailedStartLeavesNothing: a server command that exits at once with
// an error, leaving a child in its group, is reported as a failed start,
// and the child is stopped too.
func TestFailedStartLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := serverPlan(t, "  command: [\"sh\", \"-c\", \"sleep 600 & echo $! > \\\"$PIDDIR/child\\\"; echo cannot open the store >&2; exit 3\", \"{addr}\"]\n  ready: GET /healthz\n")
	_, err := Run(context.Background(), Options{Contract: payouts(t), Plan: p, Env: append(os.Environ(), "PIDDIR="+dir)})
	if err == nil || !strings.Contains(err.Error(), "cannot open the store") {
		t.Fatalf("err = %v, want the failed start with the server's output", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "child"))
	if err != nil {
		t.Fatal(err)
	}
	if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); outlives(pid) {
		t.Errorf("the command's child (pid %d) still runs after the failed start", pid)
	}
}
