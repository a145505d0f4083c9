package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestSoftLimitFollowsLiveHeap holds the soft memory limit to a floor
// that is raised above the live heap after a collection: a limit left
// below what a run must hold keeps the collector running without pause.
func TestSoftLimitFollowsLiveHeap(t *testing.T) {
	noEnv := &IO{Getenv: func(string) string { return "" }}
	t.Cleanup(func() {
		softLimit.floor.Store(math.MaxInt64)
		debug.SetMemoryLimit(math.MaxInt64)
	})

	setSoftLimit(noEnv, 8<<20, 2)
	if got := debug.SetMemoryLimit(-1); got < 8<<20 {
		t.Fatalf("limit %d MiB, want at least the 8 MiB floor", got>>20)
	}
	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	// A hang guard, not a bound: the watcher raises the limit within a
	// few of its ticks on an idle machine.
	deadline := time.Now().Add(60 * time.Second)
	for debug.SetMemoryLimit(-1) < 2*64<<20 {
		if time.Now().After(deadline) {
			t.Fatalf("limit %d MiB with 64 MiB live, want at least twice that", debug.SetMemoryLimit(-1)>>20)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(live)

	// A GOMEMLIMIT of the user's wins: nothing is changed. (The floor
	// goes up first, so the watcher cannot lower the limit meanwhile.)
	softLimit.floor.Store(math.MaxInt64)
	debug.SetMemoryLimit(math.MaxInt64)
	setSoftLimit(&IO{Getenv: func(k string) string {
		if k == "GOMEMLIMIT" {
			return "1GiB"
		}
		return ""
	}}, 8<<20, 2)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit set to %d MiB despite GOMEMLIMIT", got>>20)
	}
}
