package diff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// ErrNotRepository is returned (wrapped) when a path is not inside a git
// repository; ErrNoGit when the git binary cannot be found.
var (
	ErrNotRepository = errors.New("not inside a git repository")
	ErrNoGit         = errors.New("git is not installed or not on PATH")
)

// Git runs git commands. ExecGit runs the real binary; the interface keeps
// this package's process handling in one place and lets tests substitute it.
type Git interface {
	// Run runs git with args in dir and returns its standard output.
	Run(ctx context.Context, dir string, args ...string) ([]byte, error)
}

// ExecGit runs the git binary found on PATH (or at Path).
type ExecGit struct {
	Path string
}

// Run implements Git.
func (g ExecGit) Run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	bin := g.Path
	if bin == "" {
		bin = "git"
	}
	// quotePath=false keeps non-ASCII file names readable in our parsing.
	cmd := exec.CommandContext(ctx, bin, append([]string{"-c", "core.quotePath=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, ErrNoGit
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, &GitError{Args: args, Message: msg}
	}
	return stdout.Bytes(), nil
}

// GitError is a git command that failed.
type GitError struct {
	Args    []string
	Message string
}

func (e *GitError) Error() string {
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), e.Message)
}

// Repo locates the repository holding path (a file or folder) and returns
// its top folder and path's location inside it, slash-separated.
func Repo(ctx context.Context, g Git, path string) (top, rel string, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", "", err
	}
	dir := abs
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		dir = filepath.Dir(abs)
	}
	out, err := g.Run(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		if errors.Is(err, ErrNoGit) {
			return "", "", err
		}
		// git's own "fatal: not a git repository" adds nothing to this.
		return "", "", fmt.Errorf("%s is %w: diff --base compares the contract with a git revision of its repository; "+
			"outside one, compare two files instead (retryspec diff OLD.yaml NEW.yaml)", path, ErrNotRepository)
	}
	top = strings.TrimSpace(string(out))
	// Compare resolved paths: a temp folder or checkout may sit behind a symlink.
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		realTop = top
	}
	realAbs := abs
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		realAbs = filepath.Join(d, filepath.Base(abs))
	}
	r, err := filepath.Rel(realTop, realAbs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", "", fmt.Errorf("%s is outside the repository at %s", path, top)
	}
	return top, filepath.ToSlash(r), nil
}

// Snapshot is the contract file at one revision.
type Snapshot struct {
	Commit string // full hash the reference resolved to
	Path   string // the file's path at that revision, relative to the top
	// Contract is nil when the file did not exist at that revision.
	Contract *contract.Contract
}

// Label names the snapshot in messages: "3f2a9c1:retryspec.yaml".
func (s Snapshot) Label() string {
	short := s.Commit
	if len(short) > 7 {
		short = short[:7]
	}
	return short + ":" + s.Path
}

// Base loads the contract at path as it was at the git revision ref. It
// follows a rename between ref and the working tree (git's rename
// detection), and returns a nil Contract, without error, when the file did
// not exist at ref: then everything in the working tree is new.
func Base(ctx context.Context, g Git, path, ref string) (Snapshot, error) {
	top, rel, err := Repo(ctx, g, path)
	if err != nil {
		return Snapshot{}, err
	}
	if strings.HasPrefix(ref, "-") {
		return Snapshot{}, fmt.Errorf("%q is not a git revision", ref)
	}
	out, err := g.Run(ctx, top, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return Snapshot{}, fmt.Errorf("unknown git revision %q (in a shallow CI checkout, fetch it first: git fetch origin %s)", ref, ref)
	}
	snap := Snapshot{Commit: strings.TrimSpace(string(out)), Path: rel}
	if !exists(ctx, g, top, snap.Commit, rel) {
		old, err := renamedFrom(ctx, g, top, snap.Commit, rel)
		if err != nil {
			return Snapshot{}, err
		}
		if old == "" {
			return snap, nil // new at this revision
		}
		snap.Path = old
	}
	c, err := load(ctx, g, top, snap.Commit, snap.Path)
	if err != nil {
		return Snapshot{}, err
	}
	snap.Contract = c
	return snap, nil
}

func exists(ctx context.Context, g Git, top, commit, rel string) bool {
	_, err := g.Run(ctx, top, "cat-file", "-e", commit+":"+rel)
	return err == nil
}

func load(ctx context.Context, g Git, top, commit, rel string) (*contract.Contract, error) {
	data, err := g.Run(ctx, top, "cat-file", "blob", commit+":"+rel)
	if err != nil {
		return nil, err
	}
	short := commit
	if len(short) > 7 {
		short = short[:7]
	}
	return contract.Parse(short+":"+rel, data)
}

// renamedFrom finds the path rel had at commit when git sees it as renamed
// between commit and the working tree; "" when it was not.
func renamedFrom(ctx context.Context, g Git, top, commit, rel string) (string, error) {
	out, err := g.Run(ctx, top, "diff", "--find-renames", "--name-status", "-z", commit, "--")
	if err != nil {
		return "", err
	}
	f := strings.Split(string(out), "\x00")
	for i := 0; i < len(f); i++ {
		status := f[i]
		switch {
		case strings.HasPrefix(status, "R") || strings.HasPrefix(status, "C"):
			if i+2 < len(f) && f[i+2] == rel && strings.HasPrefix(status, "R") {
				return f[i+1], nil
			}
			i += 2
		case status != "":
			i++
		}
	}
	return "", nil
}
