package contract

import "slices"

// NotCarriedOut are the statuses that say the request was not carried
// out: a timeout before the request was read (408), too early (425), a
// rate limit (429) and an overload (503). The server never stores them:
// replaying one would make every retry with the key pointless for the
// whole window, whichever stored_failures the contract chose.
var NotCarriedOut = []int{408, 425, 429, 503}

// Stores reports whether a response with this status, written by the
// handler, is stored and replayed to a retry with the same key: never an
// answer that says the request was not carried out, and a 5xx only under
// stored_failures: replay (or when the contract has not decided).
func (id Idempotency) Stores(status int) bool {
	if slices.Contains(NotCarriedOut, status) {
		return false
	}
	return status < 500 || id.StoredFailures != FailuresReattempt
}
