package copylint

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// FuzzDurationSpans: durationSpans finds what reDuration finds.
func FuzzDurationSpans(f *testing.F) {
	for _, s := range []string{
		"", "keys are kept for 24 hours", "1,440 minutes or 1,000,000ms", "12,5 days", "1,0000 days", "1.5.3 days",
		"2.5-hour window", "5x5 days", "5 days2", "twenty-four hours", "twenty four hours", "seventy-two hours, not seven days",
		"a couple of days", "couple of weeks", "half an hour and half a day", "a full week", "an entire-day", "a  day",
		"several months", "a few secs", "_5 s", "x5 s", "5 m.", "10ms;30s", "3 -days", "forty-eight-hour hold", "ten years_",
		"one single day", "a whole", "9 min", "1,00 days", "999,999.99 years", "Five Days", "héllo 3 dayséé",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := durationSpans(s), reDuration.FindAllStringIndex(s, -1)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("durationSpans(%q) = %v, want %v", s, got, want)
		}
	})
}

// TestDurationSpansOnProse: durationSpans finds what reDuration finds in
// every labelled sentence, as written and normalized, and on every line
// of the shared corpora when they are there.
func TestDurationSpansOnProse(t *testing.T) {
	testenv.SkipUnderRace(t, "runs the pattern on every labelled and corpus text")
	var texts []string
	for _, f := range labelledRowFiles(t) {
		texts = append(texts, string(f.data), normalizedProse(string(f.data)))
	}
	for _, f := range sharedCorpusFiles(t) {
		texts = append(texts, strings.Split(string(f.data), "\n")...)
	}
	found := 0
	for _, s := range texts {
		got, want := durationSpans(s), reDuration.FindAllStringIndex(s, -1)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("durationSpans(%q) = %v, want %v", s, got, want)
		}
		found += len(got)
	}
	if found < 1000 {
		t.Fatalf("only %d durations in %d texts: the labelled sets should hold more", found, len(texts))
	}
	t.Logf("%d durations in %d texts", found, len(texts))
}

// FuzzNextOfTwo: nextOfTwo answers as bytes.IndexAny does, for starts
// that only grow (markupInWord's).
func FuzzNextOfTwo(f *testing.F) {
	for _, s := range []string{"", "<", "a<b{c", "{{<<", "e<span></span>xactly", "no markup", "x{/* */}y<!-- -->z"} {
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, s string, step uint8) {
		src := []byte(s)
		next := nextOfTwo{a: '<', b: '{', atA: -1, atB: -1}
		for i := 0; i <= len(src); i += int(step%7) + 1 {
			want := bytes.IndexAny(src[i:], "<{")
			if want >= 0 {
				want += i
			}
			if got := next.from(src, i); got != want {
				t.Fatalf("from(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
	})
}

// reEmphatic is the pattern emphaticFollows spells out.
var reEmphatic = regexp.MustCompile(`^ (ever|not ever|never|not once|period|full stop|guaranteed|forever|for good|every time|no exceptions)[.!]*( |$)`)

// FuzzEmphaticFollows: emphaticFollows answers as the pattern it spells
// out does.
func FuzzEmphaticFollows(f *testing.F) {
	for _, s := range []string{"", " ever.", " ever", " every time!", " every", " everything", " never..! then", " not ever", " not", "ever.", "  ever", " period.x", " full stop", " for good. ", " forever!!"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := emphaticFollows([]byte(s)), reEmphatic.MatchString(s); got != want {
			t.Fatalf("emphaticFollows(%q) = %v, want %v", s, got, want)
		}
	})
}
