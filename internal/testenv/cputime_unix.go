//go:build unix

package testenv

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time this process has used so far (user + system,
// all threads, GC included). Tests bound this, never wall time: other load
// on a shared machine stretches wall time but hardly the CPU time a piece
// of work needs. Tests in the package must not run in parallel with the
// measured work, or their CPU time is counted too.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// CPUTimeMeasured reports whether CPUTime measures anything here.
const CPUTimeMeasured = true
