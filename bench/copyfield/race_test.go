//go:build race

package copyfield

// raceEnabled: the tests run under the race detector.
const raceEnabled = true
