package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// defaultMemoryLimit is the soft heap limit of a run. Loading a contract at
// the 50,000-endpoint limit holds about 120 MB at its peak, and the
// collector, left to double the heap, took build and diff past the 200 MB
// every command is held to (internal/hostiletest); near this limit it
// collects sooner instead.
const defaultMemoryLimit = 160 << 20

// Soft limits below what a run must hold leave the collector running
// without pause (a fixed 400 MB limit turned a 3.5 s check of a 14 MB spec
// into 8.5 s), so a limit is only a floor: after every collection it is
// raised to a margin above the live heap when that is higher.
var softLimit struct {
	floor  atomic.Int64
	margin atomic.Uint64 // float64 bits: the limit as a multiple of the live heap
	once   sync.Once
}

// setSoftLimit sets the soft memory limit to floor, or to margin times the
// live heap after a collection when that is more. A GOMEMLIMIT set by the
// user wins.
func setSoftLimit(sys *IO, floor int64, margin float64) {
	if sys.Getenv("GOMEMLIMIT") != "" {
		return
	}
	softLimit.floor.Store(floor)
	softLimit.margin.Store(math.Float64bits(margin))
	debug.SetMemoryLimit(max(floor, liveMargin()))
	softLimit.once.Do(watchCollections)
}

func liveMargin() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(float64(s[0].Value.Uint64()) * math.Float64frombits(softLimit.margin.Load()))
}

// watchCollections runs after every collection, through the finalizer of
// an object nobody holds, which each run re-arms.
func watchCollections() {
	type sentinel struct{ _ [32]byte }
	var arm func()
	arm = func() {
		runtime.SetFinalizer(new(sentinel), func(*sentinel) {
			debug.SetMemoryLimit(max(softLimit.floor.Load(), liveMargin()))
			arm()
		})
	}
	arm()
}
