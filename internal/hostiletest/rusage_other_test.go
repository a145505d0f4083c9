//go:build !linux

package hostiletest

import (
	"os"
	"time"
)

// usage: only Linux's units for ru_maxrss are relied on; elsewhere the
// bounds are not measured.
func usage(ps *os.ProcessState) (time.Duration, int64, bool) { return 0, 0, false }

// runningCPU is not measured here: the hang guard leaves hangs to go
// test's -timeout.
func runningCPU(pid int) (time.Duration, bool) { return 0, false }
