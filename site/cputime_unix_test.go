//go:build unix

package site

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used (user + system), so a
// benchmark can report its cost apart from other load on a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
