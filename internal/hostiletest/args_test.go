package hostiletest

import (
	"strings"
	"testing"
)

// TestCommandsWithoutFiles: explain, schema and version take no input file;
// explain is given hostile rule names instead (a path, markup, shell, a
// 100 KB argument), and must refuse each in one short line.
func TestCommandsWithoutFiles(t *testing.T) {
	sb := newSandbox(t)
	for _, arg := range []string{"../../etc/passwd", "<script>alert(1)</script>", "$(touch PWNED)", "retry/\u202eno-jitter", "\x1b[2J\x1b]0;owned\x07", strings.Repeat("x/", 50_000), "-", "--", "retry/no-jitter/../../etc"} {
		before := snapshot(t, sb.root)
		r := run(t, sb, 0, "explain", arg)
		what := "explain " + arg[:min(len(arg), 40)]
		checkNoCrash(t, what, r)
		checkBounds(t, what, r)
		checkContained(t, what, sb, before, r)
		if arg == "--" || arg == "-" {
			continue // cobra's own argument handling; exit 2 or a usage line
		}
		if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") > 2 || len(r.stderr) > 2000 {
			t.Errorf("%s: exit %d, want 2 with a short message; got %d bytes:\n%.300s", what, r.code, len(r.stderr), r.stderr)
		}
		// A terminal is the reader here: no control character may reach it.
		if strings.ContainsAny(r.stdout+r.stderr, "\x1b\x00\r\u202e") {
			t.Errorf("%s: printed a control character: %q", what, r.stderr)
		}
	}
	for _, args := range [][]string{{"schema"}, {"version"}, {"explain", "--list"}} {
		r := run(t, sb, 0, args...)
		checkNoCrash(t, args[0], r)
		checkBounds(t, args[0], r)
		if r.code != 0 {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
}
