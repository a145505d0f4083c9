package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/retryspec/retryspec/internal/testenv"
)

// TestFreshClone runs testdata/script/*.txtar: a clone of this checkout in
// a temporary folder with nothing beside it, as a new user would have it
// (issue 28). The scripts get $REPO, the go and git on PATH, and the Go
// caches of this machine, so the clone builds offline.
func TestFreshClone(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED: clones the repository and builds the site; not with -short")
	}
	testenv.LookPath(t, "git")
	testenv.LookPath(t, "go")
	root := testenv.RepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skipf("SKIPPED: %s is not a git checkout: %v", root, err)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", root)
			for _, name := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GOTOOLCHAIN"} {
				env.Setenv(name, goEnv(t, name))
			}
			// The machine's GOFLAGS may turn VCS stamping off; the
			// version check needs it on.
			env.Setenv("GOFLAGS", "-buildvcs=true")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"readme-command":  readmeCommand,
			"stdout-has-head": stdoutHasHead,
		},
	})
}

// goEnv is `go env NAME` of the machine running the test.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// readmeCommand N runs the README's Nth command (the Nth line of its first
// sh block, comment dropped) in the script's folder. Only go commands run.
func readmeCommand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: readme-command N")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		ts.Fatalf("readme-command: %q is not a line number", args[0])
	}
	argv, err := readmeLine(ts.ReadFile("README.md"), n)
	if err != nil {
		ts.Fatalf("README.md: %v", err)
	}
	if argv[0] != "go" {
		ts.Fatalf("README command %d is %q; only go commands run here", n, argv)
	}
	ts.Logf("README command %d: %s", n, strings.Join(argv, " "))
	ts.Check(ts.Exec(argv[0], argv[1:]...))
}

// readmeLine is line n of the README's first sh block, its comment
// dropped, as arguments.
func readmeLine(readme string, n int) ([]string, error) {
	_, block, ok := strings.Cut(readme, "```sh\n")
	if !ok {
		return nil, errNoBlock
	}
	block, _, _ = strings.Cut(block, "```")
	lines := strings.Split(strings.TrimRight(block, "\n"), "\n")
	if n > len(lines) {
		return nil, errShortBlock
	}
	line, _, _ := strings.Cut(lines[n-1], "#")
	argv := strings.Fields(line)
	if len(argv) == 0 {
		return nil, errShortBlock
	}
	return argv, nil
}

// stdoutHasHead fails unless the last command's stdout names the commit
// the script's folder is at (its first 12 hex digits).
func stdoutHasHead(ts *testscript.TestScript, neg bool, args []string) {
	out, err := exec.Command("git", "-C", ts.MkAbs("."), "rev-parse", "HEAD").Output()
	if err != nil {
		ts.Fatalf("git rev-parse HEAD: %v", err)
	}
	head := strings.TrimSpace(string(out))[:12]
	has := strings.Contains(ts.ReadFile("stdout"), head)
	switch {
	case has && neg:
		ts.Fatalf("stdout names the commit %s", head)
	case !has && !neg:
		ts.Fatalf("stdout does not name the commit %s", head)
	}
}

var (
	errNoBlock    = errors.New("no sh block")
	errShortBlock = errors.New("the first sh block has no such command")
)
