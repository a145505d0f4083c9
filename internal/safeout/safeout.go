package safeout

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/retryspec/retryspec/internal/atomicwrite"
)

// ManifestName is the file each output folder carries: the files
// retryspec wrote there, one "sha256  path" line each.
const ManifestName = ".retryspec-manifest"

const manifestHead = "# Written by retryspec: the files it wrote in this folder (SHA-256, path).\n" +
	"# retryspec replaces or rewrites them only while they are unchanged and nothing else is here.\n"

// maxManifest bounds the manifest read: a folder of a million outputs is
// not one retryspec wrote.
const maxManifest = 64 << 20

// NotOursError is a write refused because the target holds something that
// retryspec did not write.
type NotOursError struct {
	Path   string // the folder or file that would have been replaced
	Reason string
}

func (e *NotOursError) Error() string {
	return fmt.Sprintf("refusing to replace %q: %s; retryspec only replaces what it wrote itself (choose another output, or move it away first)", e.Path, e.Reason)
}

// EscapeError is a path that leads out of its root once symlinks are
// followed (or names a symlink that leads nowhere).
type EscapeError struct {
	Path, Root string
	Resolved   string // where the path leads ("" when it leads nowhere)
}

func (e *EscapeError) Error() string {
	if e.Resolved == "" {
		return fmt.Sprintf("%q goes through a symlink that leads nowhere; it must stay inside %q", e.Path, e.Root)
	}
	return fmt.Sprintf("%q leads out of %q through a symlink (to %q); it must stay inside", e.Path, e.Root, e.Resolved)
}

// Resolve returns p made absolute with the symlinks of every existing
// component followed; the components that do not exist yet are appended
// as written (they cannot be symlinks until someone creates them). A
// dangling symlink among the existing components is an error.
func Resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var tail []string
	cur := abs
	for {
		if _, err := os.Lstat(cur); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			break
		}
		tail = append(tail, filepath.Base(cur))
		cur = parent
	}
	real, err := filepath.EvalSymlinks(cur)
	if err != nil {
		return "", err
	}
	for i := len(tail) - 1; i >= 0; i-- {
		real = filepath.Join(real, tail[i])
	}
	return real, nil
}

// Contained resolves p (see Resolve) and root, and returns the resolved p
// when it is root or inside it; otherwise an *EscapeError. Call it at
// write (or read) time and use the path it returns.
func Contained(root, p string) (string, error) {
	r, err := Resolve(root)
	if err != nil {
		return "", err
	}
	real, err := Resolve(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", &EscapeError{Path: p, Root: root}
		}
		return "", err
	}
	if !Inside(r, real) {
		return "", &EscapeError{Path: p, Root: root, Resolved: real}
	}
	return real, nil
}

// Inside reports whether the clean absolute path p is root or below it.
func Inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// ReplaceDir fills a new folder and swaps it in for dst (atomicwrite.Dir),
// adding a manifest of what fill wrote. It refuses, before fill runs, when
// dst exists and is not a folder, or holds anything an earlier run did not
// write (see Owned). legacy, when not nil, recognises a file written by an
// older retryspec that left no manifest; a folder of nothing but such files
// is replaced too.
func ReplaceDir(dst string, legacy func(rel string, data []byte) bool, fill func(tmp string) error) error {
	if err := Owned(dst, legacy); err != nil {
		return err
	}
	return atomicwrite.Dir(dst, func(tmp string) error {
		if err := fill(tmp); err != nil {
			return err
		}
		m, err := scan(tmp)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, ManifestName), m.encode(), 0o644)
	})
}

