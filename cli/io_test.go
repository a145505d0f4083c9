package cli

import (
	"bytes"
	"strings"
)

// testIO is the IO every in-process test runs a command with: empty stdin,
// stdout and stderr captured, no terminal, and an environment of exactly
// the KEY=VALUE pairs given (NO_COLOR, CI and the user's GOGC do not leak
// in from the machine running the tests).
func testIO(env ...string) (sys *IO, stdout, stderr *bytes.Buffer) {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
	sys = &IO{In: strings.NewReader(""), Out: stdout, Err: stderr, Getenv: func(k string) string { return vars[k] }}
	return sys, stdout, stderr
}
