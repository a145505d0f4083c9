package copylint

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// Patterns whose split (alternativesOf), rewriting (reSource) and
// literal start (gateAlt.lit) meet every edge: a \b after a word byte, an
// underscore or a non-ASCII letter, assertions inside and at the end,
// case-insensitive literals, non-greedy and counted repeats, classes
// beyond ASCII, an alternative without a gate.
var splitPatterns = []string{
	`\b(retry|retries|resend) (any|every) (error|failure)s?\b`,
	`\b(key|keys)( [a-z0-9-]+){0,3}? (kept|stored)\b|\bno (key|header)$`,
	`\bnever (twice|again)|^(always|only) once\b`,
	`(?i)\b(Exactly|at most) once\b|\bduplicat\w*`,
	`\bidempoten(t|cy)\b[^.;?]{0,20}?\b(safe|free)\b`,
	`\b(é|über|naïve) (retry|retries)\b|\bfoo_bar (baz|qux)`,
	`\b(retry|resend)\B\w*|\b(wait|sleep)s?(?m:$)`,
	`(?s)\b(once|twice).(only|again)\b|\bnot (?:once|twice)\z`,
	`\b(a|an) (retry|repeat)|\bthe (same|old) key\b`,
	`\b(retr\w*|re-?send\w*) (is|are) (safe|fine)\b`,
}

var splitFragments = []string{
	"retry", "retries", "resend", "re-send", "any", "every", "error", "errors", "failure", "failures",
	"key", "keys", "kept", "stored", "no", "header", "never", "twice", "again", "always", "only", "once",
	"Exactly", "exactly", "at most", "duplicate", "duplicated", "idempotent", "idempotency", "safe", "free",
	"é", "über", "naïve", "foo_bar", "baz", "qux", "retrying", "wait", "waits", "sleep", "not", "a", "an",
	"repeat", "the", "same", "old", "is", "are", "fine", "retry any error", "resend every failures", "retries any", "retrying is", "re-sending are", "are safe", "x", "_", "9", "é", "\n", ".", ";", "?", "-", " ", " ", " ",
}

// TestSplitGateAgrees checks the split gate against the bare pattern on
// random sentences of the words the patterns turn on, glued to each other
// or apart: Match must answer as the pattern does, and pass must never
// say no where it matches.
func TestSplitGateAgrees(t *testing.T) {
	testenv.SkipUnderRace(t, "checks the split gate against its pattern on random sentences")
	r := rand.New(rand.NewSource(29))
	for _, p := range splitPatterns {
		re := regexp.MustCompile(p)
		g := newGatedRE(re).built()
		if g.alts == nil {
			t.Errorf("%s: not split", p)
		}
		matched := 0
		for i := 0; i < 30000; i++ {
			var b strings.Builder
			for n := r.Intn(6); n >= 0; n-- {
				b.WriteString(splitFragments[r.Intn(len(splitFragments))])
				if r.Intn(4) > 0 {
					b.WriteByte(' ')
				}
			}
			s := []byte(b.String())
			want := re.Match(s)
			if got := g.Match(s); got != want {
				t.Fatalf("%s on %q: split gate %v, pattern %v", p, s, got, want)
			}
			if want && !g.pass(s) {
				t.Fatalf("%s on %q: pass says no, the pattern matches", p, s)
			}
			if want {
				matched++
			}
		}
		if matched < 10 {
			t.Errorf("%s: only %d of the sentences match; the test says little", p, matched)
		}
	}
}

// TestAltLiteralStart checks the literal start on the cases that turn on
// the byte before the literal.
func TestAltLiteralStart(t *testing.T) {
	g := newGatedRE(regexp.MustCompile(`\b(retry|resend) (now|later)\b`)).built()
	for _, a := range g.alts {
		if a.lit == nil {
			t.Fatalf("%s: no literal start", a.src)
		}
	}
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"retry now", true},
		{"xretry now", false},
		{"_retry now", false},
		{"9retry now", false},
		{"éretry now", true}, // é is no word character to Go's \b
		{"-retry now", true},
		{"retry retry now", true},
		{"retryretry now", false},
		{"resend laterx", false},
		{"a resend later", true},
	} {
		if got := g.Match([]byte(tc.text)); got != tc.want {
			t.Errorf("%q: got %v, want %v", tc.text, got, tc.want)
		}
	}
}

// reSource writes a pattern that matches what the parsed one does.
func TestReSource(t *testing.T) {
	texts := []string{"", "x\nalways once", "not once\nx", "a", "Once", "ONCE only", "x\ny", "é ü", "foo_bar", "retry-safe", "a.b", "end\n", "[x]", "{1}"}
	for _, p := range append(splitPatterns, `a{2,}`, `a{2}`, `(?U)a+b`, `[^a-z]`, `.`, `(?s).`, `\{\}\[\]\.\*\+\?\(\)\|\^\$\\`, `x*?`, `[\x{100}-\x{10FFFF}]`, `(?i)[k]`) {
		st, err := parseSimplified(p)
		if err != nil {
			t.Fatal(err)
		}
		src := reSource(st)
		re, err := regexp.Compile(src)
		if err != nil {
			t.Fatalf("%s: %s does not compile: %v", p, src, err)
		}
		orig := regexp.MustCompile(p)
		for _, s := range append(texts, splitFragments...) {
			if got, want := re.MatchString(s), orig.MatchString(s); got != want {
				t.Errorf("%s (as %s) on %q: %v, want %v", p, src, s, got, want)
			}
		}
	}
}
