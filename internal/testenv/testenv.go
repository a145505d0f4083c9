// Package testenv locates the repository and the shared test data, and
// decides what a test does when a runtime it needs is missing: on CI
// (CI=true) it fails, on a developer's machine it skips loudly.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// OnCI reports whether the tests run on CI, where nothing may be skipped.
func OnCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "0" && v != "false"
}

// RepoRoot returns the folder holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("testenv: cannot locate source")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// SharedData returns ../shared/data beside the repository, the real specs
// and corpora the tests read in place (never copied into the project).
func SharedData(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "..", "shared", "data")
	if _, err := os.Stat(dir); err != nil {
		Missing(t, "shared test data at "+dir)
	}
	return dir
}

// Missing fails the test on CI and skips it loudly elsewhere.
func Missing(t testing.TB, what string) {
	t.Helper()
	if OnCI() {
		t.Fatalf("REQUIRED ON CI: %s is missing (.ci/run must install it)", what)
	}
	t.Skipf("SKIPPED: %s is missing; install it to run this test (CI fails instead of skipping)", what)
}

// LookPath returns the path of a program the test needs, or calls Missing.
func LookPath(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "program "+name)
	}
	return p
}

// UnderRace reports whether the test binary runs with the race detector:
// a test may then do the part of its work where the detector has
// something to watch, and leave the rest to make unit's run without it
// (nonRaceTests in the Makefile).
func UnderRace() bool { return raceEnabled }

// SkipUnderRace skips a test of one goroutine's computation when the race
// detector is on: the detector finds nothing there and multiplies the run's
// cost several times over. `make unit` runs each such test again without
// -race on a line of its own (nonRaceTests in the Makefile), so it is never
// left out of `make test`; why says what the test computes.
func SkipUnderRace(t testing.TB, why string) {
	t.Helper()
	if raceEnabled {
		t.Skipf("%s: one goroutine's work, run without -race (make unit does)", why)
	}
}
