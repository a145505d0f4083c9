package contract

import (
	"strings"
	"testing"
)

// TestStoredOutcomes: which answers are stored follows stored_outcomes,
// or stored_failures when it is absent (today's behaviour unchanged); the
// not-carried-out statuses never are; a stored_outcomes that
// stored_failures contradicts is refused at its position with a fix.
func TestStoredOutcomes(t *testing.T) {
	statuses := []int{200, 201, 302, 400, 409, 422, 408, 425, 429, 500, 502, 503, 504}
	for _, tt := range []struct {
		lines string
		want  StoredOutcomes
		// stored lists the statuses of statuses that are stored.
		stored []int
	}{
		{"  stored_failures: replay\n", Stored2xxTo5xx, []int{200, 201, 302, 400, 409, 422, 500, 502, 504}},
		{"  scope: account\n", Stored2xxTo5xx, []int{200, 201, 302, 400, 409, 422, 500, 502, 504}},
		{"  stored_failures: reattempt\n", Stored2xxTo4xx, []int{200, 201, 302, 400, 409, 422}},
		{"  stored_outcomes: 2xx\n", Stored2xx, []int{200, 201}},
		{"  stored_failures: reattempt\n  stored_outcomes: 2xx\n", Stored2xx, []int{200, 201}},
		{"  stored_outcomes: 2xx-4xx\n", Stored2xxTo4xx, []int{200, 201, 302, 400, 409, 422}},
		{"  stored_failures: replay\n  stored_outcomes: 2xx-5xx\n", Stored2xxTo5xx, []int{200, 201, 302, 400, 409, 422, 500, 502, 504}},
	} {
		c, err := Parse("c.yaml", []byte(errorBodyBase+"idempotency:\n"+tt.lines))
		if err != nil {
			t.Fatalf("%q: %v", tt.lines, err)
		}
		id := c.Idempotency
		if got := id.Outcomes(); got != tt.want {
			t.Errorf("%q: Outcomes() = %s, want %s", tt.lines, got, tt.want)
		}
		for _, s := range statuses {
			want := false
			for _, w := range tt.stored {
				want = want || w == s
			}
			if got := id.Stores(s); got != want {
				t.Errorf("%q: Stores(%d) = %v, want %v", tt.lines, s, got, want)
			}
		}
	}
	for _, tt := range []struct{ lines, want string }{
		{"  stored_failures: replay\n  stored_outcomes: 2xx-4xx\n", "c.yaml:7:20: idempotency.stored_outcomes 2xx-4xx does not store a 5xx, but stored_failures: replay"},
		{"  stored_failures: replay\n  stored_outcomes: 2xx\n", "c.yaml:7:20: idempotency.stored_outcomes 2xx does not store a 5xx"},
		{"  stored_failures: reattempt\n  stored_outcomes: 2xx-5xx\n", "c.yaml:7:20: idempotency.stored_outcomes 2xx-5xx stores a 5xx, but stored_failures: reattempt"},
		{"  stored_outcomes: 2xx-3xx\n", `c.yaml:6:20: idempotency.stored_outcomes: "2xx-3xx" is not a valid value`},
	} {
		_, err := Parse("c.yaml", []byte(errorBodyBase+"idempotency:\n"+tt.lines))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "fix:") && !strings.Contains(err.Error(), "did you mean") && !strings.Contains(err.Error(), "use one of") {
			t.Errorf("%q: got %v, want %q with a fix", tt.lines, err, tt.want)
		}
	}
}

// TestStoredSentences: the page's rows and the OpenAPI sentence say what
// Stores answers.
func TestStoredSentences(t *testing.T) {
	for _, tt := range []struct {
		o       StoredOutcomes
		stored  string // classes stored, in order
		summary string
	}{
		{Stored2xx, "2xx", "Only a success (2xx) is stored"},
		{Stored2xxTo4xx, "2xx 3xx 4xx", "after a 5xx or 408, 425, 429 or 503 it runs the request again"},
		{Stored2xxTo5xx, "2xx 3xx 4xx 5xx", "errors included, except after 408, 425, 429 or 503"},
	} {
		id := Idempotency{StoredOutcomes: tt.o}
		var got []string
		rows := id.StoredClasses()
		for _, r := range rows {
			if r.Stored {
				got = append(got, r.Class)
			}
			if r.Stored != id.Stores(r.Example) {
				t.Errorf("%s: row %s says stored %v, Stores(%d) says %v", tt.o, r.Class, r.Stored, r.Example, id.Stores(r.Example))
			}
		}
		if strings.Join(got, " ") != tt.stored {
			t.Errorf("%s: stored classes %v, want %s", tt.o, got, tt.stored)
		}
		if last := rows[len(rows)-1]; last.Class != "" || last.Stored {
			t.Errorf("%s: last row %+v, want the never-stored statuses", tt.o, last)
		}
		if s := id.StoredSummary(); !strings.Contains(s, tt.summary) {
			t.Errorf("%s: summary %q, want it to contain %q", tt.o, s, tt.summary)
		}
	}
}
