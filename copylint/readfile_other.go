//go:build !linux

package copylint

func readFile(name string, buf []byte) ([]byte, error) { return readFileOS(name, buf) }
