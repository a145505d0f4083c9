//go:build !unix

package client

import "os/exec"

// ownGroup: without process groups only the program itself can be killed.
func ownGroup(cmd *exec.Cmd) (killTree func()) {
	return func() {
		if p := cmd.Process; p != nil {
			_ = p.Kill()
		}
	}
}
