// Package atomicwrite writes outputs so that a reader never sees a half
// written file and a failed or interrupted run leaves the previous output
// in place: everything is written beside the target, then renamed over it.
// Only a regular file (or a new one) is replaced that way: a device or a
// pipe is written to as a stream, and anything else is refused, so that
// `--overlay /dev/null` run as root never swaps the machine's /dev/null
// for a regular file.
package atomicwrite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// NotRegularError is a write refused because the target exists and is
// neither a regular file, a character device nor a pipe (a folder, a
// socket, a block device, a dangling symlink).
type NotRegularError struct {
	Path string
	Kind string // "a folder", "a socket", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; refusing to replace it. "+
		"Give the path of a file (new or regular), a pipe or a character device such as /dev/stdout", e.Path, e.Kind)
}

// File writes data to path. A new path or a regular file gets a temporary
// file in the same folder, renamed into place; through a symlink, the
// file it names is replaced and the link kept. A character device or a
// named pipe (/dev/stdout, /dev/null, a FIFO) is opened and written as a
// stream, never replaced. Any other existing path is refused with a
// *NotRegularError.
func File(path string, data []byte, perm os.FileMode) error {
	target, stream, err := resolve(path)
	if err != nil {
		return err
	}
	if stream {
		return writeStream(target, data)
	}
	return replace(target, data, perm)
}

// resolve says where File writes and how: through a symlink to the file
// it names, and as a stream for a device or a pipe.
func resolve(path string) (target string, stream bool, err error) {
	lst, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, false, nil
	}
	if err != nil {
		return "", false, err
	}
	st := lst
	if lst.Mode()&fs.ModeSymlink != 0 {
		if st, err = os.Stat(path); err != nil {
			return "", false, &NotRegularError{Path: path, Kind: "a symlink to a path that does not exist"}
		}
		if path, err = filepath.EvalSymlinks(path); err != nil {
			return "", false, err
		}
	}
	switch m := st.Mode(); {
	case m.IsRegular():
		return path, false, nil
	case m&fs.ModeNamedPipe != 0, m&fs.ModeCharDevice != 0:
		return path, true, nil
	default:
		return "", false, &NotRegularError{Path: path, Kind: kind(m)}
	}
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a block device"
	default:
		return "an entry of another kind (" + m.Type().String() + ")"
	}
}

// writeStream writes to a device or a pipe in place: no temporary file,
// no rename, nothing created.
func writeStream(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// replace writes a temporary file beside path and renames it over path.
func replace(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(name, perm); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	ok = true
	return nil
}

// Dir builds a folder with fill, in a temporary folder beside dst, then
// swaps it in for dst. If fill fails (or the process dies) dst is untouched.
// The previous dst is removed only after the new one is in place.
func Dir(dst string, fill func(tmp string) error) error {
	dst = filepath.Clean(dst)
	parent := filepath.Dir(dst)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	if st, err := os.Lstat(dst); err == nil && !st.IsDir() {
		return fmt.Errorf("%s exists and is not a folder; refusing to replace it", dst)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := fill(tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if _, err := os.Lstat(dst); err == nil {
		// Swap the two folders in one step where the system can: there is
		// no moment without dst, even if the process is killed right here.
		if exchange(tmp, dst) == nil {
			os.RemoveAll(tmp) // now the previous output
			return nil
		}
	}
	old := ""
	if _, err := os.Lstat(dst); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dst, old); err != nil {
			os.RemoveAll(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		if old != "" {
			os.Rename(old, dst) // put the previous output back
		}
		os.RemoveAll(tmp)
		return err
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}
