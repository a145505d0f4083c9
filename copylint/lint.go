package copylint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/internal/safeout"
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
	// Learned, when not nil, turns the learned second reader on or off
	// (nil: LearnedDefault). It needs the contract: without one it is off.
	Learned *bool
	// LearnedVeto, when not nil, chooses the learned reader's wide veto
	// (true: it drops the rules' findings in a sentence it reads as no
	// claim at LearnedVeto) or its sure veto (false: only at
	// LearnedSureVeto, and never a method-idempotency finding); nil:
	// LearnedVetoDefault. True turns the reader on unless Learned says
	// false.
	LearnedVeto *bool
}

// Stats counts what a run read.
type Stats struct {
	Files int64
	Bytes int64
	// Skipped are the files the run found (or was given) but did not lint,
	// each with the reason, in path order: too large (MaxFileSize), binary,
	// unreadable, or a symlink that leads nowhere or out of its tree. The
	// CLI names each on stderr and counts them in its summary; --strict
	// fails a run that skipped anything.
	Skipped []Skip
}

// Skip is one file a run did not lint, and why.
type Skip struct {
	Path   string
	Reason string
}

// MaxFileSize bounds one file: larger files are not copy and are skipped
// (Stats.Skipped), whether named or found, so one such file does not stop
// the lint of a docs tree; --strict turns the skip into a failure.
// The cost grows with the findings: a 1 MiB file with a claim in every paragraph takes about 1.1 s
// of CPU and 60 MB, 4 MiB took 4.4 s, past the 2 s every command is held to
// on hostile input (internal/hostiletest). Real pages of prose are far
// smaller; raise this only with a cap on findings per file.
const MaxFileSize = 1 << 20

// PathError is an input problem (a path that does not exist, a glob that
// matches nothing): the CLI's exit 2. The path is quoted: a file name may
// hold a line break, and a CI log reads a line that starts with "::" as a
// command.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return strconv.Quote(e.Path) + ": " + e.Err.Error() }
func (e *PathError) Unwrap() error { return e.Err }

// skipError is a file that is not linted: Lint records it in
// Stats.Skipped and goes on.
type skipError struct{ reason string }

func (e *skipError) Error() string { return e.reason }

// LintSource lints one file's content; the format comes from name's
// extension (text when unknown). build calls it on its own output. The
// contract may be nil: copy/contradicts-contract is then skipped.
func LintSource(c *contract.Contract, name string, data []byte) []findings.Finding {
	l := newLinter(c, false)
	fs := l.lintSource(name, data, nil, nil)
	findings.Sort(fs)
	return fs
}

// LintSourceUnfiltered is LintSource without any prefilter: the file is
// parsed whatever it holds, and every sentence of every block goes
// through every rule and check, the patterns' literal gates skipped. It
// is the reference the prefilter is tested against (it must never hide a
// finding, so both give the same findings), and far slower.
func LintSourceUnfiltered(c *contract.Contract, name string, data []byte) []findings.Finding {
	l := newLinter(c, false)
	l.exhaustive = true
	gatesOff.Add(1)
	defer gatesOff.Add(-1)
	fs := l.lintSource(name, data, nil, nil)
	findings.Sort(fs)
	return fs
}

