package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

func diffFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "contract", "diff", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDiffFiles(t *testing.T) {
	dir := t.TempDir()
	full := diffFixture(t, "full.yaml")
	old := writeFile(t, filepath.Join(dir, "old.yaml"), full)
	changed := writeFile(t, filepath.Join(dir, "changed.yaml"), diffFixture(t, "changed.yaml"))
	// The breaking changes of changed.yaml, all acknowledged.
	acked := writeFile(t, filepath.Join(dir, "acked.yaml"), append(diffFixture(t, "changed.yaml"), []byte(`  - field: idempotency.conflicts.in_flight.code
    because: "old code still sent in a details field until 2026-06"
  - field: "endpoints[POST /v1/reports/{id}/archive]"
    because: "no calls in 90 days"
  - field: retry.statuses
    because: "502 now means the gateway rejected the request before it reached us"
`)...))
	reformatted := writeFile(t, filepath.Join(dir, "reformatted.yaml"), diffFixture(t, "reformatted.yaml"))
	invalid := writeFile(t, filepath.Join(dir, "invalid.yaml"), []byte("retryspec: 1\napi: {name: x, base_url: https://x.example}\nidempotency: {replay_window: 24}\n"))

	for _, tc := range []struct {
		name       string
		args       []string
		code       int
		out, err   string
		outMissing string
	}{
		{"breaking", []string{"diff", old, changed}, 1, "4 breaking changes (3 not acknowledged)", "3 breaking change(s) not acknowledged", ""},
		{"allowed", []string{"diff", "--allow-breaking", old, changed}, 0, "breaking", "", ""},
		{"acknowledged", []string{"diff", old, acked, "--format", "json"}, 0, `"unacknowledged_breaking": 0`, "", ""},
		{"markdown", []string{"diff", "--format", "markdown", old, changed}, 1, "### Breaking", "", ""},
		{"github", []string{"diff", "--format=github", old, changed}, 1, "::error file=" + changed + ",line=38", "", ""},
		{"formatting only", []string{"diff", old, reformatted}, 0, "no changes to the contract's meaning", "", "breaking"},
		{"one file", []string{"diff", old}, 2, "", "diff needs two contract files", ""},
		{"three files", []string{"diff", old, changed, acked}, 2, "", "diff needs two contract files", ""},
		{"-c without --base", []string{"diff", "-c", old, old, changed}, 2, "", "-c names the contract for --base", ""},
		{"--base and files", []string{"diff", "--base", "HEAD", old, changed}, 2, "", "not both", ""},
		{"unknown format", []string{"diff", "--format", "sarif", old, changed}, 2, "", `unknown --format "sarif"`, ""},
		{"missing file", []string{"diff", old, filepath.Join(dir, "nope.yaml")}, 2, "", "nope.yaml: error: no such file", ""},
		{"invalid contract", []string{"diff", old, invalid}, 2, "", "invalid.yaml:3:", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			if !strings.Contains(out, tc.out) {
				t.Errorf("stdout lacks %q:\n%s", tc.out, out)
			}
			if !strings.Contains(errOut, tc.err) {
				t.Errorf("stderr lacks %q:\n%s", tc.err, errOut)
			}
			if tc.outMissing != "" && strings.Contains(out, tc.outMissing) {
				t.Errorf("stdout has %q:\n%s", tc.outMissing, out)
			}
		})
	}
}

func TestDiffBase(t *testing.T) {
	testenv.LookPath(t, "git")
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
		"GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com",
	} {
		t.Setenv(k, v)
	}
	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	full := diffFixture(t, "full.yaml")
	git("init", "-q", "-b", "main")
	writeFile(t, filepath.Join(repo, "docs", "index.md"), []byte("# docs\n"))
	git("add", "-A")
	git("commit", "-q", "-m", "docs")
	git("tag", "before-contract")
	writeFile(t, filepath.Join(repo, "retryspec.yaml"), full)
	git("add", "-A")
	git("commit", "-q", "-m", "contract")
	writeFile(t, filepath.Join(repo, "retryspec.yaml"), []byte(strings.Replace(string(full), "max_key_length: 255", "max_key_length: 128", 1)))

	t.Chdir(filepath.Join(repo, "docs"))
	code, out, errOut := runCLI(t, "diff", "--base", "HEAD")
	if code != 1 || !strings.Contains(out, "idempotency.max_key_length: 255 -> 128") || !strings.Contains(out, ":retryspec.yaml -> ../retryspec.yaml") {
		t.Errorf("from a subfolder: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "diff", "--base", "before-contract", "-c", "../retryspec.yaml", "--format", "markdown")
	if code != 0 || !strings.Contains(out, "before-contract (no contract yet)") || !strings.Contains(out, "published for the first time") {
		t.Errorf("first commit: exit %d\n%s", code, out)
	}
	code, _, errOut = runCLI(t, "diff", "--base", "no-such-branch")
	if code != 2 || !strings.Contains(errOut, `unknown git revision "no-such-branch"`) {
		t.Errorf("unknown ref: exit %d %s", code, errOut)
	}
	t.Chdir(t.TempDir())
	writeFile(t, "retryspec.yaml", full)
	code, _, errOut = runCLI(t, "diff", "--base", "HEAD")
	if code != 2 || !strings.Contains(errOut, "not inside a git repository") {
		t.Errorf("outside a repository: exit %d %s", code, errOut)
	}
}
