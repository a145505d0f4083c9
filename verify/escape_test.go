//go:build unix

package verify

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// TestServerOutsideTheGroupIsRefused: a server that leaves the process
// group verify starts (setsid) is refused by name, whether its launcher
// exits at once or stays in the foreground; never judged.
func TestServerOutsideTheGroupIsRefused(t *testing.T) {
	bin := referenceServer(t)
	setsid := testenv.LookPath(t, "setsid")
	c, file := shortLockContract(t)
	for _, tc := range []struct {
		name, launcher string
		atStart        bool
	}{
		{"launcher exits", `"$SETSID" -f sh -c 'echo $$ > "$PIDFILE"; exec "$BIN" --addr "$1" --store "$STORE" --contract "$CONTRACT" --jobs-every 0' sh "$0"`, true},
		{"launcher stays", `"$SETSID" -f sh -c 'echo $$ > "$PIDFILE"; exec "$BIN" --addr "$1" --store "$STORE" --contract "$CONTRACT" --jobs-every 0' sh "$0"; exec sleep 600`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pidfile := filepath.Join(dir, "pid")
			t.Cleanup(func() { // the escaped server is ours to stop, not verify's
				if b, err := os.ReadFile(pidfile); err == nil {
					if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			})
			envv := append(os.Environ(), "SETSID="+setsid, "PIDFILE="+pidfile, "BIN="+bin, "STORE=sqlite:"+filepath.Join(dir, "p.db"), "CONTRACT="+file)
			p := referencePlan(t, c, []string{"sh", "-c", tc.launcher, "{addr}"})
			res, err := Run(context.Background(), Options{Contract: c, Plan: p, Env: envv, Only: []string{GateMissingKey}})
			if tc.atStart {
				if err == nil || !strings.Contains(err.Error(), "runs outside the process verify started") {
					t.Fatalf("err = %v, want the escape refused at start", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Aborted == nil || !strings.Contains(res.Aborted.Error(), "runs outside that group") {
				t.Fatalf("aborted = %v, want the escape named", res.Aborted)
			}
		})
	}
}