// Lint lints the files at paths: files, folders (recursively, files of the
// known extensions only) and globs. No paths means the contract's
// docs.copy.include, whose every match must resolve, symlinks followed,
// inside the working directory the patterns are relative to. Folders and globs leave out git-ignored
// files that git does not track. Files that cannot be linted are skipped
// and listed in opts.Stats (see Stats.Skipped). The contract may be nil:
// copy/contradicts-contract is then skipped.
func Lint(ctx context.Context, c *contract.Contract, paths []string, opts Options) ([]findings.Finding, error) {
	var root string // "": paths from the command line, the user's choice
	if len(paths) == 0 && c != nil {
		// The include patterns are relative to the working directory (the
		// repository, in CI), so that is the tree they must stay in.
		paths = c.Docs.Copy.Include
		root = "."
	}
	if len(paths) == 0 {
		return nil, &PathError{Path: ".", Err: errors.New("no paths given and the contract has no docs.copy.include")}
	}
	l := newLinter(c, opts.LintCode)
	if opts.Learned != nil || opts.LearnedVeto != nil {
		l.learned = readerFor(c, opts.ReaderOn(), opts.wideVeto())
	}
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
		skipped  []Skip
	)
	skip := func(p, reason string) {
		mu.Lock()
		skipped = append(skipped, Skip{Path: p, Reason: reason})
		mu.Unlock()
	}
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
			// The worker holds its buffers for the whole run: taken from
			// the pool file by file, they were dropped at every garbage
			// collection and grown again.
			sc := scratchPool.Get().(*scratch)
			defer scratchPool.Put(sc)
			for name := range jobs {
				if ctx.Err() != nil {
					continue
				}
				data, err := readFile(name, buf)
				var se *skipError
				if errors.As(err, &se) {
					skip(name, se.reason)
					continue
				}
				if err != nil {
					fail(err)
					continue
				}
				buf = data[:0]
				if isBinary(data) {
					skip(name, "binary: a NUL byte in its first 8000 bytes")
					continue
				}
				files.Add(1)
				bytesIn.Add(int64(len(data)))
				if allow != nil {
					allow.saw(name)
				}
				fs := l.lintSource(name, data, allow, sc)
				if len(fs) > 0 {
					mu.Lock()
					out = append(out, fs...)
					mu.Unlock()
				}
			}
		}()
	}
	walkErr := expandPaths(ctx, paths, root, func(name string) { jobs <- name }, skip)
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
		sort.Slice(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
		opts.Stats.Skipped = skipped
	}
	findings.Sort(out)
	return out, nil
}

