package hostiletest

import (
	"os"
	"syscall"
	"time"
)

// usage is what the kernel accounted to one finished child process
// (wait4's rusage): CPU time and peak resident memory.
func usage(ps *os.ProcessState) (cpu time.Duration, maxRSS int64, ok bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, false
	}
	cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return cpu, ru.Maxrss * 1024, true // Linux reports ru_maxrss in KiB
}
