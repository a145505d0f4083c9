package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// TestFreshCloneStaysClean (issue 28): the repository's committed tree,
// cloned into a temporary folder with nothing beside it (no ../shared),
// runs README command 1 and is still clean: `git status --porcelain`
// prints nothing (the build writes only inside its ignored output
// folder), and a binary built there after it reports its commit, not a
// dirty tree. It tests what is committed: uncommitted edits in this
// checkout are not in the clone.
func TestFreshCloneStaysClean(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED: clones the repository and builds the site; not with -short")
	}
	git := testenv.LookPath(t, "git")
	goBin := testenv.LookPath(t, "go")
	root := testenv.RepoRoot(t)
	tmp := t.TempDir()
	clone := filepath.Join(tmp, "retryspec")
	if out, err := exec.Command(git, "clone", "--quiet", "--no-hardlinks", root, clone).CombinedOutput(); err != nil {
		t.Skipf("SKIPPED: cannot clone %s (not a git checkout with a commit?): %v\n%s", root, err, out)
	}
	if _, err := os.Stat(filepath.Join(tmp, "shared")); err == nil {
		t.Fatal("the clone has a ../shared beside it")
	}
	readme, err := os.ReadFile(filepath.Join(clone, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	argv := readmeCommand1(t, string(readme))
	if argv[0] != "go" {
		t.Fatalf("README command 1 is %q; the test runs only go commands", argv)
	}
	// The machine's GOFLAGS may turn VCS stamping off; the version check
	// below needs it on.
	env := append(os.Environ(), "GOFLAGS=-buildvcs=true")
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = clone, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(goBin, argv[1:]...)
	if st := run(git, "status", "--porcelain"); st != "" {
		t.Errorf("after README command 1 (%s) the clone is not clean:\n%s", strings.Join(argv, " "), st)
	}
	bin := filepath.Join(tmp, "retryspec-bin")
	run(goBin, "build", "-o", bin, "./cmd/retryspec")
	head := strings.TrimSpace(run(git, "rev-parse", "HEAD"))
	version := run(bin, "version")
	if strings.Contains(version, "dirty") || !strings.Contains(version, head[:12]) {
		t.Errorf("retryspec version in the clean clone at %s:\n%s\nwant its commit, not dirty", head[:12], version)
	}
}

// readmeCommand1 is the first line of the README's first sh block, its
// comment dropped, as arguments.
func readmeCommand1(t *testing.T, readme string) []string {
	t.Helper()
	_, block, ok := strings.Cut(readme, "```sh\n")
	if !ok {
		t.Fatal("README has no sh block")
	}
	line, _, _ := strings.Cut(block, "\n")
	line, _, _ = strings.Cut(line, "#")
	argv := strings.Fields(line)
	if len(argv) == 0 {
		t.Fatal("README's first sh block starts with an empty line")
	}
	return argv
}
