package hostiletest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 13 item 2: paths stay inside the tree through symlinks too. Each
// case commits a symlink in the working tree that leads to outside/ (the
// sandbox's stand-in for the rest of the machine) and runs the command
// that follows the path: nothing outside may be written, removed or read.

// setContract rewrites the sandbox contract's docs section.
func setContract(t *testing.T, sb *sandbox, docs string) {
	t.Helper()
	p := filepath.Join(sb.work, "retryspec.yaml")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "\ndocs:\n")
	if i < 0 {
		t.Fatal("the sound contract has no docs section; update this test")
	}
	j := i + len("\ndocs:\n")
	for j < len(s) {
		k := strings.IndexByte(s[j:], '\n')
		if k < 0 {
			j = len(s)
			break
		}
		if !strings.HasPrefix(s[j:], " ") {
			break
		}
		j += k + 1
	}
	mustWrite(t, p, []byte(s[:i]+"\ndocs:\n"+docs+s[j:]))
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// noLeak checks that nothing outside work/ changed and no output carries
// the content of a file outside.
func noLeak(t *testing.T, what string, before, after map[string]entry, r result) {
	t.Helper()
	if d := changedOutside(before, after, "work"); len(d) > 0 {
		t.Errorf("%s: touched files outside the tree:\n  %s", what, strings.Join(d, "\n  "))
	}
	if strings.Contains(r.stdout+r.stderr, sentinel) {
		t.Errorf("%s: printed the content of a file outside the tree:\n%s%s", what, r.stdout, r.stderr)
	}
}

func TestDocsOutThroughSymlink(t *testing.T) {
	for _, tc := range []struct{ name, out string }{
		{"docs.out below a symlinked folder, existing target", "link/site"},
		{"docs.out below a symlinked folder, new target", "link/newsite"},
		{"docs.out below a symlinked folder, new folders", "link/a/b/site"},
		{"docs.out is itself a symlink", "site"},
		{"docs.out through a dangling symlink", "dangling/site"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t)
			victim := filepath.Join(sb.outside, "victim")
			mustWrite(t, filepath.Join(victim, "site", "index.html"), []byte("<p>the victim's site "+sentinel+"</p>\n"))
			mustWrite(t, filepath.Join(victim, "site", "markdown", "index.md"), []byte("# victim\n"))
			symlink(t, "../outside/victim", filepath.Join(sb.work, "link"))
			symlink(t, "../outside/victim/site", filepath.Join(sb.work, "site"))
			symlink(t, "../outside/nowhere", filepath.Join(sb.work, "dangling"))
			setContract(t, sb, "  out: "+tc.out+"\n")
			before := snapshot(t, sb.root)
			r := run(t, sb, 0, "build", "-c", "retryspec.yaml")
			checkNoCrash(t, "build", r)
			if r.code != 2 || !strings.Contains(r.stderr, "docs.out") {
				t.Errorf("exit %d, want 2 naming docs.out\n%s", r.code, r.stderr)
			}
			noLeak(t, "build", before, snapshot(t, sb.root), r)
		})
	}
	t.Run("docs.out through a symlink that stays inside is fine", func(t *testing.T) {
		sb := newSandbox(t)
		os.MkdirAll(filepath.Join(sb.work, "real"), 0o755)
		symlink(t, "real", filepath.Join(sb.work, "in"))
		setContract(t, sb, "  out: in/site\n")
		r := run(t, sb, 0, "build", "-c", "retryspec.yaml")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(sb.work, "real", "site", "index.html")); err != nil {
			t.Errorf("site not built through the inner symlink: %v", err)
		}
	})
}

