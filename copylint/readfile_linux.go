//go:build linux

package copylint

import (
	"fmt"
	"io/fs"
	"syscall"
)

// readFile is readFileOS in four system calls (open, fstat, read, close)
// instead of os.Open's seven or so: os.Open on Linux tries to register
// every file with the network poller (two fcntl calls and an epoll_ctl
// that fails for a regular file) and allocates a File with a finalizer.
// A copy run opens tens of thousands of small files, and those calls were
// a tenth of its CPU time. The answers and messages are readFileOS's.
//
// O_NONBLOCK changes nothing for a regular file; a FIFO named on the
// command line opens at once (instead of waiting for a writer) and is
// skipped as not a regular file.
func readFile(name string, buf []byte) ([]byte, error) {
	fd, err := retryEINTR(func() (int, error) {
		return syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	})
	if err != nil {
		return nil, &skipError{"cannot be read: " + unwrapPathErr(&fs.PathError{Op: "open", Path: name, Err: err}).Error()}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if _, err := retryEINTR(func() (int, error) { return 0, syscall.Fstat(fd, &st) }); err != nil {
		return nil, &skipError{"cannot be read: " + unwrapPathErr(&fs.PathError{Op: "stat", Path: name, Err: err}).Error()}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, &skipError{"not a regular file"}
	}
	if st.Size > MaxFileSize {
		return nil, &skipError{fmt.Sprintf("larger than %d MiB, which copy is not", MaxFileSize>>20)}
	}
	n := int(st.Size)
	if cap(buf) < n {
		buf = make([]byte, 0, n+4096)
	}
	// Read exactly the size fstat reported, as readFileOS does.
	buf = buf[:n]
	k := 0
	for k < n {
		m, err := retryEINTR(func() (int, error) { return syscall.Read(fd, buf[k:]) })
		if err != nil {
			return nil, &skipError{"cannot be read: " + unwrapPathErr(&fs.PathError{Op: "read", Path: name, Err: err}).Error()}
		}
		if m == 0 {
			break // shorter than fstat said: read as it is now
		}
		k += m
	}
	return buf[:k], nil
}

func retryEINTR(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != syscall.EINTR {
			return n, err
		}
	}
}
