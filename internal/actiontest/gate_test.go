package actiontest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

const falseClaim = "We guarantee exactly-once delivery.\n"

// TestCopyGateCannotBeBypassed plays the pull requests of issue 13 item 3
// against the copy step: each adds a page with a false claim plus a trick
// that, on the old action, made the step pass. The step must fail, and the
// log must carry no workflow command the tool did not mean to emit.
func TestCopyGateCannotBeBypassed(t *testing.T) {
	a := loadAction(t)
	bin := buildRetryspec(t)
	have := implemented(t, bin)
	if !have["copy"] {
		t.Fatal("retryspec copy is not implemented in this build")
	}
	example, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "examples", "payouts", "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var steps []step
	for _, s := range a.Runs.Steps {
		if s.ID == "install" || s.ID == "copy" {
			steps = append(steps, s)
		}
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, repo string, git func(...string))
		// claimFound: the claim's annotation must be in the log too (the
		// trick must not stop the rest of the lint).
		claimFound bool
	}{
		{"dangling symlink named like the include key", func(t *testing.T, repo string, git func(...string)) {
			os.Symlink("nowhere.md", filepath.Join(repo, "marketing", "docs.copy.include.md"))
			os.WriteFile(filepath.Join(repo, "marketing", "claim.md"), []byte(falseClaim), 0o644)
		}, true},
		{"binary page (a NUL byte) hides the claim", func(t *testing.T, repo string, git func(...string)) {
			os.WriteFile(filepath.Join(repo, "marketing", "nul.md"), []byte("\x00"+falseClaim), 0o644)
		}, false},
		{"tracked page listed in a .gitignore the change adds", func(t *testing.T, repo string, git func(...string)) {
			os.WriteFile(filepath.Join(repo, "marketing", ".gitignore"), []byte("hidden.md\n"), 0o644)
			os.WriteFile(filepath.Join(repo, "marketing", "hidden.md"), []byte(falseClaim), 0o644)
			git("add", "-f", "marketing/hidden.md")
		}, true},
		{"file name injecting a workflow command", func(t *testing.T, repo string, git func(...string)) {
			// Too large to lint, so the tool names it in a notice.
			os.WriteFile(filepath.Join(repo, "marketing", "x\n::warning::pwned.md"), []byte(strings.Repeat("filler\n", 200_000)), 0o644)
			os.WriteFile(filepath.Join(repo, "marketing", "claim.md"), []byte(falseClaim), 0o644)
		}, true},
		{"page over 1 MiB skipped", func(t *testing.T, repo string, git func(...string)) {
			os.WriteFile(filepath.Join(repo, "marketing", "large.md"), []byte(strings.Repeat("filler\n", 200_000)), 0o644)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, _ := gitRepo(t, example, nil)
			git := func(args ...string) {
				cmd := exec.Command("git", args...)
				cmd.Dir = repo
				cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			tc.setup(t, repo, git)
			r := newRunner(t, repo, bin, have, a, map[string]string{"version": ""}, map[string]string{
				"event_name": "pull_request", "ref": "refs/pull/7/merge",
			})
			r.run(steps)
			if code, ran := r.exit["copy"]; !ran || code == 0 {
				t.Errorf("copy step exited %d (ran %v): the gate let the change through\n%s", code, ran, r.stdout["copy"])
			}
			cmds := workflowCommands(r.stdout["copy"])
			found := false
			for _, c := range cmds {
				if !strings.HasPrefix(c, "::error file=") && !strings.HasPrefix(c, "::warning file=") && !strings.HasPrefix(c, "::notice file=") {
					t.Errorf("the log carries a workflow command retryspec did not mean to emit: %q", c)
				}
				if strings.Contains(c, "copy/exactly-once") {
					found = true
				}
			}
			if tc.claimFound && !found {
				t.Errorf("no annotation for the claim:\n%s", r.stdout["copy"])
			}
		})
	}
}

// workflowCommands returns the lines the runner would read as workflow
// commands: lines starting with "::", outside a ::stop-commands:: region.
func workflowCommands(log string) []string {
	var out []string
	stopped := ""
	for _, line := range strings.Split(log, "\n") {
		switch {
		case stopped != "":
			if line == "::"+stopped+"::" {
				stopped = ""
			}
		case strings.HasPrefix(line, "::stop-commands::"):
			stopped = strings.TrimPrefix(line, "::stop-commands::")
		case strings.HasPrefix(strings.TrimLeft(line, " \t"), "::"):
			out = append(out, line)
		}
	}
	return out
}
