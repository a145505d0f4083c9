package faultserver

import (
	"fmt"
	"net/http"
	"time"
)

// StampProblem judges a first-sent value as the request that first
// carried it: an IMF-fixdate of a time between the client program's start
// and that request's arrival, both on this machine's clock. It returns
// what is wrong, to follow the header and the value in a sentence ("is
// not an HTTP date"), or "". The snippet suite and `verify client` judge
// the stamp with it, so the two cannot disagree.
func StampProblem(value string, started, arrived time.Time) string {
	at, err := http.ParseTime(value)
	if err != nil {
		return "is not an HTTP date"
	}
	if fixed := at.UTC().Format(http.TimeFormat); fixed != value {
		return fmt.Sprintf("is not an IMF-fixdate: send %q", fixed)
	}
	// An HTTP date drops the fraction of its second, hence the second's
	// margin before the start.
	if at.Before(started.Add(-time.Second)) || at.After(arrived) {
		return fmt.Sprintf("is not a time between the program's start (%s) and its arrival (%s): stamp the time the call is first sent",
			started.UTC().Format(http.TimeFormat), arrived.UTC().Format(http.TimeFormat))
	}
	return ""
}
