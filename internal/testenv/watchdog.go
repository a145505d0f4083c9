package testenv

import (
	"fmt"
	"time"
)

// HangCPU is the CPU time after which Watchdog calls an input a hang:
// far beyond what any fuzz input needs (milliseconds, a few seconds for a
// megabyte under -race), yet reached in a minute by a loop that never ends.
const HangCPU = 60 * time.Second

// Watchdog panics with what's message when this process has spent more
// than limit of CPU time since the call, until the returned stop is
// called: a fuzz input that loops forever is a finding, with its input in
// the message. It bounds CPU time, not wall time, so a machine saturated
// by other work never trips it; a hang that burns no CPU (a deadlock) is
// left to go test's -timeout. Where CPU time is not measured it does
// nothing.
func Watchdog(limit time.Duration, what func() string) (stop func()) {
	done := make(chan struct{})
	if !CPUTimeMeasured {
		return func() {}
	}
	start := CPUTime()
	go func() {
		tick := time.NewTicker(100 * time.Millisecond) // how often to look, not a bound
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if used := CPUTime() - start; used > limit {
					panic(fmt.Sprintf("%s (%v of CPU time, bound %v)", what(), used.Round(time.Millisecond), limit))
				}
			}
		}
	}()
	return func() { close(done) }
}
