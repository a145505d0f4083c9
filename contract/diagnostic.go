package contract

import (
	"fmt"
	"strings"
)

// Diagnostic is a problem that stops the contract from loading: the file is
// unreadable, not YAML, or breaks the format. Every diagnostic has a position
// and, where one exists, a fix.
type Diagnostic struct {
	File    string
	Pos     Pos
	Path    string // dotted contract path, when known
	Message string
	Fix     string
}

func (d Diagnostic) String() string {
	var b strings.Builder
	if d.Pos.IsZero() {
		fmt.Fprintf(&b, "%s: %s", d.File, d.Message)
	} else {
		fmt.Fprintf(&b, "%s:%d:%d: %s", d.File, d.Pos.Line, d.Pos.Column, d.Message)
	}
	if d.Fix != "" {
		fmt.Fprintf(&b, " (fix: %s)", d.Fix)
	}
	return b.String()
}

// LoadError carries every diagnostic found while loading one contract, in
// file order. Commands print them and exit 2.
type LoadError struct {
	File        string
	Source      []byte
	Diagnostics []Diagnostic
}

func (e *LoadError) Error() string {
	if len(e.Diagnostics) == 1 {
		return e.Diagnostics[0].String()
	}
	lines := make([]string, len(e.Diagnostics))
	for i, d := range e.Diagnostics {
		lines[i] = d.String()
	}
	return fmt.Sprintf("%d problems in %s:\n%s", len(e.Diagnostics), e.File, strings.Join(lines, "\n"))
}

// SourceLine returns line n of the file that failed to load ("" if unknown).
func (e *LoadError) SourceLine(n int) string { return sourceLine(e.Source, n) }

// DidYouMean returns the candidate closest to s, or "" if none is close
// enough to suggest: for mistyped keys, values and rule IDs.
func DidYouMean(s string, candidates []string) string { return didYouMean(s, candidates) }

func didYouMean(s string, candidates []string) string {
	best, bestDist := "", 1<<30
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		if d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := len(s) / 3
	if limit < 2 {
		limit = 2
	}
	if bestDist <= limit {
		return best
	}
	// A prefix or substring match catches "window" for "replay_window".
	for _, c := range candidates {
		if len(s) >= 4 && (strings.Contains(c, s) || strings.Contains(s, c)) {
			return c
		}
	}
	return ""
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 20
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