// readFileOS reads name into buf's storage when it is large enough, so a
// worker reuses one buffer across files. readFile (readfile_*.go) is it,
// or a leaner form of it where the system allows.
func readFileOS(name string, buf []byte) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, &skipError{"cannot be read: " + unwrapPathErr(err).Error()}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &skipError{"cannot be read: " + unwrapPathErr(err).Error()}
	}
	if !st.Mode().IsRegular() {
		return nil, &skipError{"not a regular file"}
	}
	if st.Size() > MaxFileSize {
		return nil, &skipError{fmt.Sprintf("larger than %d MiB, which copy is not", MaxFileSize>>20)}
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
		return nil, &skipError{"cannot be read: " + unwrapPathErr(err).Error()}
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
// Folders and globs leave out git-ignored files git does not track.
//
// root, when set, is the tree every path must stay in (the working
// directory, for docs.copy.include): each file is resolved, symlinks
// followed, and one that leads out is skipped, never read. Without root
// (paths from the command line) a named file is read as named, and a file
// found in a folder or by a glob must stay inside that folder (the glob's
// fixed leading folders). skip receives each file not handed on.
func expandPaths(ctx context.Context, paths []string, root string, emit func(string), skip func(p, reason string)) error {
	seen := map[string]bool{}
	ig := newIgnorer()
	// found hands on each file once, after the containment check.
	resolvedTree := map[string]string{} // tree -> its resolved path
	// found hands on each file once, after the containment check (skipped
	// when check is false: a regular file a walk found below a tree it
	// does not leave, since WalkDir follows no symlinked folder).
	found := func(p, tree string, check bool) {
		if seen[p] {
			return
		}
		seen[p] = true
		if tree != "" && check {
			rt, ok := resolvedTree[tree]
			if !ok {
				var err error
				if rt, err = safeout.Resolve(tree); err != nil {
					rt = "" // nothing resolves inside a tree that does not
				}
				resolvedTree[tree] = rt
			}
			real, err := safeout.Resolve(p)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				skip(p, "a symlink that leads nowhere")
				return
			case err != nil:
				skip(p, "cannot be resolved: "+unwrapPathErr(err).Error())
				return
			case rt == "" || !safeout.Inside(rt, real):
				skip(p, fmt.Sprintf("leads out of %q through a symlink; not read", tree))
				return
			}
		}
		emit(p)
	}
	for _, p := range paths {
		if ctx.Err() != nil {
			return nil
		}
		tree := root
		lst, lerr := os.Lstat(p)
		st, err := os.Stat(p)
		switch {
		case lerr == nil && err != nil && lst.Mode()&fs.ModeSymlink != 0:
			// A dangling symlink: named, it is one skip, not the end of
			// the run.
			if !seen[p] {
				seen[p] = true
				skip(p, "a symlink that leads nowhere")
			}
		case err == nil && !st.IsDir():
			found(p, tree, true)
		case err == nil && st.IsDir():
			if tree == "" {
				tree = p
			} else if _, err := safeout.Contained(tree, p); err != nil {
				skip(p, fmt.Sprintf("a folder that leads out of %q through a symlink; not read", tree))
				continue
			}
			if err := walkFolder(ctx, p, ig, func(f string, link bool) { found(f, tree, link) }, skip); err != nil {
				return err
			}
		case hasGlobMeta(p):
			if tree == "" {
				base, _ := doublestar.SplitPattern(filepath.ToSlash(p))
				tree = filepath.FromSlash(base)
			}
			// WithNoFollow: ** must not descend into symlinked folders,
			// as the folder walk does not: two committed links to parent
			// folders made the expansion exponential (found by
			// FuzzIncludeContainment). A symlinked folder before the first
			// meta character is still followed; found's check catches one
			// that leads out.
			matches, gerr := doublestar.FilepathGlob(p, doublestar.WithFilesOnly(), doublestar.WithNoFollow())
			if gerr != nil {
				return &PathError{Path: p, Err: fmt.Errorf("bad glob: %v", gerr)}
			}
			n := 0
			for _, m := range matches {
				if _, ok := formatOf(m); !ok || ig.ignored(m, false) {
					continue
				}
				if st, err := os.Stat(m); err == nil && st.IsDir() {
					continue // a symlinked folder, as in a walk: not followed
				}
				n++
				found(m, tree, true)
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

// walkFolder hands on the files of the known extensions under root. It
// does not descend into symlinked folders (loops, and trees elsewhere);
// a symlinked file goes to emit, whose containment check decides.
func walkFolder(ctx context.Context, root string, ig *ignorer, emit func(path string, link bool), skip func(p, reason string)) error {
	return walkDir(root, ig.listed, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return &PathError{Path: path, Err: unwrapPathErr(err)}
			}
			skip(path, "cannot be read: "+unwrapPathErr(err).Error())
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if ctx.Err() != nil {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if path != root && (d.Name() == ".git" || (ig.ignored(path, true) && !ig.trackedUnder(path))) {
				return filepath.SkipDir
			}
			return nil
		}
		if _, ok := formatOf(path); !ok || ig.ignored(path, false) {
			return nil
		}
		switch {
		case d.Type().IsRegular():
			emit(path, false)
		case d.Type()&fs.ModeSymlink != 0:
			if st, err := os.Stat(path); err == nil && st.IsDir() {
				return nil // a folder by another name: not followed
			}
			emit(path, true)
		default:
			skip(path, "not a regular file")
		}
		return nil
	})
}

// walkDir is filepath.WalkDir that also hands each folder's entries to
// listed once they are read, before any of them is visited: the ignorer
// then knows whether the folder holds a .gitignore or a .git without
// asking the file system twice per folder (two stat calls per folder were
// a few percent of a run over a large tree).
func walkDir(root string, listed func(dir string, entries []fs.DirEntry), fn fs.WalkDirFunc) error {
	info, err := os.Lstat(root)
	if err != nil {
		err = fn(root, nil, err)
	} else {
		err = walkDirFrom(root, false, fs.FileInfoToDirEntry(info), listed, fn)
	}
	if err == filepath.SkipDir || err == filepath.SkipAll {
		return nil
	}
	return err
}

// walkDirFrom is filepath's walkDir, with the listed hook. clean says
// path is clean (every path below the root is, being joined): a child's
// path is then path, a separator and its name, which is what
// filepath.Join returns, without cleaning every path again.
func walkDirFrom(path string, clean bool, d fs.DirEntry, listed func(string, []fs.DirEntry), fn fs.WalkDirFunc) error {
	if err := fn(path, d, nil); err != nil || !d.IsDir() {
		if err == filepath.SkipDir && d.IsDir() {
			err = nil
		}
		return err
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		// Second call, to report the ReadDir error.
		if err = fn(path, d, err); err != nil {
			if err == filepath.SkipDir && d.IsDir() {
				err = nil
			}
			return err
		}
	} else {
		listed(path, entries)
	}
	for _, d1 := range entries {
		child := path + string(filepath.Separator) + d1.Name()
		if !clean || path == string(filepath.Separator) {
			child = filepath.Join(path, d1.Name())
		}
		if err := walkDirFrom(child, true, d1, listed, fn); err != nil {
			if err == filepath.SkipDir {
				break
			}
			return err
		}
	}
	return nil
}

// ignorer answers "is this path git-ignored?" from the .gitignore files of
// its folder and every folder above it up to the repository root (the
// first folder holding .git). It reads each .gitignore once. It does not
// read .git/info/exclude or global excludes: those are one person's
// settings, and a lint run must give everyone the same answer. A file git
// tracks is never ignored, whatever a .gitignore says: otherwise a pull
// request could hide a page from the lint by adding it to .gitignore.
type ignorer struct {
	byDir   map[string]*gitignore.GitIgnore // nil value: no .gitignore there
	root    map[string]bool
	tracked map[string][]string // repository root -> its tracked files (absolute, sorted)
	chains  map[string][]ignoreLevel
	absDirs map[string]string // a folder as a path names it -> filepath.Abs of it
	// entries records, for the folders a walk has read (absolute paths),
	// whether they hold a .gitignore and a .git entry: load asks the file
	// system only about those that do.
	entries map[string]gitEntries
}

type gitEntries struct{ gitignore, git bool }

// listed is walkDir's hook: it notes whether dir holds .gitignore or .git.
func (g *ignorer) listed(dir string, entries []fs.DirEntry) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	var e gitEntries
	// The entries are sorted, and both names sort before any letter or
	// digit; a name sorts before ".git" only when it starts with a byte
	// below '.', so the loop stops early.
	for _, d := range entries {
		switch name := d.Name(); {
		case name == ".gitignore":
			e.gitignore = true
		case name == ".git":
			e.git = true
		case name > ".gitignore":
			g.entries[abs] = e
			return
		}
	}
	g.entries[abs] = e
}

func newIgnorer() *ignorer {
	return &ignorer{byDir: map[string]*gitignore.GitIgnore{}, root: map[string]bool{}, tracked: map[string][]string{}, chains: map[string][]ignoreLevel{}, absDirs: map[string]string{}, entries: map[string]gitEntries{}}
}

func (g *ignorer) load(dir string) *gitignore.GitIgnore {
	if gi, ok := g.byDir[dir]; ok {
		return gi
	}
	var gi *gitignore.GitIgnore
	e, walked := g.entries[dir]
	if !walked || e.gitignore {
		if _, err := os.Stat(filepath.Join(dir, ".gitignore")); err == nil {
			gi, _ = gitignore.CompileIgnoreFile(filepath.Join(dir, ".gitignore"))
		}
	}
	g.byDir[dir] = gi
	if !walked || e.git {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			g.root[dir] = true
		}
	}
	return gi
}

