package diff

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/golden"
	"github.com/retryspec/retryspec/internal/testenv"
)

// gitRepo is a throwaway repository with a fixed identity and clock, so
// commits are reproducible and the user's git configuration plays no part.
type gitRepo struct {
	t    *testing.T
	dir  string
	tick int
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	testenv.LookPath(t, "git")
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
		"GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com",
	} {
		t.Setenv(k, v)
	}
	r := &gitRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(),
		fmt.Sprintf("GIT_AUTHOR_DATE=2026-01-%02dT10:00:00Z", r.tick+1),
		fmt.Sprintf("GIT_COMMITTER_DATE=2026-01-%02dT10:00:00Z", r.tick+1))
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *gitRepo) write(name string, data []byte) {
	r.t.Helper()
	p := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *gitRepo) commit(msg string) string {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	r.tick++
	return r.git("rev-parse", "HEAD")
}

// replace edits the source as text, keeping the rest byte-identical so
// git's rename detection sees the file as the same one.
func replace(t *testing.T, src []byte, old, new string) []byte {
	t.Helper()
	if !strings.Contains(string(src), old) {
		t.Fatalf("%q not in source", old)
	}
	return []byte(strings.Replace(string(src), old, new, 1))
}

func TestBase(t *testing.T) {
	full := readTestdata(t, "full.yaml")
	r := newGitRepo(t)
	r.write("README.md", []byte("hello\n"))
	first := r.commit("readme")
	r.write("api/retryspec.yaml", full)
	r.write("api/sub/keep", nil)
	added := r.commit("add contract")
	r.write("api/retryspec.yaml", replace(t, full, "replay_window: 24h", "replay_window: 12h"))
	ctx := context.Background()

	t.Run("from another folder of the repository", func(t *testing.T) {
		t.Chdir(filepath.Join(r.dir, "api", "sub"))
		snap, err := Base(ctx, ExecGit{}, "../retryspec.yaml", "HEAD")
		if err != nil {
			t.Fatal(err)
		}
		if snap.Contract == nil || snap.Path != "api/retryspec.yaml" || snap.Commit != added {
			t.Fatalf("snapshot %+v", snap)
		}
		if !strings.HasPrefix(snap.Contract.File, added[:7]+":api/retryspec.yaml") {
			t.Errorf("old contract is named %q", snap.Contract.File)
		}
		got := Compare(snap.Contract, parse(t, "new.yaml", replace(t, full, "replay_window: 24h", "replay_window: 12h")))
		if len(got) != 1 || got[0].Field != "idempotency.replay_window" || got[0].Class != Breaking {
			t.Fatalf("changes %+v", got)
		}
	})
	t.Run("first commit: the file did not exist", func(t *testing.T) {
		snap, err := Base(ctx, ExecGit{}, filepath.Join(r.dir, "api", "retryspec.yaml"), first)
		if err != nil {
			t.Fatal(err)
		}
		if snap.Contract != nil {
			t.Fatalf("expected no contract at %s, got one from %s", first, snap.Path)
		}
	})
	t.Run("unknown revision", func(t *testing.T) {
		_, err := Base(ctx, ExecGit{}, filepath.Join(r.dir, "api", "retryspec.yaml"), "origin/nope")
		if err == nil || !strings.Contains(err.Error(), `unknown git revision "origin/nope"`) || !strings.Contains(err.Error(), "git fetch") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("option-like revision", func(t *testing.T) {
		if _, err := Base(ctx, ExecGit{}, filepath.Join(r.dir, "api", "retryspec.yaml"), "--output=/tmp/x"); err == nil {
			t.Fatal("accepted an option as a revision")
		}
	})
	t.Run("not a repository", func(t *testing.T) {
		dir := t.TempDir()
		_, err := Base(ctx, ExecGit{}, filepath.Join(dir, "retryspec.yaml"), "HEAD")
		if err == nil || !strings.Contains(err.Error(), "not inside a git repository") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("invalid contract at the revision", func(t *testing.T) {
		r.write("api/retryspec.yaml", []byte("retryspec: 1\napi: [\n"))
		bad := r.commit("break it")
		r.write("api/retryspec.yaml", full)
		_, err := Base(ctx, ExecGit{}, filepath.Join(r.dir, "api", "retryspec.yaml"), bad)
		if err == nil || !strings.Contains(err.Error(), bad[:7]+":api/retryspec.yaml") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestBaseRenamed(t *testing.T) {
	full := readTestdata(t, "full.yaml")
	r := newGitRepo(t)
	r.write("contracts/payouts.yaml", full)
	before := r.commit("add contract")
	ctx := context.Background()

	// Renamed in the working tree, not yet committed.
	r.git("mv", "contracts/payouts.yaml", "retryspec.yaml")
	r.write("retryspec.yaml", replace(t, full, "max_attempts: 3", "max_attempts: 5"))
	snap, err := Base(ctx, ExecGit{}, filepath.Join(r.dir, "retryspec.yaml"), before)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Contract == nil || snap.Path != "contracts/payouts.yaml" {
		t.Fatalf("uncommitted rename: %+v", snap)
	}
	// Renamed and committed; the base is the revision before the rename.
	r.commit("move and raise attempts")
	snap, err = Base(ctx, ExecGit{}, filepath.Join(r.dir, "retryspec.yaml"), "HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Contract == nil || snap.Path != "contracts/payouts.yaml" {
		t.Fatalf("committed rename: %+v", snap)
	}
	got := Compare(snap.Contract, parse(t, "new.yaml", replace(t, full, "max_attempts: 3", "max_attempts: 5")))
	if len(got) != 1 || got[0].Row != "retry.max_attempts" || got[0].Class != Notable {
		t.Fatalf("changes %+v", got)
	}
}

func TestHistory(t *testing.T) {
	full := readTestdata(t, "full.yaml")
	r := newGitRepo(t)
	r.write("README.md", []byte("hi\n"))
	r.commit("readme")
	r.write("old/retryspec.yaml", full)
	c1 := r.commit("add the contract")
	r.write("old/retryspec.yaml", readTestdata(t, "reformatted.yaml"))
	c2 := r.commit("reformat")
	r.git("mv", "old/retryspec.yaml", "retryspec.yaml")
	r.write("retryspec.yaml", replace(t, readTestdata(t, "reformatted.yaml"), "replay_window: 1d", "replay_window: 12h"))
	c3 := r.commit("move and shorten the window")
	r.write("retryspec.yaml", []byte("retryspec: 1\napi: {name: x}\n"))
	c4 := r.commit("broken")
	shorter := replace(t, full, "replay_window: 24h", "replay_window: 12h")
	r.write("retryspec.yaml", replace(t, shorter, "max_attempts: 3", "max_attempts: 4"))
	c5 := r.commit("more attempts")
	r.write("unrelated.txt", []byte("x\n"))
	r.commit("unrelated")

	revs, err := History(context.Background(), ExecGit{}, filepath.Join(r.dir, "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rev := range revs {
		s := rev.Short() + " " + rev.Path + " " + rev.Subject
		for _, c := range rev.Changes {
			s += " | " + c.Class.String() + " " + c.Field
		}
		if rev.Invalid != "" {
			s += " | invalid"
		}
		if rev.First {
			s += " | first"
		}
		got = append(got, s)
	}
	want := []string{
		c5[:7] + " retryspec.yaml more attempts | notable retry.max_attempts",
		c4[:7] + " retryspec.yaml broken | invalid",
		c3[:7] + " retryspec.yaml move and shorten the window | breaking idempotency.replay_window",
		c2[:7] + " old/retryspec.yaml reformat",
		c1[:7] + " old/retryspec.yaml add the contract | notable  | notable endpoints[0] | notable endpoints[1] | notable endpoints[2] | first",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("history:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if revs[0].Date != "2026-01-06T10:00:00+00:00" || revs[0].Author != "Ada" {
		t.Errorf("date/author %q %q", revs[0].Date, revs[0].Author)
	}
}

func TestHistoryWithoutGit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "retryspec.yaml")
	if err := os.WriteFile(path, readTestdata(t, "full.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.LookPath(t, "git")
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	for name, g := range map[string]Git{"not a repository": ExecGit{}, "no git binary": ExecGit{Path: filepath.Join(dir, "no-git")}} {
		revs, err := History(context.Background(), g, path)
		if err != nil || revs != nil {
			t.Errorf("%s: revs %v, err %v; want no history and no error", name, revs, err)
		}
	}
}

func TestHistoryEmptyRepository(t *testing.T) {
	r := newGitRepo(t)
	r.write("retryspec.yaml", readTestdata(t, "full.yaml"))
	revs, err := History(context.Background(), ExecGit{}, filepath.Join(r.dir, "retryspec.yaml"))
	if err != nil || len(revs) != 0 {
		t.Fatalf("revs %v err %v", revs, err)
	}
}

func TestChangelog(t *testing.T) {
	full := readTestdata(t, "full.yaml")
	r := newGitRepo(t)
	r.write("retryspec.yaml", full)
	r.commit("publish the contract")
	r.write("retryspec.yaml", replace(t, full, "replay_window: 24h", "replay_window: 48h"))
	r.commit("keep keys for two days <b>")
	r.write("retryspec.yaml", []byte(strings.Replace(string(full), "max_attempts: 3", "max_attempts: 2", 1)+"  - field: retry.max_attempts\n    because: \"clients on SDK 4 *already* stop at 2\"\n"))
	r.commit("fewer attempts")
	path := filepath.Join(r.dir, "retryspec.yaml")
	revs, err := History(context.Background(), ExecGit{}, path)
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := Changelog(&buf, nil, revs); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	// Commit hashes are fixed by the fixed identity and dates; keep them.
	golden.Check(t, filepath.Join("testdata", "golden", "changelog.md"), []byte(got))
	for _, s := range []string{"### Breaking: change your code", "**What to do:**", "`retry.max_attempts`: `3` → `2`.", "The contract was published. Endpoints:"} {
		if !strings.Contains(got, s) {
			t.Errorf("changelog lacks %q", s)
		}
	}
	// Integrators get the contract's changes, never the repository's
	// bookkeeping: no commit subject, hash or acknowledgement reason.
	for _, s := range []string{"fewer attempts", "keep keys", "publish the contract", "already", "Acknowledged", "Commit"} {
		if strings.Contains(got, s) {
			t.Errorf("changelog shows %q", s)
		}
	}
	for _, r := range revs {
		if strings.Contains(got, r.Short()) {
			t.Errorf("changelog shows the commit hash %s", r.Short())
		}
	}
	// One change per line: every list item is a single line.
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(line, "  ") {
			t.Errorf("a change continues on a second line: %q", line)
		}
	}
	if strings.Index(got, "### Breaking") > strings.Index(got, "### Notable") && strings.Contains(got, "### Notable") {
		t.Error("breaking changes do not come first")
	}

	buf.Reset()
	if err := Changelog(&buf, parse(t, "full.yaml", full), nil); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.HasPrefix(got, "No earlier version of the contract is recorded yet") || strings.Contains(got, "Raised in 2025") {
		t.Errorf("no-history changelog shows acknowledgement text or no explanation:\n%s", got)
	}
}
