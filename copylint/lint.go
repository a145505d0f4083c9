package copylint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
	gitignore "github.com/sabhiram/go-gitignore"
)

// Options tune a Lint run.
type Options struct {
	// LintCode makes fenced and inline code count as copy (docs.copy.lint_code
	// in the contract sets it as well).
	LintCode bool
	// Workers bounds how many files are read and matched at once, and so
	// the memory a run needs; 0 means one per CPU.
	Workers int
	// Stats, when not nil, receives the run's file and byte counts.
	Stats *Stats
}

// Stats counts what a run read.
type Stats struct {
	Files int64
	Bytes int64
	// Skipped are the files found in folders or by globs that were too
	// large to lint (MaxFileSize), in path order.
	Skipped []string
}

// MaxFileSize bounds one file: larger files are not copy. One named on the
// command line is refused with an error; one found in a folder or by a glob
// (a generated reference page, a data dump) is skipped and listed in
// Stats.Skipped, so one such file does not stop the lint of a docs tree.
// The cost grows with the findings: a 1 MiB file with a claim in every paragraph takes about 1.1 s
// of CPU and 60 MB, 4 MiB took 4.4 s, past the 2 s every command is held to
// on hostile input (internal/hostiletest). Real pages of prose are far
// smaller; raise this only with a cap on findings per file.
const MaxFileSize = 1 << 20

// PathError is an input problem (a path that does not exist, a glob that
// matches nothing, an unreadable file): the CLI's exit 2.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *PathError) Unwrap() error { return e.Err }

// LintSource lints one file's content; the format comes from name's
// extension (text when unknown). build calls it on its own output. The
// contract may be nil: copy/contradicts-contract is then skipped.
func LintSource(c *contract.Contract, name string, data []byte) []findings.Finding {
	l := newLinter(c, false)
	fs := l.lintSource(name, data, nil)
	findings.Sort(fs)
	return fs
}

// Lint lints the files at paths: files, folders (recursively, files of the
// known extensions only) and globs. No paths means the contract's
// docs.copy.include. Git-ignored and binary files are skipped. The contract
// may be nil: copy/contradicts-contract is then skipped.
func Lint(ctx context.Context, c *contract.Contract, paths []string, opts Options) ([]findings.Finding, error) {
	if len(paths) == 0 && c != nil {
		paths = c.Docs.Copy.Include
	}
	if len(paths) == 0 {
		return nil, &PathError{Path: ".", Err: errors.New("no paths given and the contract has no docs.copy.include")}
	}
	l := newLinter(c, opts.LintCode)
	allow := newAllowList(c)

	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	jobs := make(chan string, workers*4)
	var (
		mu       sync.Mutex
		out      []findings.Finding
		firstErr error
		files    atomic.Int64
		bytesIn  atomic.Int64
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for name := range jobs {
				if ctx.Err() != nil {
					continue
				}
				data, err := readFile(name, buf)
				if err != nil {
					fail(err)
					continue
				}
				buf = data[:0]
				if isBinary(data) {
					continue
				}
				files.Add(1)
				bytesIn.Add(int64(len(data)))
				if allow != nil {
					allow.saw(name)
				}
				fs := l.lintSource(name, data, allow)
				if len(fs) > 0 {
					mu.Lock()
					out = append(out, fs...)
					mu.Unlock()
				}
			}
		}()
	}
	var skipped []string
	walkErr := expandPaths(ctx, paths, func(name string) { jobs <- name }, func(name string) { skipped = append(skipped, name) })
	close(jobs)
	wg.Wait()
	if walkErr != nil && firstErr == nil {
		firstErr = walkErr
	}
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if allow != nil {
		out = append(out, allow.unused()...)
	}
	if opts.Stats != nil {
		opts.Stats.Files, opts.Stats.Bytes = files.Load(), bytesIn.Load()
		sort.Strings(skipped)
		opts.Stats.Skipped = skipped
	}
	findings.Sort(out)
	return out, nil
}

// readFile reads name into buf's storage when it is large enough, so a
// worker reuses one buffer across files.
func readFile(name string, buf []byte) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, &PathError{Path: name, Err: unwrapPathErr(err)}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &PathError{Path: name, Err: unwrapPathErr(err)}
	}
	if st.Size() > MaxFileSize {
		return nil, &PathError{Path: name, Err: fmt.Errorf("file is larger than %d MiB; copy files are not", MaxFileSize>>20)}
	}
	n := int(st.Size())
	if cap(buf) < n {
		buf = make([]byte, 0, n+4096)
	}
	// Read exactly the size stat reported: one read call for a small file,
	// no extra call to see EOF. A file that grows meanwhile is linted as
	// it was when stat ran.
	buf = buf[:n]
	k, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, &PathError{Path: name, Err: unwrapPathErr(err)}
	}
	return buf[:k], nil
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, fs.ErrNotExist) {
			return errors.New("no such file or folder")
		}
		return pe.Err
	}
	return err
}

