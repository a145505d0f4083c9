package main

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the spawner, as the harness does.
func TestMain(m *testing.M) {
	if os.Getenv(spawnerEnv) != "" {
		if err := serveSpawner(os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var ballast []byte

// A child started by the spawner reports its own peak RSS, not the
// harness's: the reason the spawner exists.
func TestSpawnerIsolatesPeakRSS(t *testing.T) {
	sp, err := startSpawner()
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	ballast = make([]byte, 300<<20)
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1 // touch every page: resident
	}
	defer func() { ballast = nil }()

	direct, _, err := runProcess(context.Background(), Tool{Argv: []string{"/bin/true"}})
	if err != nil {
		t.Fatal(err)
	}
	spawned, _, err := sp.exec(context.Background(), Tool{Argv: []string{"/bin/true"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("/bin/true peak RSS: started directly %.1f MB, by the spawner %.1f MB", mb(direct.MaxRSS), mb(spawned.MaxRSS))
	if spawned.MaxRSS > 50<<20 {
		t.Errorf("spawned /bin/true reports %.1f MB: the harness's memory leaks into the figure", mb(spawned.MaxRSS))
	}
}

func TestSpawnerTimeout(t *testing.T) {
	sp, err := startSpawner()
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	r := &Runner{Timeout: 200 * time.Millisecond, exec: sp.exec}
	res := r.Measure([]Tool{{Name: "sleep", Argv: []string{"/bin/sleep", "3600"}}}, 0, 1) // far past the timeout on any machine
	if res[0].Status != StatusFailed || res[0].Note != "timed out after 200ms" {
		t.Errorf("status %q note %q, want failed: timed out", res[0].Status, res[0].Note)
	}
	// The spawner survives a timeout and runs the next tool.
	s, _, err := sp.exec(context.Background(), Tool{Argv: []string{"/bin/sh", "-c", "exit 1"}})
	if err != nil || s.Exit != 1 {
		t.Errorf("after a timeout: %+v, %v", s, err)
	}
}
