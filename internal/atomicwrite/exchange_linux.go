package atomicwrite

import "golang.org/x/sys/unix"

// exchange atomically swaps two paths (renameat2 RENAME_EXCHANGE, Linux
// 3.15+). It fails on file systems without support; Dir then falls back
// to two renames.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
