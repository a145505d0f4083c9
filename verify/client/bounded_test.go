//go:build linux

package client_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/verify/client"
)

// gone reports whether pid has exited (gone, or a zombie no one reaped).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}

// TestBoundedPrograms: a program that hangs, never calls the server, or
// calls another path fails with what it did and its last output lines,
// never passes; a hung one is killed with every process it started.
func TestBoundedPrograms(t *testing.T) {
	sh := testenv.LookPath(t, "sh")
	c := scaled(t)
	// A short deadline keeps the hang bound (max_elapsed plus the margin)
	// small; the hung program never ends, so the bound always fires.
	c.Retry.MaxElapsed = contract.Dur(2 * time.Second)
	for _, tt := range []struct {
		name, script string
		// margin is how long past max_elapsed the run may go: short for
		// the program that never ends, the default for the others.
		margin time.Duration
		want   []string
	}{
		{"hangs", "sleep 3600 & echo $! > child.pid; echo waiting for a signal that never comes; wait", time.Second,
			[]string{"was still running", "killed with every process it started", "the server saw 0 attempts", "waiting for a signal that never comes"}},
		{"never calls", "echo config not found >&2; exit 0", 0,
			[]string{"never called the fault server (it exited 0)", "config not found"}},
		{"calls another path", `python3 -c 'import os, urllib.request as u; u.urlopen(u.Request(os.environ["RETRYSPEC_BASE_URL"] + "/v2/elsewhere", data=b"{}", method="POST"))'`, 0,
			[]string{"attempt 1 was POST /v2/elsewhere, not POST /v1/transfers", "HTTPError"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if strings.HasPrefix(tt.script, "python3") {
				testenv.LookPath(t, "python3")
			}
			dir := t.TempDir()
			res, err := client.Run(t.Context(), client.Options{
				Contract: c, Command: []string{sh, "-c", tt.script}, Dir: dir, Env: os.Environ(),
				Only: []string{"client/max-attempts"}, Runs: 1, Margin: tt.margin,
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range res.Gates {
				if g.Result != "failed" {
					t.Errorf("%s %s, want failed: %s", g.Gate, g.Result, g.Reason)
				}
				for _, w := range tt.want {
					if !strings.Contains(g.Reason, w) {
						t.Errorf("%s: reason lacks %q:\n%s", g.Gate, w, g.Reason)
					}
				}
			}
			if len(res.Findings) != 1 || !strings.Contains(res.Findings[0].Fix, "call $RETRYSPEC_OPERATION once") {
				t.Errorf("findings %+v, want one whose fix says how to make the program callable", res.Findings)
			}
			if len(res.Causes) != 1 || !strings.Contains(res.Causes[0], "no run could be judged") {
				t.Errorf("causes %q, want the one shared cause", res.Causes)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "child.pid")); err == nil {
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				// The kill is synchronous: by the time Run returns the
				// group got SIGKILL; the kernel may take a moment to reap.
				for i := 0; !gone(pid); i++ {
					if i == 500 {
						t.Fatalf("the hung program's child %d still runs after the run ended", pid)
					}
					time.Sleep(10 * time.Millisecond) // how often to look
				}
			}
		})
	}
}