// Owned returns nil when dst may be replaced as a whole: it is absent, an
// empty folder, or a folder whose every file is listed in its manifest with
// the same content (or, without a manifest, recognised by legacy). Folders
// are allowed, symlinks and other special files are not.
func Owned(dst string, legacy func(rel string, data []byte) bool) error {
	st, err := os.Lstat(dst)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return &NotOursError{Path: dst, Reason: "it is not a folder"}
	}
	m, hasManifest, err := readManifest(dst)
	if err != nil {
		return &NotOursError{Path: dst, Reason: err.Error()}
	}
	return filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dst, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			return &NotOursError{Path: dst, Reason: fmt.Sprintf("%q is not a regular file", rel)}
		case rel == ManifestName && hasManifest:
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if hasManifest {
			sum, ok := m[rel]
			if !ok {
				return &NotOursError{Path: dst, Reason: fmt.Sprintf("%q is not a file retryspec wrote", rel)}
			}
			if sum != hashOf(data) {
				return &NotOursError{Path: dst, Reason: fmt.Sprintf("%q changed since retryspec wrote it", rel)}
			}
			return nil
		}
		if legacy != nil && legacy(rel, data) {
			return nil
		}
		return &NotOursError{Path: dst, Reason: fmt.Sprintf("it has no %s, so nothing in it is known to be retryspec's (%q, for one)", ManifestName, rel)}
	})
}

// File is one file for WriteFiles: a name inside the folder and its content.
type File struct {
	Name string // slash-separated, relative, no ".."
	Data []byte
	Perm os.FileMode // 0 means 0o644
}

// WriteFiles writes files into dir, each atomically, and records them in
// dir's manifest; the folder's other entries are left alone. It refuses,
// before writing anything, to replace an existing file that the manifest
// does not list with its current content, unless that file already holds
// the new content.
func WriteFiles(dir string, files []File) error {
	m, _, err := readManifest(dir)
	if err != nil {
		return &NotOursError{Path: filepath.Join(dir, ManifestName), Reason: err.Error()}
	}
	for _, f := range files {
		if !filepath.IsLocal(filepath.FromSlash(f.Name)) || f.Name == ManifestName {
			return fmt.Errorf("output name %q is not a plain name inside the folder", f.Name)
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if !st.Mode().IsRegular() {
			return &NotOursError{Path: p, Reason: "it is not a regular file"}
		}
		old, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Equal(old, f.Data) || m[f.Name] == hashOf(old) {
			continue
		}
		return &NotOursError{Path: p, Reason: "retryspec did not write it (or it changed since)"}
	}
	for _, f := range files {
		perm := f.Perm
		if perm == 0 {
			perm = 0o644
		}
		if err := atomicwrite.File(filepath.Join(dir, filepath.FromSlash(f.Name)), f.Data, perm); err != nil {
			return err
		}
		m[f.Name] = hashOf(f.Data)
	}
	return atomicwrite.File(filepath.Join(dir, ManifestName), m.encode(), 0o644)
}

type manifest map[string]string // slash path -> hex SHA-256

func hashOf(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func (m manifest) encode() []byte {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteString(manifestHead)
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", m[n], n)
	}
	return b.Bytes()
}

// readManifest reads dir's manifest; a missing one is an empty manifest
// and false. A manifest that is not a regular file, too large or does not
// parse is an error.
func readManifest(dir string) (manifest, bool, error) {
	m := manifest{}
	p := filepath.Join(dir, ManifestName)
	st, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return m, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !st.Mode().IsRegular() || st.Size() > maxManifest {
		return nil, false, fmt.Errorf("%s is not a manifest retryspec wrote", ManifestName)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		t := sc.Text()
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		sum, name, ok := strings.Cut(t, "  ")
		if _, err := hex.DecodeString(sum); !ok || err != nil || len(sum) != 64 || name == "" || path.Clean(name) != name || !filepath.IsLocal(filepath.FromSlash(name)) {
			return nil, false, fmt.Errorf("%s line %d does not parse", ManifestName, line)
		}
		m[name] = sum
	}
	if err := sc.Err(); err != nil {
		return nil, false, err
	}
	return m, true, nil
}

// scan lists every regular file under dir with its hash.
func scan(dir string) (manifest, error) {
	m := manifest{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == ManifestName {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		m[rel] = hashOf(data)
		return nil
	})
	return m, err
}
