package contract

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Duration is a contract duration. Text keeps the spelling the user wrote
// ("7d", "1h30m") so messages quote the contract back in its own terms.
type Duration struct {
	D    time.Duration
	Text string
}

// IsZero reports whether the duration is absent (or zero).
func (d Duration) IsZero() bool { return d.D == 0 }

// String returns the user's spelling, or a canonical one for computed values.
func (d Duration) String() string {
	if d.Text != "" {
		return d.Text
	}
	return FormatDuration(d.D)
}

// Dur builds a Duration from a time.Duration with canonical text.
func Dur(d time.Duration) Duration { return Duration{D: d} }

// Seconds is the duration in seconds, as a float.
func (d Duration) Seconds() float64 { return d.D.Seconds() }

var unitSizes = []struct {
	unit string
	size time.Duration
}{
	{"d", 24 * time.Hour},
	{"h", time.Hour},
	{"m", time.Minute},
	{"s", time.Second},
	{"ms", time.Millisecond},
}

// maxDuration bounds contract durations at 10 years (3650d), far beyond
// any sensible window, so the products rules and pages compute from them
// (three windows, twenty attempts) stay far from time.Duration's 292-year
// limit: at 100 years a 36500d window printed as -104003d in a fix.
// MaxFigure (values_safe.go) bounds the products themselves.
const maxDuration = MaxFigure

// ParseDuration parses the contract's duration syntax: one or more
// number+unit terms with units ms, s, m, h or d ("250ms", "24h", "7d",
// "1h30m", "1.5s"). A bare number is an error: the unit is never guessed.
func ParseDuration(s string) (time.Duration, error) {
	orig := s
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty duration")
	}
	if isAllDigits(s) {
		return 0, fmt.Errorf("%q has no unit; write it as %ss, %sm, %sh or %sd", orig, s, s, s, s)
	}
	var total float64
	seen := map[string]bool{}
	for s != "" {
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("%q is not a duration: expected a number at %q (durations look like 250ms, 30s, 24h, 7d, 1h30m)", orig, s)
		}
		num := s[:i]
		if strings.Count(num, ".") > 1 || num == "." || len(num) > 15 {
			return 0, fmt.Errorf("%q is not a duration: bad number %q", orig, num)
		}
		s = s[i:]
		j := 0
		for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
			j++
		}
		unit := strings.ToLower(s[:j])
		s = s[j:]
		if unit == "" {
			return 0, fmt.Errorf("%q: %s has no unit (ms, s, m, h or d)", orig, num)
		}
		var size time.Duration
		for _, u := range unitSizes {
			if u.unit == unit {
				size = u.size
			}
		}
		if size == 0 {
			return 0, fmt.Errorf("%q: unknown unit %q; use ms, s, m, h or d", orig, unit)
		}
		if seen[unit] {
			return 0, fmt.Errorf("%q: unit %q appears twice", orig, unit)
		}
		seen[unit] = true
		var v float64
		if _, err := fmt.Sscanf(num, "%g", &v); err != nil {
			return 0, fmt.Errorf("%q is not a duration: bad number %q", orig, num)
		}
		total += v * float64(size)
		if total > float64(maxDuration) || math.IsInf(total, 0) || math.IsNaN(total) {
			return 0, fmt.Errorf("%q is longer than the maximum of 3650d (10 years)", orig)
		}
	}
	// The finest unit is ms; a finer fraction ("100.000001s") could not be
	// written back in this syntax, so it is refused rather than rounded
	// away (found by FuzzParseDuration). 1 ns of slack absorbs float error.
	ms := float64(time.Millisecond)
	if rem := math.Mod(total, ms); rem > 1 && rem < ms-1 {
		return 0, fmt.Errorf("%q is finer than a millisecond; round it to whole ms", orig)
	}
	return time.Duration(total).Round(time.Millisecond), nil
}

func isAllDigits(s string) bool {
	for _, r := range s {
		if (r < '0' || r > '9') && r != '.' {
			return false
		}
	}
	return true
}

// FormatDuration writes d in the contract's syntax with the largest units
// first: 7d, 1d12h, 1h30m, 250ms, 1.5s stays 1s500ms.
func FormatDuration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	var b strings.Builder
	if d < 0 {
		b.WriteByte('-')
		d = -d
	}
	for _, u := range unitSizes {
		if n := d / u.size; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, u.unit)
			d -= n * u.size
		}
	}
	if d > 0 { // sub-millisecond remainder
		fmt.Fprintf(&b, "%dus", d/time.Microsecond)
	}
	return b.String()
}

// HumanDuration writes d for prose: "7 days", "24 hours", "30 seconds",
// "1 hour 30 minutes", "250 milliseconds".
func HumanDuration(d time.Duration) string {
	if d == 0 {
		return "0 seconds"
	}
	names := map[string][2]string{
		"d": {"day", "days"}, "h": {"hour", "hours"}, "m": {"minute", "minutes"},
		"s": {"second", "seconds"}, "ms": {"millisecond", "milliseconds"},
	}
	var parts []string
	for _, u := range unitSizes {
		if n := d / u.size; n > 0 {
			name := names[u.unit][1]
			if n == 1 {
				name = names[u.unit][0]
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, name))
			d -= n * u.size
		}
	}
	if len(parts) == 0 {
		return FormatDuration(d)
	}
	return strings.Join(parts, " ")
}
