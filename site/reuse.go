package site

import (
	"bytes"
	"io"
	"os"
)

// reuse gives the new folder the previous build's copy of a file, by a
// hard link, when that copy holds exactly data, and reports whether it
// did. The bytes are still rendered and compared: only the file system's
// work is saved. On ext4 without a journal, creating a file scans past
// every inode freed in the last five minutes, and each build used to free
// as many as it created: a build's 160 new files, on the heels of the
// last, cost more CPU than its Markdown rendering. A linked file is never
// freed, so repeated builds stop piling up that scan.
//
// The copy must be a plain file at 0644, linked only from the old folder
// and now the new one (so no other name can change it afterwards), with
// the same bytes, read after linking: safeout.Owned checked the old folder
// before the build began, and this checks what the new folder now holds.
// Anything else, a failed link included, leaves no file and the caller
// writes a new one. got is a buffer to read into, grown as needed.
func reuse(prev, dst string, data []byte, got *[]byte) bool {
	if err := os.Link(prev, dst); err != nil {
		return false
	}
	if sameFile(dst, data, got) {
		return true
	}
	os.Remove(dst)
	return false
}

func sameFile(name string, data []byte, got *[]byte) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o644 || st.Size() != int64(len(data)) || links(st) != 2 {
		return false
	}
	// One byte more than data: a file that grew reads longer.
	if cap(*got) < len(data)+1 {
		*got = make([]byte, len(data)+1)
	}
	buf := (*got)[:len(data)+1]
	n, err := io.ReadFull(f, buf)
	return (err == io.ErrUnexpectedEOF || err == io.EOF) && n == len(data) && bytes.Equal(buf[:n], data)
}