// isBinary reports whether data looks binary, by git's test: a NUL byte in
// the first 8000 bytes.
func isBinary(data []byte) bool {
	if len(data) > 8000 {
		data = data[:8000]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// expandPaths calls emit for each file the paths name, in a deterministic
// order: a file as given; a folder walked in lexical order, files of the
// known extensions only; a glob (when no file of that literal name exists,
// so "notes [draft].md" is a file, not a character class) expanded.
// Folders and globs skip git-ignored paths.
func expandPaths(ctx context.Context, paths []string, emit, skip func(string)) error {
	seen := map[string]bool{}
	// found hands on each file once. A file that was not named but found
	// in a folder or by a glob, and is too large to be copy, is skipped
	// rather than failing the run; a named one (size 0 here) goes on to
	// readFile, which refuses it.
	found := func(p string, size int64) {
		if seen[p] {
			return
		}
		seen[p] = true
		if size > MaxFileSize {
			skip(p)
			return
		}
		emit(p)
	}
	for _, p := range paths {
		if ctx.Err() != nil {
			return nil
		}
		st, err := os.Stat(p)
		switch {
		case err == nil && !st.IsDir():
			found(p, 0)
		case err == nil && st.IsDir():
			if err := walkFolder(ctx, p, found); err != nil {
				return err
			}
		case hasGlobMeta(p):
			matches, gerr := doublestar.FilepathGlob(p, doublestar.WithFilesOnly())
			if gerr != nil {
				return &PathError{Path: p, Err: fmt.Errorf("bad glob: %v", gerr)}
			}
			n := 0
			ig := newIgnorer()
			for _, m := range matches {
				if _, ok := formatOf(m); !ok || ig.ignored(m, false) {
					continue
				}
				n++
				size := int64(0)
				if st, err := os.Stat(m); err == nil {
					size = st.Size()
				}
				found(m, size)
			}
			if n == 0 {
				return &PathError{Path: p, Err: errors.New("pattern matches no Markdown, MDX, HTML or text file")}
			}
		default:
			return &PathError{Path: p, Err: unwrapPathErr(err)}
		}
	}
	return nil
}

func hasGlobMeta(p string) bool { return strings.ContainsAny(p, "*?[{") }

func walkFolder(ctx context.Context, root string, emit func(string, int64)) error {
	ig := newIgnorer()
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return &PathError{Path: path, Err: unwrapPathErr(err)}
		}
		if ctx.Err() != nil {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if path != root && (d.Name() == ".git" || ig.ignored(path, true)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if _, ok := formatOf(path); !ok || ig.ignored(path, false) {
			return nil
		}
		size := int64(0)
		if info, err := d.Info(); err == nil {
			size = info.Size()
		}
		emit(path, size)
		return nil
	})
}

// ignorer answers "is this path git-ignored?" from the .gitignore files of
// its folder and every folder above it up to the repository root (the
// first folder holding .git). It reads each .gitignore once. It does not
// read .git/info/exclude or global excludes: those are one person's
// settings, and a lint run must give everyone the same answer.
type ignorer struct {
	byDir map[string]*gitignore.GitIgnore // nil value: no .gitignore there
	root  map[string]bool
}

func newIgnorer() *ignorer {
	return &ignorer{byDir: map[string]*gitignore.GitIgnore{}, root: map[string]bool{}}
}

func (g *ignorer) load(dir string) *gitignore.GitIgnore {
	if gi, ok := g.byDir[dir]; ok {
		return gi
	}
	var gi *gitignore.GitIgnore
	if _, err := os.Stat(filepath.Join(dir, ".gitignore")); err == nil {
		gi, _ = gitignore.CompileIgnoreFile(filepath.Join(dir, ".gitignore"))
	}
	g.byDir[dir] = gi
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		g.root[dir] = true
	}
	return gi
}

func (g *ignorer) ignored(path string, isDir bool) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for dir := filepath.Dir(abs); ; {
		if gi := g.load(dir); gi != nil {
			rel, err := filepath.Rel(dir, abs)
			if err == nil {
				rel = filepath.ToSlash(rel)
				if gi.MatchesPath(rel) || (isDir && gi.MatchesPath(rel+"/")) {
					return true
				}
			}
		}
		parent := filepath.Dir(dir)
		if g.root[dir] || parent == dir {
			return false
		}
		dir = parent
	}
}
