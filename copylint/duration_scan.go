package copylint

import "strings"

// durationSpans is reDuration.FindAllStringIndex(s, -1) written out: the
// reader looks for durations in every sentence it reads, and the
// pattern's alternatives made the regexp engine's backtracker the largest
// single cost of a reading. FuzzDurationSpans compares the two.
//
// The pattern matches at a word's start a figure ("1,440", "2.5") and its
// unit, with a space or a dash between or nothing, or a number word
// ("twenty-four", "a couple of") and a unit word, with one space or dash
// and an optional "full", "whole", "entire" or "single" between; the
// unit ends a word. The regexp takes the first alternative that leads to
// a match, in the pattern's order; for a figure at most one reading can
// lead to one (a shorter figure leaves a digit, a comma or a point where
// the unit must start), so only the number words need their order.
func durationSpans(s string) [][]int {
	var out [][]int
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) || i > 0 && isWordByte(s[i-1]) {
			continue
		}
		end := figureDurationEnd(s, i)
		if end < 0 {
			end = wordDurationEnd(s, i)
		}
		if end >= 0 {
			out = append(out, []int{i, end})
			i = end - 1
		}
	}
	return out
}

// figureDurationEnd is where the figure and unit starting at s[i] end,
// -1 for none.
func figureDurationEnd(s string, i int) int {
	j := digitsEnd(s, i)
	if j == i {
		return -1
	}
	// Thousands grouped by commas need one to three digits first.
	if j-i <= 3 {
		k := j
		for k+4 <= len(s) && s[k] == ',' && digitsEnd(s, k+1) >= k+4 {
			k += 4
		}
		if k > j {
			j = k
		}
	}
	if j+1 < len(s) && s[j] == '.' && digitsEnd(s, j+1) > j+1 {
		j = digitsEnd(s, j+1)
	}
	if j < len(s) && (s[j] == ' ' || s[j] == '-') {
		if end := unitWordEnd(s, j+1, figureUnits); end >= 0 {
			return end
		}
	}
	return unitWordEnd(s, j, figureUnits)
}

// wordDurationEnd is where the number word and unit word starting at
// s[i] end, -1 for none.
func wordDurationEnd(s string, i int) int {
	for _, w := range durationWordsByFirst[s[i]] {
		if !strings.HasPrefix(s[i:], w) {
			continue
		}
		j := i + len(w)
		if j >= len(s) || s[j] != ' ' && s[j] != '-' {
			continue
		}
		j++
		for _, q := range durationQualifiers {
			if strings.HasPrefix(s[j:], q) {
				if end := unitWordEnd(s, j+len(q), wordUnits); end >= 0 {
					return end
				}
				break
			}
		}
		if end := unitWordEnd(s, j, wordUnits); end >= 0 {
			return end
		}
	}
	return -1
}

// digitsEnd is the end of the run of ASCII digits at s[i].
func digitsEnd(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// unitWordEnd is the end of the word at s[i] when it is one of units
// (the pattern's unit must end a word), -1 otherwise.
func unitWordEnd(s string, i int, units map[string]bool) int {
	j := i
	for j < len(s) && isWordByte(s[j]) {
		j++
	}
	if j == i || !units[s[i:j]] {
		return -1
	}
	return j
}

// The pattern's parts, spelled out: its number words in the order it
// tries them (an optional letter or word tried first with it; hasDuration
// and durationAt, which ask only whether one is there, read them too),
// the qualifiers, and the units after a figure and after a word.
var (
	durationWordsInOrder = []string{"half an", "half a", "a couple of", "couple of", "several", "a few", "an", "a",
		"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "fourteen",
		"fifteen", "eighteen", "twenty", "twenty-four", "thirty", "thirty-six", "forty", "forty-five", "forty-eight",
		"fifty", "sixty", "seventy-two", "ninety"}
	durationWordsByFirst = byFirstByte(durationWordsInOrder)
	durationQualifiers   = []string{"full ", "whole ", "entire ", "single "}
	figureUnits          = wordSet("millisecond", "milliseconds", "ms", "second", "seconds", "sec", "secs", "s",
		"minute", "minutes", "min", "mins", "m", "hour", "hours", "hr", "hrs", "h", "day", "days", "d",
		"week", "weeks", "w", "fortnight", "fortnights", "month", "months", "year", "years")
	wordUnits = wordSet("millisecond", "milliseconds", "second", "seconds", "minute", "minutes", "hour", "hours",
		"day", "days", "week", "weeks", "fortnight", "fortnights", "month", "months", "year", "years")
)

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
