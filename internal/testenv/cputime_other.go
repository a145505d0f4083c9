//go:build !unix

package testenv

import "time"

// CPUTime is not measured on this platform; bounds on it always hold.
func CPUTime() time.Duration { return 0 }

// CPUTimeMeasured reports whether CPUTime measures anything here.
const CPUTimeMeasured = false
