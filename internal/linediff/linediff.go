// Package linediff compares two texts line by line for tests that promise
// an edit only adds lines (openapi --merged, the hostile suite): it names
// the lines of the input a line diff shows as removed or changed. For
// tests only.
package linediff

import "strings"

// Removed is the lines of a that a line diff against b shows as removed:
// those outside a longest common subsequence of the two, trimmed of
// surrounding white space.
func Removed(a, b []string) []string {
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < len(a) {
		switch {
		case j < len(b) && a[i] == b[j]:
			i, j = i+1, j+1
		case j < len(b) && lcs[i][j+1] >= lcs[i+1][j]:
			j++
		default:
			out = append(out, strings.TrimSpace(a[i]))
			i++
		}
	}
	return out
}
