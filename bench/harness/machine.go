package main

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Machine is what the figures were measured on.
type Machine struct {
	CPU      string
	Cores    int
	MemBytes int64
	Kernel   string
	Go       string
}

func readMachine() Machine {
	m := Machine{CPU: "unknown", Cores: runtime.NumCPU(), Kernel: "unknown", Go: runtime.Version()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		m.MemBytes = memTotal(string(data))
	}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(data))
	}
	return m
}

// memTotal reads MemTotal (kB) from /proc/meminfo text.
func memTotal(meminfo string) int64 {
	for _, line := range strings.Split(meminfo, "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}

// loadAvg is the 1-minute load average, or -1 when unknown. On a shared
// machine it tells how much other work competed with the measurement.
func loadAvg() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	return parseLoadAvg(string(data))
}

func parseLoadAvg(s string) float64 {
	f := strings.Fields(s)
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}