func TestCopyDoesNotReadThroughSymlinks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, sb *sandbox)
		args    []string
		skipped string // the path named as skipped
	}{
		{"include glob through a symlinked folder", func(t *testing.T, sb *sandbox) {
			symlink(t, "../outside", filepath.Join(sb.work, "link"))
			setContract(t, sb, "  copy:\n    include: ['link/*.md', 'marketing/*.md']\n")
		}, nil, "link/secret.md"},
		{"include names a file symlink that leads out", func(t *testing.T, sb *sandbox) {
			symlink(t, "../outside/secret.md", filepath.Join(sb.work, "s.md"))
			setContract(t, sb, "  copy:\n    include: ['s.md', 'marketing/*.md']\n")
		}, nil, "s.md"},
		{"include names a symlinked folder", func(t *testing.T, sb *sandbox) {
			symlink(t, "../outside", filepath.Join(sb.work, "link"))
			setContract(t, sb, "  copy:\n    include: ['link', 'marketing/*.md']\n")
		}, nil, "link"},
		{"include ** finds a file symlink that leads out", func(t *testing.T, sb *sandbox) {
			symlink(t, "../../outside/secret.md", filepath.Join(sb.work, "marketing", "leak.md"))
			setContract(t, sb, "  copy:\n    include: ['marketing/**/*.md']\n")
		}, nil, "marketing/leak.md"},
		{"a folder walk finds a file symlink that leads out", func(t *testing.T, sb *sandbox) {
			symlink(t, "../../outside/secret.md", filepath.Join(sb.work, "marketing", "leak.md"))
		}, []string{"marketing"}, "marketing/leak.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t)
			tc.setup(t, sb)
			before := snapshot(t, sb.root)
			args := append([]string{"copy", "-c", "retryspec.yaml"}, tc.args...)
			r := run(t, sb, 0, args...)
			checkNoCrash(t, "copy", r)
			noLeak(t, "copy", before, snapshot(t, sb.root), r)
			if strings.Contains(r.stdout, "exactly-once") {
				t.Errorf("the claim in the file outside was linted (read):\n%s", r.stdout)
			}
			if r.code != 0 || !strings.Contains(r.stderr, "skipped \""+tc.skipped+"\"") {
				t.Errorf("exit %d; want 0 with %q named as skipped:\n%s", r.code, tc.skipped, r.stderr)
			}
			// --strict: the skip fails the run.
			if r := run(t, sb, 0, append(args, "--strict")...); r.code != 1 {
				t.Errorf("--strict: exit %d, want 1 for the skip\n%s", r.code, r.stderr)
			}
		})
	}
}

func TestContractSymlinkDoesNotEchoItsTarget(t *testing.T) {
	sb := newSandbox(t)
	mustWrite(t, filepath.Join(sb.outside, "token.yaml"), []byte("token: "+sentinel+"\n"))
	os.Remove(filepath.Join(sb.work, "retryspec.yaml"))
	symlink(t, "../outside/token.yaml", filepath.Join(sb.work, "retryspec.yaml"))
	symlink(t, "../outside/token.yaml", filepath.Join(sb.work, "other.yaml"))
	for _, args := range [][]string{
		{"check"}, {"check", "-c", "other.yaml"}, {"copy", "marketing"}, {"build"},
		{"snippets", "-c", "other.yaml"}, {"openapi", "--spec", "spec.yaml", "--overlay", "o.yaml"},
	} {
		before := snapshot(t, sb.root)
		r := run(t, sb, 0, args...)
		checkNoCrash(t, strings.Join(args, " "), r)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, r.code, r.stderr)
		}
		noLeak(t, strings.Join(args, " "), before, snapshot(t, sb.root), r)
	}
}

func TestTemplateOverrideSymlinkOut(t *testing.T) {
	sb := newSandbox(t)
	mustWrite(t, filepath.Join(sb.outside, "page.tmpl"), []byte("# "+sentinel+"\n"))
	symlink(t, "../../../outside/page.tmpl", filepath.Join(sb.work, "tpl", "markdown", "index.md.tmpl"))
	symlink(t, "../../outside", filepath.Join(sb.work, "tpl2", "markdown"))
	for _, tpl := range []string{"tpl", "tpl2"} {
		before := snapshot(t, sb.root)
		r := run(t, sb, 0, "build", "-c", "retryspec.yaml", "--out", "out-"+tpl, "--templates", tpl)
		checkNoCrash(t, "build --templates", r)
		if r.code != 2 {
			t.Errorf("--templates %s: exit %d, want 2\n%s", tpl, r.code, r.stderr)
		}
		after := snapshot(t, sb.root)
		noLeak(t, "build --templates", before, after, r)
		if _, err := os.Stat(filepath.Join(sb.work, "out-"+tpl)); err == nil {
			t.Errorf("--templates %s: a site was written with a template from outside", tpl)
		}
	}
}

// TestCopyGlobSymlinkLoops: committed symlinks to parent folders do not
// make a ** include expand without end (found by FuzzIncludeContainment:
// two such links made it exponential); ** does not descend into symlinked
// folders, like the folder walk.
func TestCopyGlobSymlinkLoops(t *testing.T) {
	sb := newSandbox(t)
	symlink(t, "../..", filepath.Join(sb.work, "marketing", "up"))
	symlink(t, "..", filepath.Join(sb.work, "marketing", "again"))
	symlink(t, "../marketing", filepath.Join(sb.work, "docs", "m"))
	setContract(t, sb, "  copy:\n    include: ['**/*.md', '**/*.mdx']\n")
	before := snapshot(t, sb.root)
	r := run(t, sb, 0, "copy", "-c", "retryspec.yaml")
	checkNoCrash(t, "copy", r)
	checkBounds(t, "copy", r)
	if r.code != 0 {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	noLeak(t, "copy", before, snapshot(t, sb.root), r)
}
