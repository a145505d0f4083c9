package hostiletest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// Issue 13 item 3: the copy gate cannot be bypassed. One skip policy: a
// file copy does not lint is named on stderr (quoted) and counted in the
// summary line, everything else is still linted, and --strict fails the
// run on any skip. The Action's side (--strict, --if-included, no raw tool
// output in the log) is internal/actiontest's TestCopyGateCannotBeBypassed.

const claim = "We guarantee exactly-once delivery.\n"

func TestCopySkipPolicy(t *testing.T) {
	big := strings.Repeat("filler line\n", 100_000) // over 1 MiB
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, sb *sandbox)
		args    []string
		skipped string // named on stderr, quoted
	}{
		{"dangling symlink in a walked folder", func(t *testing.T, sb *sandbox) {
			symlink(t, "nowhere.md", filepath.Join(sb.work, "marketing", "docs.copy.include.md"))
		}, []string{"marketing"}, `"marketing/docs.copy.include.md"`},
		{"dangling symlink matched by an include glob", func(t *testing.T, sb *sandbox) {
			symlink(t, "nowhere.md", filepath.Join(sb.work, "marketing", "docs.copy.include.md"))
			setContract(t, sb, "  copy:\n    include: ['marketing/**/*.md']\n")
		}, nil, `"marketing/docs.copy.include.md"`},
		{"dangling symlink named on the command line", func(t *testing.T, sb *sandbox) {
			symlink(t, "nowhere.md", filepath.Join(sb.work, "marketing", "gone.md"))
		}, []string{"marketing/gone.md", "marketing/claim.md"}, `"marketing/gone.md"`},
		{"binary file named on the command line", func(t *testing.T, sb *sandbox) {
			mustWrite(t, filepath.Join(sb.work, "marketing", "nul.md"), []byte("\x00"+claim))
		}, []string{"marketing/nul.md", "marketing/claim.md"}, `"marketing/nul.md"`},
		{"binary file found in a folder", func(t *testing.T, sb *sandbox) {
			mustWrite(t, filepath.Join(sb.work, "marketing", "nul.md"), []byte("\x00"+claim))
		}, []string{"marketing"}, `"marketing/nul.md"`},
		{"file over 1 MiB found in a folder", func(t *testing.T, sb *sandbox) {
			mustWrite(t, filepath.Join(sb.work, "marketing", "big.md"), []byte(claim+big))
		}, []string{"marketing"}, `"marketing/big.md"`},
		{"file over 1 MiB named on the command line", func(t *testing.T, sb *sandbox) {
			mustWrite(t, filepath.Join(sb.work, "marketing", "big.md"), []byte(claim+big))
		}, []string{"marketing/big.md", "marketing/claim.md"}, `"marketing/big.md"`},
		{"file name with a line break and a workflow command", func(t *testing.T, sb *sandbox) {
			mustWrite(t, filepath.Join(sb.work, "marketing", "x\n::warning::pwned.md"), []byte(big))
		}, []string{"marketing"}, `"marketing/x\n::warning::pwned.md"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t)
			mustWrite(t, filepath.Join(sb.work, "marketing", "claim.md"), []byte(claim))
			tc.setup(t, sb)
			args := append([]string{"copy", "-c", "retryspec.yaml"}, tc.args...)
			r := run(t, sb, 0, args...)
			checkNoCrash(t, "copy", r)
			// The rest is linted: the claim is found, exit 1.
			if r.code != 1 || !strings.Contains(r.stdout, "marketing/claim.md:1:") {
				t.Errorf("exit %d; want 1 with the claim in marketing/claim.md found\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, "skipped "+tc.skipped+": ") || !strings.Contains(r.stderr, "skipped 1, named above") {
				t.Errorf("stderr does not name %s as skipped and count it:\n%s", tc.skipped, r.stderr)
			}
			for _, line := range strings.Split(r.stderr, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "::") {
					t.Errorf("a line of stderr reads as a workflow command: %q", line)
				}
			}
			// --strict fails on the skip alone.
			os.Remove(filepath.Join(sb.work, "marketing", "claim.md"))
			var strictArgs []string
			for _, a := range args {
				if a != "marketing/claim.md" {
					strictArgs = append(strictArgs, a)
				}
			}
			if r := run(t, sb, 0, strictArgs...); r.code != 0 {
				t.Errorf("without the claim: exit %d, want 0 (a skip alone passes without --strict)\n%s", r.code, r.stderr)
			}
			if r := run(t, sb, 0, append(strictArgs, "--strict")...); r.code != 1 {
				t.Errorf("--strict: exit %d, want 1 for the skip\n%s", r.code, r.stderr)
			}
		})
	}
}

// TestCopyLintsTrackedFilesGitIgnores: a page git tracks is linted even
// when a .gitignore (perhaps added by the same change) lists it or its
// folder; untracked ignored files stay out.
func TestCopyLintsTrackedFilesGitIgnores(t *testing.T) {
	gitBin := testenv.LookPath(t, "git")
	sb := newSandbox(t)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = sb.work
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + sb.home, "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	mustWrite(t, filepath.Join(sb.work, "marketing", "hidden.md"), []byte(claim))
	mustWrite(t, filepath.Join(sb.work, "marketing", "gen", "tracked.md"), []byte(claim))
	mustWrite(t, filepath.Join(sb.work, "marketing", "gen", "untracked.md"), []byte(claim))
	mustWrite(t, filepath.Join(sb.work, "marketing", ".gitignore"), []byte("hidden.md\ngen/\n"))
	git("add", "-f", "marketing/hidden.md", "marketing/gen/tracked.md")
	for _, args := range [][]string{{"marketing"}, {"marketing/**/*.md"}, nil} {
		if args == nil {
			setContract(t, sb, "  copy:\n    include: ['marketing/**/*.md']\n")
		}
		r := run(t, sb, 0, append([]string{"copy", "-c", "retryspec.yaml"}, args...)...)
		checkNoCrash(t, "copy", r)
		for _, f := range []string{"marketing/hidden.md:1:", "marketing/gen/tracked.md:1:"} {
			if !strings.Contains(r.stdout, f) {
				t.Errorf("copy %v: the tracked, ignored page %s was not linted:\n%s", args, f, r.stdout)
			}
		}
		if strings.Contains(r.stdout, "untracked.md") {
			t.Errorf("copy %v: an untracked ignored page was linted", args)
		}
	}
}
