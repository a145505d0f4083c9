package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

func TestVersionFrom(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	bi := func(version string, s []debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/retryspec/retryspec", Version: version}, Settings: s}
	}
	tests := []struct {
		name                    string
		bi                      *debug.BuildInfo
		linkVersion, linkCommit string
		wantVersion, wantCommit string
	}{
		{"go install @tag", bi("v1.4.0", nil), "", "", "v1.4.0", "unknown"},
		{"go install @latest, untagged", bi("v0.0.0-20261201041332-952c2bb1a2b3", nil), "", "", "v0.0.0-20261201041332-952c2bb1a2b3", "952c2bb1a2b3"},
		{"pseudo-version after a tag", bi("v1.2.4-0.20261201041332-952c2bb1a2b3", nil), "", "", "v1.2.4-0.20261201041332-952c2bb1a2b3", "952c2bb1a2b3"},
		{"local build in a clone", bi("v0.0.0-20261201041332-952c2bb1a2b3+dirty", settings("vcs.revision", "952c2bb1a2b3ffff", "vcs.modified", "true")), "", "", "v0.0.0-20261201041332-952c2bb1a2b3+dirty", "952c2bb1a2b3ffff (modified)"},
		{"old Go, local build", bi("(devel)", settings("vcs.revision", "abc", "vcs.modified", "false")), "", "", "(devel)", "abc"},
		{"nothing known", bi("(devel)", nil), "", "", "(devel)", "unknown"},
		{"no build info", nil, "", "", "(devel)", "unknown"},
		{"link-time values win", bi("v1.0.0", settings("vcs.revision", "abc")), "v9.9.9", "def", "v9.9.9", "def"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := versionFrom(tt.bi, tt.linkVersion, tt.linkCommit, "go1.26")
			if v.Version != tt.wantVersion || v.Commit != tt.wantCommit {
				t.Errorf("got %q %q, want %q %q", v.Version, v.Commit, tt.wantVersion, tt.wantCommit)
			}
		})
	}
}

// TestVersionOfRealBuild builds the command inside this git clone, as
// `go install ./cmd/retryspec` does, and checks that both `version` and
// `--version` name the commit git reports.
func TestVersionOfRealBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	git := testenv.LookPath(t, "git")
	root := testenv.RepoRoot(t)
	head, err := exec.Command(git, "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		testenv.Missing(t, "a git clone at "+root)
	}
	// The go command looks for a .git folder: a worktree's or
	// submodule's .git file gets no VCS stamp.
	if fi, err := os.Stat(filepath.Join(root, ".git")); err != nil || !fi.IsDir() {
		testenv.Missing(t, "a .git folder at "+root+" (a git worktree gets no VCS stamp from go build)")
	}
	bin := filepath.Join(t.TempDir(), "retryspec")
	// -buildvcs=true: a GOFLAGS=-buildvcs=false on the machine would
	// otherwise drop the very information under test.
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "./cmd/retryspec")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("retryspec %s: %v", args[0], err)
		}
		lines := strings.Split(string(out), "\n")
		if len(lines) < 3 || !strings.HasPrefix(lines[1], "commit "+strings.TrimSpace(string(head))) {
			t.Errorf("retryspec %s printed %q, want the commit %s", args[0], out, head)
		}
		if strings.Contains(lines[0], "(devel)") {
			t.Errorf("retryspec %s printed %q: Go 1.24+ derives a version from the clone", args[0], lines[0])
		}
	}
}
