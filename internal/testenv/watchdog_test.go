package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestWatchdogFiresOnCPU: a loop that never ends trips the watchdog once
// it has burnt the CPU time given (here 200 ms, in a child process so the
// panic does not end this one); a stopped watchdog never fires.
func TestWatchdogFiresOnCPU(t *testing.T) {
	if !CPUTimeMeasured {
		t.Skip("CPU time is not measured on this platform")
	}
	if os.Getenv("WATCHDOG_CHILD") == "1" {
		Watchdog(200*time.Millisecond, func() string { return "spinning" })
		for x := 0; ; x++ {
			_ = x * x
		}
	}
	stop := Watchdog(time.Nanosecond, func() string { return "stopped" })
	stop()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestWatchdogFiresOnCPU$")
	cmd.Env = append(os.Environ(), "WATCHDOG_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "panic: spinning (") {
		t.Errorf("the spinning child was not stopped by the watchdog: %v\n%s", err, out)
	}
}
