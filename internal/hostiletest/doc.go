// Package hostiletest holds no code, only tests: it builds the retryspec
// binary once and runs every command on every file of the hostile-input
// corpus (testdata/hostile at the repository root, plus huge inputs made at
// test time) as a subprocess, with CPU-time, memory and file-system bounds.
// It imports nothing of ours outside internal/testenv: it tests the binary
// from the outside, as CI runs it on a pull request.
package hostiletest
