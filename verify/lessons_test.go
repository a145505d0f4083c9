package verify

import (
	"net/http"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestFailedAttemptFollowsStores: the failed-attempt verdict follows
// contract.Idempotency.Stores, the rule the middleware stores by: a
// failure it stores must come back verbatim with no new effect, one it
// does not store must leave the key free for a retry that completes.
func TestFailedAttemptFollowsStores(t *testing.T) {
	resp := func(status int, body string, hdr ...string) Response {
		h := http.Header{}
		for i := 0; i+1 < len(hdr); i += 2 {
			h.Set(hdr[i], hdr[i+1])
		}
		return Response{Status: status, Body: []byte(body), BodyLen: int64(len(body)), Header: h}
	}
	fail500 := resp(500, `{"error":{"code":"internal"}}`)
	fail503 := resp(503, `{"error":{"code":"unavailable"}}`)
	done := resp(201, `{"id":"tr_1"}`)
	for _, tc := range []struct {
		name   string
		policy contract.FailurePolicy
		failed Response
		again  Response
		before int
		after  int
		want   string // "" passes; else a word of the failure
	}{
		{"replay stores a 500: replayed", contract.FailuresReplay, fail500, fail500, 0, 0, ""},
		{"replay stores a 500: run again", contract.FailuresReplay, fail500, done, 0, 1, "stores and replays"},
		{"reattempt keeps no 500: run again", contract.FailuresReattempt, fail500, done, 0, 1, ""},
		{"reattempt keeps no 500: replayed", contract.FailuresReattempt, fail500, resp(500, `{"error":{"code":"internal"}}`, "Idempotent-Replayed", "true"), 0, 0, "poisoned"},
		{"reattempt keeps no 500: failed again", contract.FailuresReattempt, fail500, fail500, 0, 0, "must run the request again"},
		{"a 503 is never stored, even under replay", contract.FailuresReplay, fail503, done, 0, 1, ""},
		{"a 503 replayed under replay", contract.FailuresReplay, fail503, resp(503, `{"error":{"code":"unavailable"}}`, "Idempotent-Replayed", "true"), 0, 0, "poisoned"},
		{"retried, two effects", contract.FailuresReattempt, fail503, done, 0, 2, "2 effects"},
		{"a stored 500 replayed with a new effect", contract.FailuresReplay, fail500, fail500, 0, 1, "effects moved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := payouts(t)
			c.Idempotency.StoredFailures = tc.policy
			r := &runner{c: c, plan: &Plan{}, cur: &gateState{}}
			skip, f := r.judgeFailedAttempt(attempts{failed: tc.failed, again: tc.again, before: tc.before, after: tc.after, counted: true})
			if skip != "" {
				t.Fatalf("skipped: %s", skip)
			}
			switch {
			case tc.want == "" && f != nil:
				t.Errorf("failed: %s", f.msg)
			case tc.want != "" && f == nil:
				t.Errorf("passed (%s), want a failure saying %q", r.cur.res.Reason, tc.want)
			case f != nil && (!strings.Contains(f.msg, tc.want) || f.path != "idempotency.stored_failures"):
				t.Errorf("failure at %s: %s; want %q", f.path, f.msg, tc.want)
			}
		})
	}
}
