//go:build unix

package client

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the program as the leader of a new process group and
// returns what kills that whole group: the program and whatever it started
// (an npm script's node, a shell's children).
func ownGroup(cmd *exec.Cmd) (killTree func()) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return func() {
		if p := cmd.Process; p != nil {
			_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
		}
	}
}