func (g *ignorer) ignored(path string, isDir bool) bool {
	abs, dir, err := g.abs(path)
	if err != nil {
		return false
	}
	for _, lv := range g.chain(dir) {
		rel, err := relUnder(lv.dir, abs)
		if err == nil {
			rel = filepath.ToSlash(rel)
			if lv.gi.MatchesPath(rel) || (isDir && lv.gi.MatchesPath(rel+"/")) {
				return isDir || !g.isTracked(abs)
			}
		}
	}
	return false
}

// abs is filepath.Abs(path) and filepath.Dir of it. A walk asks about
// every file of a folder in turn, so the folder's absolute form is worked
// out once and the name appended: cleaning each long path twice was a
// few percent of a run over a large tree.
func (g *ignorer) abs(path string) (abs, dir string, err error) {
	const sep = string(filepath.Separator)
	i := strings.LastIndexByte(path, filepath.Separator)
	if filepath.Separator != '/' || i < 0 {
		abs, err = filepath.Abs(path)
		return abs, filepath.Dir(abs), err
	}
	switch base := path[i+1:]; base {
	case "", ".", "..":
		abs, err = filepath.Abs(path)
		return abs, filepath.Dir(abs), err
	default:
		d := path[:i]
		ad, ok := g.absDirs[d]
		if !ok {
			src := d
			if src == "" {
				src = sep
			}
			if ad, err = filepath.Abs(src); err != nil {
				return "", "", err
			}
			g.absDirs[d] = ad
		}
		if ad == sep {
			return sep + base, ad, nil
		}
		return ad + sep + base, ad, nil
	}
}

