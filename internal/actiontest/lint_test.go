package actiontest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// TestRunBlocksAreSafeShell runs shellcheck on every script of action.yml
// and refuses ${{ }} inside a script: GitHub pastes expressions into the
// script text before bash sees it, so an input or event field could inject
// commands. Values reach the scripts through env: instead.
func TestRunBlocksAreSafeShell(t *testing.T) {
	a := loadAction(t)
	for _, s := range a.Runs.Steps {
		if s.Run == "" {
			continue
		}
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %s: expression inside the script; pass it through env:", s.label())
		}
	}
	shellcheck := testenv.LookPath(t, "shellcheck")
	for _, s := range a.Runs.Steps {
		if s.Run == "" {
			continue
		}
		cmd := exec.Command(shellcheck, "--shell=bash", "--severity=style", "-")
		cmd.Stdin = strings.NewReader(s.Run)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("shellcheck on step %s: %v\n%s", s.label(), err, out)
		}
	}
}

// TestDocsWorkflowPassesActionlint checks the complete workflow that
// docs/ci.md tells users to copy.
func TestDocsWorkflowPassesActionlint(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := bytes.Cut(doc, []byte("## A complete workflow"))
	if !ok {
		t.Fatal(`docs/ci.md has no "## A complete workflow" section`)
	}
	_, block, ok := bytes.Cut(after, []byte("```yaml\n"))
	if !ok {
		t.Fatal("the workflow section has no yaml block")
	}
	block, _, _ = bytes.Cut(block, []byte("```"))
	if !bytes.Contains(block, []byte("uses: retryspec/retryspec@")) {
		t.Fatal("the documented workflow does not use the action")
	}
	actionlint := testenv.LookPath(t, "actionlint")
	// Point the workflow at this checkout's action.yml, so actionlint also
	// reads the action's metadata and checks the inputs the workflow passes.
	block = regexp.MustCompile(`uses: retryspec/retryspec@\S+`).ReplaceAll(block, []byte("uses: ./"))
	dir := t.TempDir()
	meta, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "action.yml"), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	wf := filepath.Join(dir, ".github", "workflows", "api-contract.yml")
	if err := os.MkdirAll(filepath.Dir(wf), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wf, block, 0o644); err != nil {
		t.Fatal(err)
	}
	// actionlint finds the project, and so ./action.yml, by its .git folder.
	if out, err := exec.Command(testenv.LookPath(t, "git"), "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	cmd := exec.Command(actionlint, "-no-color", wf)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
}
