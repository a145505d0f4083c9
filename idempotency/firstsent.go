package idempotency

import (
	"net/http"
	"strings"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency/alerting"
	"github.com/retryspec/retryspec/idempotency/keystore"
)

// A window measured from the client's clock (idempotency.first_sent, the
// OASIS Repeatable Requests scheme Azure publishes): a keyed request
// states, in first_sent.header, the time it was first sent, the same on
// every retry. The middleware checks it before the claim, so a request it
// refuses never runs and never stores anything.
//
// The two windows: first_sent.window bounds acceptance (a request first
// sent longer ago gets conflicts.too_old, even when its key's record is
// still kept), and replay_window (at least as long, a contract rule) is
// how long the record lives, measured from the claim. A retry the
// first-sent window accepts always finds its record: it was first sent no
// later than its first claim (plus the skew below), so it arrives within
// first_sent.window of that claim. The one exception is the skew itself,
// handled in sameFirstSent.

// firstSentSkew is how far ahead of the server's clock a first-sent time
// may be: a tenth of the window, at most 30 seconds. Within it the time
// counts as sent now (clocks differ by that much, and the request was
// certainly sent no earlier); beyond it the time cannot be one the
// request was first sent at, and the request gets the invalid-key answer,
// as a malformed time does. Accepting any future time would let a client
// whose clock runs ahead retry after its key's record has expired, and
// run the request twice.
func firstSentSkew(window time.Duration) time.Duration {
	return min(30*time.Second, window/10)
}

// refusal is an answer the middleware gives before the claim: the metric
// kind it counts under, the contract's answer, and why, for the log.
type refusal struct {
	kind  string
	reply contract.ReplyKind
	why   string
}

// firstSent reads and checks the request's first-sent time. A refusal:
// the header is missing, not one HTTP date (net/http's parser: the
// IMF-fixdate the contract names, and the two obsolete forms RFC 9110
// asks recipients to accept), too far ahead, or older than the window.
func (h *endpointHandler) firstSent(r *http.Request, now time.Time) (time.Time, *refusal) {
	fs := h.m.c.Idempotency.FirstSent
	vals := r.Header.Values(fs.Header)
	if len(vals) == 0 {
		return time.Time{}, &refusal{alerting.KindInvalidKey, contract.ReplyInvalidKey, "no " + fs.Header + " header"}
	}
	if len(vals) > 1 {
		return time.Time{}, &refusal{alerting.KindInvalidKey, contract.ReplyInvalidKey, "more than one " + fs.Header + " header"}
	}
	t, err := http.ParseTime(strings.TrimSpace(vals[0]))
	if err != nil {
		return time.Time{}, &refusal{alerting.KindInvalidKey, contract.ReplyInvalidKey, "the " + fs.Header + " header is not an HTTP date"}
	}
	if t.After(now.Add(firstSentSkew(fs.Window.D))) {
		return time.Time{}, &refusal{alerting.KindInvalidKey, contract.ReplyInvalidKey,
			"the " + fs.Header + " time is " + t.Sub(now).Round(time.Second).String() + " ahead of the server's clock"}
	}
	if now.Sub(t) > fs.Window.D {
		return time.Time{}, &refusal{alerting.KindTooOld, contract.ReplyTooOld,
			"the " + fs.Header + " time is " + now.Sub(t).Round(time.Second).String() + " old, beyond the " + fs.Window.String() + " window"}
	}
	return t, nil
}

// sameFirstSent reports whether a request that finds its key's record
// past replay_window is a retry of the request that made it: it states a
// first-sent time no later than that record's claim (plus the skew). That
// happens only when replay_window is as short as first_sent.window (Azure
// sets both to 5 minutes) and the client's clock runs ahead by up to the
// skew; such a retry is replayed, never run again. A request with a new
// first-sent time after the window is a new request (after_window).
func (h *endpointHandler) sameFirstSent(q *keyRequest, rec *keystore.Record) bool {
	fs := h.m.c.Idempotency.FirstSent
	return fs.Set() && !q.firstSent.IsZero() && !q.firstSent.After(rec.CreatedAt.Add(firstSentSkew(fs.Window.D)))
}
