package cli

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/retryspec/retryspec/internal/testenv"
)

// gcPercent reads the collector's pace without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestSoftLimitFollowsLiveHeap holds the soft memory limit to a floor
// that is raised above the live heap after a collection: a limit left
// below what a run must hold keeps the collector running without pause.
func TestSoftLimitFollowsLiveHeap(t *testing.T) {
	sys, _, _ := testIO()
	before := debug.SetMemoryLimit(-1)
	restore := memoryProfile{SoftLimit: 8 << 20, Margin: 2}.apply(sys.Getenv)
	defer restore()
	if got := debug.SetMemoryLimit(-1); got < 8<<20 {
		t.Fatalf("limit %d MiB, want at least the 8 MiB floor", got>>20)
	}
	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	// Counted work, not a clock: the watcher runs after each collection
	// and raises the limit after the first one or two; a thousand
	// collections, each followed by a pause that lets the finalizer
	// goroutine run, leave a loaded machine all the room it needs.
	for gcs := 0; debug.SetMemoryLimit(-1) < 2*64<<20; gcs++ {
		if gcs == 1000 {
			t.Fatalf("limit %d MiB with 64 MiB live after %d collections, want at least twice that", debug.SetMemoryLimit(-1)>>20, gcs)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(live)

	// Restored, the limit is what it was, and the watcher is gone: later
	// collections leave it alone.
	restore()
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit %d after restore, want %d as before", got, before)
	}
}

// TestProfileHonoursTheEnvironment: GOGC keeps the pace the user set,
// GOMEMLIMIT the limit, each on its own, for every profile.
func TestProfileHonoursTheEnvironment(t *testing.T) {
	pace, limit := gcPercent(), debug.SetMemoryLimit(-1)
	for _, env := range [][]string{{"GOGC=50"}, {"GOMEMLIMIT=1GiB"}, {"GOGC=50", "GOMEMLIMIT=1GiB"}} {
		sys, _, _ := testIO(env...)
		for _, p := range []memoryProfile{defaultMemory, specMemory, copyMemory, learnedCopyMemory} {
			restore := p.apply(sys.Getenv)
			gotPace, gotLimit := gcPercent(), debug.SetMemoryLimit(-1)
			restore()
			if sys.Getenv("GOGC") != "" && gotPace != pace {
				t.Errorf("%v: %+v set the pace to %d", env, p, gotPace)
			}
			if sys.Getenv("GOGC") == "" && p.GCPercent != 0 && gotPace != p.GCPercent {
				t.Errorf("%v: %+v left the pace at %d, want %d", env, p, gotPace, p.GCPercent)
			}
			if sys.Getenv("GOMEMLIMIT") != "" && gotLimit != limit {
				t.Errorf("%v: %+v set the limit to %d", env, p, gotLimit)
			}
			if sys.Getenv("GOMEMLIMIT") == "" && gotLimit < p.SoftLimit {
				t.Errorf("%v: %+v left the limit at %d, want at least %d", env, p, gotLimit, p.SoftLimit)
			}
		}
	}
}

// TestCommandsLeaveTheRuntimeAsFound: every command that declares a
// profile of its own (copy; openapi, check --openapi and build --openapi
// with a spec) and one on the default leave the collector's pace and the
// memory limit as they found them, also after later collections (no
// watcher outlives its command).
func TestCommandsLeaveTheRuntimeAsFound(t *testing.T) {
	root := testenv.RepoRoot(t)
	contractPath := filepath.Join(root, "openapi", "testdata", "contract.yaml")
	spec := filepath.Join(root, "openapi", "testdata", "small.yaml")
	dir := t.TempDir()
	doc := filepath.Join(dir, "post.md")
	if err := os.WriteFile(doc, []byte("We offer exactly-once delivery.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Settings a test runner might have: neither the runtime's defaults
	// nor any profile's.
	defer debug.SetGCPercent(debug.SetGCPercent(137))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(3 << 30))
	for _, args := range [][]string{
		{"copy", doc},
		{"openapi", "-c", contractPath, "--spec", spec, "--overlay", filepath.Join(dir, "o.yaml")},
		{"check", "-c", contractPath, "--openapi", spec},
		{"build", "-c", contractPath, "--openapi", spec, "--out", filepath.Join(dir, "site"), "--markdown-only"},
		{"check", "-c", contractPath},
	} {
		code, _, errs := runCLI(t, args...)
		if code == ExitInput {
			t.Fatalf("%v: exit 2: %s", args, errs)
		}
		for range 2 {
			runtime.GC()
			time.Sleep(5 * time.Millisecond) // let a finalizer run
		}
		if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 137 || l != 3<<30 {
			t.Errorf("after %v: GC percent %d, memory limit %d; want 137 and %d as before", args, p, l, int64(3<<30))
		}
	}
}

// TestLoadingPhase: copy loads its inputs under defaultMemory and lints
// under its own profile from inputsLoaded on; the end restores both.
func TestLoadingPhase(t *testing.T) {
	sys, _, _ := testIO()
	defer debug.SetGCPercent(debug.SetGCPercent(137))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(3 << 30))
	ctx, m := copyMemory.start(context.Background(), sys.Getenv)
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 137 || l < defaultMemory.SoftLimit || l == 3<<30 {
		t.Errorf("loading: GC percent %d, limit %d MiB; want 137 (untouched) and defaultMemory's floor", p, l>>20)
	}
	inputsLoaded(ctx)
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != copyMemory.GCPercent || l < copyMemory.SoftLimit || l >= defaultMemory.SoftLimit {
		t.Errorf("linting: GC percent %d, limit %d MiB; want %d and copy's floor", p, l>>20, copyMemory.GCPercent)
	}
	inputsLoaded(ctx) // a second call changes nothing
	m.end()
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 137 || l != 3<<30 {
		t.Errorf("after: GC percent %d, limit %d; want 137 and %d", p, l, int64(3<<30))
	}
	inputsLoaded(context.Background()) // no profile: nothing to do
}

// TestCopyMemoryFor: with the learned reader on, copy lints under a
// higher floor than without it (the reader's own live memory comes on
// top of the rules'), with the same pace and loading phase.
func TestCopyMemoryFor(t *testing.T) {
	off, on := copyMemoryFor(false), copyMemoryFor(true)
	if off != copyMemory {
		t.Errorf("reader off: %+v, want copyMemory", off)
	}
	if on.SoftLimit <= off.SoftLimit || on.SoftLimit >= defaultMemory.SoftLimit {
		t.Errorf("reader on: floor %d MiB, want above copy's %d MiB and below the default's %d MiB", on.SoftLimit>>20, off.SoftLimit>>20, defaultMemory.SoftLimit>>20)
	}
	if on.GCPercent != off.GCPercent || on.Margin != off.Margin || on.Loading != off.Loading {
		t.Errorf("reader on: %+v differs from copyMemory beyond its floor", on)
	}
}
