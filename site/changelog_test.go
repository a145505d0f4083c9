package site

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// TestChangelogFromGitHistory commits a contract twice in a fresh
// repository and finds the second commit's change, classed, on the
// Changelog page, which passes the build's own copy check.
func TestChangelogFromGitHistory(t *testing.T) {
	gitBin := testenv.LookPath(t, "git")
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.test", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.test", "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	src, err := os.ReadFile(examples(t)["payouts"])
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "retryspec.yaml")
	git("init", "-q")
	os.WriteFile(p, src, 0o644)
	git("add", "retryspec.yaml")
	git("commit", "-q", "-m", "publish the contract")
	os.WriteFile(p, bytes.Replace(src, []byte("max_attempts: 3 "), []byte("max_attempts: 2 "), 1), 0o644)
	git("commit", "-q", "-a", "-m", "fewer attempts")

	res, err := Build(context.Background(), Options{Contract: p, Out: filepath.Join(dir, "out")})
	if err != nil {
		t.Fatal(err)
	}
	var page string
	for _, f := range res.Files {
		if f.Path == MarkdownDir+"/changelog.md" {
			page = string(f.Data)
		}
	}
	for _, want := range []string{"# Changelog", "## 2026-01-02", "### Breaking: change your code", "- `retry.max_attempts`: `3` → `2`.", "**What to do:**", "The contract was published."} {
		if !strings.Contains(page, want) {
			t.Errorf("changelog lacks %q:\n%s", want, page)
		}
	}
	for _, not := range []string{"fewer attempts", "publish the contract", "Commit"} {
		if strings.Contains(page, not) {
			t.Errorf("changelog shows commit metadata %q:\n%s", not, page)
		}
	}
}
