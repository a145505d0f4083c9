package hostiletest

import (
	"os"
	"strconv"
	"strings"
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

// runningCPU is the CPU time a running process has used so far (user +
// system, from /proc/PID/stat, in the kernel's clock ticks of 1/100 s),
// so the hang guard can bound CPU time instead of wall time.
func runningCPU(pid int) (time.Duration, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces; fields count from after it.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}
