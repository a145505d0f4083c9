//go:build !linux

package atomicwrite

import "errors"

// exchange: no atomic swap here; Dir falls back to two renames.
func exchange(a, b string) error { return errors.ErrUnsupported }
