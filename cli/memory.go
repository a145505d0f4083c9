package cli

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// memoryProfile is a command's garbage-collector policy, declared beside the
// command and applied once where it starts (runCommand), then restored, so
// nothing leaks into the next command of an in-process test or into serve.
// A GOGC set by the user wins over GCPercent, a GOMEMLIMIT over the soft
// limit, each on its own, for every command alike.
type memoryProfile struct {
	// GCPercent, when not 0, replaces the collector's pace (GOGC).
	GCPercent int
	// SoftLimit is the floor of the soft memory limit; Margin raises the
	// limit to that multiple of the live heap after each collection.
	SoftLimit int64
	Margin    float64
	// Loading, when set, is the policy until the command has its inputs
	// in memory and says so (inputsLoaded); the profile itself applies
	// from there on.
	Loading *memoryProfile
}

// The profiles commands declare. Each figure was measured against the
// 200 MB of RSS every command is held to (internal/hostiletest).
var (
	// defaultMemory is every command's unless it declares another.
	// Loading a contract at the 50,000-endpoint limit holds about 120 MB
	// at its peak, and the collector, left to double the heap, took build
	// and diff past 200 MB; near this limit it collects sooner instead.
	defaultMemory = memoryProfile{SoftLimit: 160 << 20, Margin: 1.25}

	// specMemory trades memory for time while a large OpenAPI spec is in
	// memory (openapi, check --openapi, build --openapi): the collector
	// runs a quarter as often, under a soft limit of 150 MB or twice the
	// live heap, whichever is more (kin-openapi alone holds about 24 bytes
	// per byte of spec). Parsing a large spec at the default pace took
	// twice the CPU (4.2 s against 2.2 s to refuse a 90,000-component
	// spec). 150 MB, not more: with a contract at the endpoint limit
	// beside its spec, 170 MB of heap put `openapi` at 201 MB of RSS.
	specMemory = memoryProfile{GCPercent: 400, SoftLimit: 150 << 20, Margin: 2}

	// copyMemory: the linter keeps a few MB live (a file, its mask, one
	// scratch per worker) but allocates per file; collecting less often
	// buys ~10% on a large tree. The soft limit keeps the run near a fixed
	// footprint whatever the corpus size: a run holds 20 to 40 MB live;
	// at 96 MiB the heap grew to the limit on large trees only, so peak
	// memory rose with the corpus (37 MB on 10 MB of Markdown, 111 MB on
	// 400 MB). At 56 MiB it stays at about 70 MB from 100 MB up, for the
	// same CPU time; at 40 MiB the collector starts to cost time (+25%).
	// The contract loads under defaultMemory first: under copy's tight
	// limit a contract at the endpoint limit took 2.7 s of CPU to load
	// instead of 1.0 s.
	copyMemory = memoryProfile{GCPercent: 400, SoftLimit: 56 << 20, Margin: 1.25, Loading: &defaultMemory}

	// learnedCopyMemory is copyMemory with the learned reader on: the
	// reader keeps its model, its index and a larger anchor automaton
	// live, which came out of the collector's headroom under copy's
	// floor, so a run collected far more often than without it. A floor
	// higher by about what the reader holds gives the headroom back
	// (copylint/README, "A cheaper reader, again": collections and peak
	// RSS measured both ways).
	learnedCopyMemory = memoryProfile{GCPercent: 400, SoftLimit: 64 << 20, Margin: 1.25, Loading: &defaultMemory}
)

// copyMemoryFor is copy's profile with the learned reader on or off.
func copyMemoryFor(learned bool) memoryProfile {
	if learned {
		return learnedCopyMemory
	}
	return copyMemory
}

// Settings are process-wide: commands in one process (tests, serve) run
// one at a time, each restoring what it found.
//
// Soft limits below what a run must hold leave the collector running
// without pause (a fixed 400 MB limit turned a 3.5 s check of a 14 MB spec
// into 8.5 s), so a limit is only a floor: after every collection a
// watcher raises it to a margin above the live heap when that is higher.
// The watcher is a finalizer loop that belongs to one application of a
// profile and ends when the profile is restored.
var softLimit struct {
	mu     sync.Mutex
	active *memoryProfile // the profile the watcher serves; nil when none
}

// memoryRun is one command's use of its profile: its loading phase, then
// the profile, then what was there before.
type memoryRun struct {
	profile memoryProfile
	getenv  func(string) string
	mu      sync.Mutex
	restore func()
	loading bool
}

type memoryRunKey struct{}

// start applies the profile, or its loading phase when it has one.
func (p memoryProfile) start(ctx context.Context, getenv func(string) string) (context.Context, *memoryRun) {
	m := &memoryRun{profile: p, getenv: getenv}
	if p.Loading != nil {
		m.loading = true
		m.restore = p.Loading.apply(getenv)
	} else {
		m.restore = p.apply(getenv)
	}
	return context.WithValue(ctx, memoryRunKey{}, m), m
}

// inputsLoaded ends the loading phase of the command's memory profile, if
// it has one: the command has its inputs in memory, and the work that
// the profile was measured on starts.
func inputsLoaded(ctx context.Context) {
	m, ok := ctx.Value(memoryRunKey{}).(*memoryRun)
	if !ok {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.loading {
		m.loading = false
		m.restore()
		m.restore = m.profile.apply(m.getenv)
	}
}

// end puts back the settings the command found.
func (m *memoryRun) end() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.restore()
	m.restore = func() {}
}

// apply sets the profile (not its loading phase) and returns the function
// that puts back what it changed. getenv reads the user's GOGC and
// GOMEMLIMIT.
func (p memoryProfile) apply(getenv func(string) string) (restore func()) {
	var undo []func()
	if p.GCPercent != 0 && getenv("GOGC") == "" {
		old := debug.SetGCPercent(p.GCPercent)
		undo = append(undo, func() { debug.SetGCPercent(old) })
	}
	if p.SoftLimit != 0 && getenv("GOMEMLIMIT") == "" {
		softLimit.mu.Lock()
		prev := softLimit.active
		old := debug.SetMemoryLimit(-1)
		active := &p
		softLimit.active = active
		debug.SetMemoryLimit(max(p.SoftLimit, p.liveMargin()))
		softLimit.mu.Unlock()
		watchCollections(active)
		undo = append(undo, func() {
			softLimit.mu.Lock()
			defer softLimit.mu.Unlock()
			softLimit.active = nil
			debug.SetMemoryLimit(old)
			if prev != nil {
				// An outer profile (nested runs) gets a watcher of its own
				// again: a fresh token, so no earlier loop wakes up.
				outer := *prev
				softLimit.active = &outer
				watchCollections(&outer)
			}
		})
	}
	return func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
}

// liveMargin is Margin times the live heap of the last collection.
func (p memoryProfile) liveMargin() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(float64(s[0].Value.Uint64()) * p.Margin)
}

// watchCollections raises the limit after every collection while p is
// the active profile: the finalizer of an object nobody holds runs after
// the collection that frees it, and re-arms itself. Once p is no longer
// active the loop ends, leaving the limit alone.
func watchCollections(p *memoryProfile) {
	type sentinel struct{ _ [32]byte }
	var arm func()
	arm = func() {
		runtime.SetFinalizer(new(sentinel), func(*sentinel) {
			softLimit.mu.Lock()
			defer softLimit.mu.Unlock()
			if softLimit.active != p {
				return
			}
			debug.SetMemoryLimit(max(p.SoftLimit, p.liveMargin()))
			arm()
		})
	}
	arm()
}
