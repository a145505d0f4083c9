//go:build unix

package verify

import (
	"os/exec"
	"syscall"
)

// A server runs in its own process group so the crash gate kills it with
// everything it started (a `go run` wrapper and its child, a shell script).
func setGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

const canKillGroups = true
