package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestRegenerates: the generator writes learned_model.json byte for byte
// as committed (training is deterministic).
func TestRegenerates(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.json")
	if err := run(filepath.Join("..", ".."), out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "copylint", "learned_model.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("regenerated model differs from copylint/learned_model.json (%d vs %d bytes): run go generate ./copylint", len(got), len(want))
	}
}

func TestBadRoot(t *testing.T) {
	if err := run(t.TempDir(), filepath.Join(t.TempDir(), "m.json")); err == nil {
		t.Error("a root without the contract and the sets trains")
	}
}
