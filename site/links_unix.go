//go:build unix

package site

import (
	"io/fs"
	"syscall"
)

// links is a file's hard link count (0 when unknown).
func links(st fs.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Nlink)
	}
	return 0
}
