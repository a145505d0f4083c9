package copylint

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// scanGateFragments build the sentences the byte-scan gates of the
// contract checks are tested on: the words, figures and boundaries their
// patterns turn on, joined at random, so that every edge (a word inside a
// longer word, a count glued to a letter, a unit cut short) comes up.
var scanGateFragments = []string{
	"retry", "retries", "retr", "xretry", "_retry", "wait", "waits", "await", "delay", "delays", "attempt", "attempts", "attemptsx",
	"attempted", "tries", "triesx", "entries", "backoff", "backoffs", "give up", "gives up", "give upx", "gives", "up",
	"up to", "at most", "a maximum of", "a total of", "total", "more", "automatic", "times", "time", "retry attempts",
	"0", "1", "5", "12", "1.5", "24", "x5", "one", "two", "three", "ten", "twelve", "fifteen", "twenty", "someone", "a", "an",
	"twenty-four", "forty-eight", "seventy-two", "ninety", "hundred", "and", "eighty-five", "thirteen", "a hundred", "thousand", "ms", "s", "m", "h", "d", "w", "milliseconds", "second", "seconds",
	"secs", "minute", "minutes", "mins", "hour", "hours", "hrs", "day", "days", "week", "weeks", "wk", "x", "é",
	" ", " ", " ", " ", "-", "-", ".", ",", "_", "(", ")", "\"",
	"initial", "base", "first", "starting", "start", "starts", "at", "with", "from", "interval", "is", "of", ":", "about",
	"around", "for", "after", "every", "sleep", "pause", "waiting", "retrying", "a 5", "an hour",
	"initial delay", "base backoff", "first retry wait", "starting interval", "starts at", "start with", "starting from a",
}

func randomGateSentence(r *rand.Rand) []byte {
	var b strings.Builder
	for n := r.Intn(12); n >= 0; n-- {
		b.WriteString(scanGateFragments[r.Intn(len(scanGateFragments))])
		if r.Intn(3) > 0 {
			b.WriteByte(' ')
		}
	}
	return []byte(b.String())
}

// TestScanGates checks the byte scans of contractChecks.matchSentence
// against the patterns they stand for: retryish answers exactly as
// reRetryish, and the other two never say no where a pattern they guard
// matches.
func TestScanGates(t *testing.T) {
	testenv.SkipUnderRace(t, "checks the byte scans against their patterns on 20,000 random sentences")
	r := rand.New(rand.NewSource(17))
	reDur := regexp.MustCompile(durationAlt)
	var counts, durations, retry, fixed, base int
	for i := 0; i < 20000; i++ {
		s := randomGateSentence(r)
		if got, want := retryish(s), reRetryish.Match(s); got != want {
			t.Fatalf("retryish(%q) = %v, reRetryish says %v", s, got, want)
		} else if want {
			retry++
		}
		if (reAttempts.Match(s) || reRetries.Match(s)) && !countBeforeAttemptWord(s) {
			t.Fatalf("countBeforeAttemptWord(%q) = false, but an attempt pattern matches", s)
		} else if reAttempts.Match(s) || reRetries.Match(s) {
			counts++
		}
		for _, re := range []*regexp.Regexp{reDur, reBaseDelay, reCapDelay, reFixedWait, reGiveUp} {
			if re.Match(s) && !hasDuration(s) {
				t.Fatalf("hasDuration(%q) = false, but %v matches", s, re)
			}
		}
		if reDur.Match(s) {
			durations++
		}
		if reFixedWait.Match(s) {
			fixed++
			if !fixedWaitMay(s) {
				t.Fatalf("fixedWaitMay(%q) = false, but reFixedWait matches", s)
			}
		}
		if reBaseDelay.Match(s) {
			base++
			if !baseDelayMay(s) {
				t.Fatalf("baseDelayMay(%q) = false, but reBaseDelay matches", s)
			}
		}
	}
	// The test must have seen each pattern match, or it proves nothing.
	if retry < 1000 || counts < 50 || durations < 500 || fixed < 50 || base < 20 {
		t.Fatalf("too few matches to test with: retry %d, counts %d, durations %d, fixed waits %d, base delays %d", retry, counts, durations, fixed, base)
	}
	t.Logf("matches: retry %d, counts %d, durations %d, fixed waits %d, base delays %d", retry, counts, durations, fixed, base)
}

// TestOtherHeaderName checks that otherHeaderName never passes over a
// sentence in which header() finds a name to report.
func TestOtherHeaderName(t *testing.T) {
	k := newContractChecks(prefilterContract(t))
	frags := []string{"idempotency-key", "x-idempotency-key", "idempotent-replayed", "idempotency-replayed", "idempotency-token",
		"my-idempotency-id", "idempotency", "idempotent", "key", "-", "_", ".", ",", " ", " ", "x", "9", "header", "replay", k.header, k.replay}
	r := rand.New(rand.NewSource(19))
	found := 0
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := r.Intn(8); n >= 0; n-- {
			b.WriteString(frags[r.Intn(len(frags))])
			if r.Intn(2) == 0 {
				b.WriteByte(' ')
			}
		}
		s := b.String()
		report := false
		for _, m := range k.reHeaderish.FindAllStringSubmatchIndex(s, -1) {
			loc := groupAt(k.reHeaderish, m, "name")
			if name := s[loc[0]:loc[1]]; name != k.header && (k.replay == "" || name != k.replay) && strings.Contains(name, "-") {
				report = true
			}
		}
		if report {
			found++
			if !k.otherHeaderName([]byte(s)) {
				t.Fatalf("otherHeaderName(%q) = false, but header() reports a name in it", s)
			}
		}
	}
	if found < 500 {
		t.Fatalf("only %d sentences with a name to report: the test proves little", found)
	}
}
