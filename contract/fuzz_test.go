package contract

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// FuzzLoad: no input makes the loader panic, hang or return anything but a
// contract or a *LoadError; a loaded contract's names obey their grammars,
// so nothing unvalidated reaches a renderer. Seeds: testdata/fuzz/FuzzLoad.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(minimal))
	f.Add([]byte(Starter(StarterOptions{})))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("retryspec.yaml", data)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || len(le.Diagnostics) == 0 {
				t.Fatalf("error %T %v is not a LoadError with diagnostics", err, err)
			}
			for _, d := range le.Diagnostics {
				if d.Message == "" || strings.ContainsAny(d.Message, "\n\r") && !strings.Contains(d.Message, "%q") {
					if strings.ContainsAny(d.Message, "\n\r") {
						t.Fatalf("diagnostic spans lines: %q", d.Message)
					}
					t.Fatal("empty diagnostic")
				}
			}
			return
		}
		id := c.Idempotency
		if !headerToken(id.Header) || (id.ReplayHeader != "" && !headerToken(id.ReplayHeader)) {
			t.Fatalf("header %q / %q escaped validation", id.Header, id.ReplayHeader)
		}
		for _, cf := range []Conflict{id.Conflicts.PayloadMismatch, id.Conflicts.InFlight, id.Conflicts.MissingKey} {
			if cf.Code != "" && !errorCodeName(cf.Code) {
				t.Fatalf("code %q escaped validation", cf.Code)
			}
		}
		for _, e := range c.Endpoints {
			if _, _, err := ParseOperation(e.Method + " " + e.Path); err != nil {
				t.Fatalf("operation %q escaped validation: %v", e.Operation, err)
			}
			for _, s := range append(append([]string{}, e.ExternalCalls...), e.RecoveryPoints...) {
				if !codeName(s) {
					t.Fatalf("identifier %q escaped validation", s)
				}
			}
			if validText(e.UnsafeToRetry, 500) != nil || validText(e.Summary, 200) != nil {
				t.Fatalf("text escaped validation: %q", e.UnsafeToRetry)
			}
		}
		if validText(c.API.Name, 100) != nil || validBaseURL(c.API.BaseURL) != nil && c.API.BaseURL != "" {
			t.Fatalf("api %+v escaped validation", c.API)
		}
		for _, d := range id.Derivation {
			if validText(d.Example, 200) != nil {
				t.Fatalf("example %q escaped validation", d.Example)
			}
		}
	})
}

// FuzzParseDuration: the parser never panics, never returns a negative or
// over-long duration, and what it accepts survives a format round trip.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"250ms", "24h", "7d", "1h30m", "1.5s", "24", "", "1h1h", "-1s", "9999999999d", ".5m", "1e9s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			return
		}
		if d < 0 || d > maxDuration {
			t.Fatalf("ParseDuration(%q) = %v, out of bounds", s, d)
		}
		back, err := ParseDuration(FormatDuration(d))
		if d >= time.Millisecond && (err != nil || back.Truncate(time.Millisecond) != d.Truncate(time.Millisecond)) {
			t.Fatalf("round trip of %q: %v -> %q -> %v, %v", s, d, FormatDuration(d), back, err)
		}
	})
}
