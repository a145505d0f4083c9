//go:build !unix

package site

import "io/fs"

// links is a file's hard link count: unknown here, so reuse never keeps a
// link.
func links(fs.FileInfo) uint64 { return 0 }
