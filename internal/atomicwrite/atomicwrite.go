// Package atomicwrite writes outputs so that a reader never sees a half
// written file and a failed or interrupted run leaves the previous output
// in place: everything is written beside the target, then renamed over it.
package atomicwrite

import (
	"fmt"
	"os"
	"path/filepath"
)

// File writes data to path through a temporary file in the same folder and
// renames it into place.
func File(path string, data []byte, perm os.FileMode) error {
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
