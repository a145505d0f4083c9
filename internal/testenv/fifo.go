package testenv

import (
	"io"
	"os"
)

// ReadAllLater opens path for reading in a goroutine (a FIFO's open
// blocks until a writer comes) and sends everything read, or the error
// text, on the channel: the reader a test of writing to a pipe needs.
func ReadAllLater(path string) <-chan string {
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	return got
}
