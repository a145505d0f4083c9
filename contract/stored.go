package contract

import (
	"fmt"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// NotCarriedOut are the statuses that say the request was not carried
// out: a timeout before the request was read (408), too early (425), a
// rate limit (429) and an overload (503). The server never stores them:
// replaying one would make every retry with the key pointless for the
// whole window, whichever stored_outcomes or stored_failures the contract
// chose.
var NotCarriedOut = []int{408, 425, 429, 503}

// Outcomes is the set of answers the server stores: stored_outcomes when
// the contract states it, and otherwise what stored_failures implies, as
// every release before stored_outcomes did: reattempt stores up to 4xx
// (a 5xx runs again), replay or no decision stores 5xx too.
func (id Idempotency) Outcomes() StoredOutcomes {
	switch {
	case id.StoredOutcomes != "":
		return id.StoredOutcomes
	case id.StoredFailures == FailuresReattempt:
		return Stored2xxTo4xx
	}
	return Stored2xxTo5xx
}

// Stores reports whether a response with this status, written by the
// handler, is stored and replayed to a retry with the same key: never an
// answer that says the request was not carried out, and otherwise when its
// class is in Outcomes. The middleware, the Idempotent requests page, the
// OpenAPI description and the rules all ask this one function.
func (id Idempotency) Stores(status int) bool {
	if slices.Contains(NotCarriedOut, status) {
		return false
	}
	switch id.Outcomes() {
	case Stored2xx:
		return status >= 200 && status < 300
	case Stored2xxTo4xx:
		return status < 500
	}
	return true
}

// StoredClass is one row of "what a retry with the same key returns": a
// class of statuses the first request may have been answered with, and
// whether that answer is stored and replayed.
type StoredClass struct {
	// Class is "2xx", "3xx", "4xx" or "5xx"; Except lists the statuses
	// of the class that are never stored (NotCarriedOut).
	Class  string
	Except []int
	// Example is one status of the class that the row's verdict holds for.
	Example int
	Stored  bool
}

// StoredClasses lists, class by class, what Stores answers, followed by
// the not-carried-out statuses as a row of their own (Class "", Example
// the first of them): the table the Idempotent requests page shows.
func (id Idempotency) StoredClasses() []StoredClass {
	var out []StoredClass
	for d := 2; d <= 5; d++ {
		var except []int
		for _, s := range NotCarriedOut {
			if s/100 == d {
				except = append(except, s)
			}
		}
		ex := d * 100 // 200, 300, 400, 500: none is in NotCarriedOut
		out = append(out, StoredClass{Class: fmt.Sprintf("%dxx", d), Except: except, Example: ex, Stored: id.Stores(ex)})
	}
	return append(out, StoredClass{Example: NotCarriedOut[0], Stored: false})
}

// StoredSummary says in one sentence which answers a retry with the same
// key gets back: the OpenAPI key header's description shows it beside
// SameRequest.
func (id Idempotency) StoredSummary() string {
	nc := JoinStatuses(NotCarriedOut, "or")
	switch id.Outcomes() {
	case Stored2xx:
		return "Only a success (2xx) is stored: a retry with the same key after any other answer runs the request again."
	case Stored2xxTo4xx:
		return fmt.Sprintf("A retry with the same key gets the stored answer back after a 2xx, 3xx or 4xx other than %s; after a 5xx or %s it runs the request again.", nc, nc)
	}
	return fmt.Sprintf("A retry with the same key gets the stored answer back, errors included, except after %s, which say the request was not carried out: then it runs the request again.", nc)
}

// JoinStatuses writes statuses as prose, the last joined by conj:
// "408, 425, 429 or 503".
func JoinStatuses(ss []int, conj string) string {
	var b []byte
	for i, s := range ss {
		switch {
		case i == len(ss)-1 && i > 0:
			b = append(b, ' ')
			b = append(b, conj...)
			b = append(b, ' ')
		case i > 0:
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(s), 10)
	}
	return string(b)
}

// checkOutcomes refuses a stored_outcomes that stored_failures contradicts:
// replay says a server error is returned again, so 5xx must be stored;
// reattempt says it runs again, so it must not be.
func (d *decoder) checkOutcomes(v *yaml.Node, p string, id *Idempotency) {
	if id.StoredOutcomes == "" || id.StoredFailures == "" {
		return
	}
	five := id.StoredOutcomes == Stored2xxTo5xx
	switch {
	case id.StoredFailures == FailuresReplay && !five:
		d.errorf(d.resolve(v), p+".stored_outcomes", "store 5xx too (stored_outcomes: 2xx-5xx), or set stored_failures: reattempt (or leave it out: stored_outcomes decides)",
			"%s.stored_outcomes %s does not store a 5xx, but stored_failures: replay says a retry gets a stored failure back", p, id.StoredOutcomes)
	case id.StoredFailures == FailuresReattempt && five:
		d.errorf(d.resolve(v), p+".stored_outcomes", "use stored_outcomes: 2xx-4xx (a 5xx runs again), or set stored_failures: replay",
			"%s.stored_outcomes 2xx-5xx stores a 5xx, but stored_failures: reattempt says a retry after one runs the request again", p)
	}
}