// ignoreLevel is one folder's .gitignore.
type ignoreLevel struct {
	dir string
	gi  *gitignore.GitIgnore
}

// chain lists the .gitignore files that apply in dir, nearest first, up to
// the repository root: worked out once per folder, not once per file.
func (g *ignorer) chain(dir string) []ignoreLevel {
	if c, ok := g.chains[dir]; ok {
		return c
	}
	var c []ignoreLevel
	for d := dir; ; {
		if gi := g.load(d); gi != nil {
			c = append(c, ignoreLevel{d, gi})
		}
		parent := filepath.Dir(d)
		if g.root[d] || parent == d {
			break
		}
		d = parent
	}
	g.chains[dir] = c
	return c
}

// relUnder is filepath.Rel(dir, abs) for a clean abs below the clean dir,
// without the work Rel does for the general case.
func relUnder(dir, abs string) (string, error) {
	sep := string(filepath.Separator)
	if dir == sep && strings.HasPrefix(abs, sep) && len(abs) > 1 {
		return abs[1:], nil
	}
	if strings.HasPrefix(abs, dir+sep) {
		return abs[len(dir)+1:], nil
	}
	return filepath.Rel(dir, abs)
}

// repoRoot is the first folder at or above dir that holds .git ("" when
// none does).
func (g *ignorer) repoRoot(dir string) string {
	for {
		g.load(dir)
		if g.root[dir] {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// trackedFiles lists the files git tracks in the repository at root, from
// `git ls-files` (the index, so a file added in the change under review
// counts). Without git, or outside a repository, the list is empty and
// .gitignore alone decides.
func (g *ignorer) trackedFiles(root string) []string {
	if list, ok := g.tracked[root]; ok {
		return list
	}
	var list []string
	cmd := exec.Command("git", "-C", root, "ls-files", "-z", "--cached")
	if out, err := cmd.Output(); err == nil {
		for _, name := range strings.Split(string(out), "\x00") {
			if name != "" {
				list = append(list, filepath.Join(root, filepath.FromSlash(name)))
			}
		}
	}
	sort.Strings(list)
	g.tracked[root] = list
	return list
}

func (g *ignorer) isTracked(abs string) bool {
	root := g.repoRoot(filepath.Dir(abs))
	if root == "" {
		return false
	}
	list := g.trackedFiles(root)
	i := sort.SearchStrings(list, abs)
	return i < len(list) && list[i] == abs
}

// trackedUnder reports whether git tracks any file below the folder dir,
// so that a walk enters an ignored folder that still holds tracked pages.
func (g *ignorer) trackedUnder(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	root := g.repoRoot(abs)
	if root == "" {
		return false
	}
	list := g.trackedFiles(root)
	prefix := abs + string(filepath.Separator)
	i := sort.SearchStrings(list, prefix)
	return i < len(list) && strings.HasPrefix(list[i], prefix)
}

// ReaderOn says whether a run with these options reads with the learned
// reader (when there is a contract): as Learned says, else on when
// LearnedVeto asks for the wide veto, else LearnedDefault.
func (o Options) ReaderOn() bool {
	switch {
	case o.Learned != nil:
		return *o.Learned
	case o.LearnedVeto != nil && *o.LearnedVeto:
		return true
	}
	return LearnedDefault
}

// wideVeto says whether the reader, when on, runs its wide veto.
func (o Options) wideVeto() bool {
	if o.LearnedVeto != nil {
		return *o.LearnedVeto
	}
	return LearnedVetoDefault
}
