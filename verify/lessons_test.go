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
		policy any // a contract.FailurePolicy (stored_failures) or contract.StoredOutcomes
		failed Response
		again  Response
		before int
		after  int
		want   string // "" passes; else a word of the failure
		mid    int    // the count between the failed attempt and the retry; 0 unless set
	}{
		{"replay stores a 500: replayed", contract.FailuresReplay, fail500, fail500, 0, 0, "", 0},
		{"replay stores a 500: run again", contract.FailuresReplay, fail500, done, 0, 1, "stores and replays", 0},
		{"reattempt keeps no 500: run again", contract.FailuresReattempt, fail500, done, 0, 1, "", 0},
		{"reattempt keeps no 500: replayed", contract.FailuresReattempt, fail500, resp(500, `{"error":{"code":"internal"}}`, "Idempotent-Replayed", "true"), 0, 0, "poisoned", 0},
		{"reattempt keeps no 500: failed again", contract.FailuresReattempt, fail500, fail500, 0, 0, "must run the request again", 0},
		{"a 503 is never stored, even under replay", contract.FailuresReplay, fail503, done, 0, 1, "", 0},
		{"a 503 replayed under replay", contract.FailuresReplay, fail503, resp(503, `{"error":{"code":"unavailable"}}`, "Idempotent-Replayed", "true"), 0, 0, "poisoned", 0},
		{"retried, two effects", contract.FailuresReattempt, fail503, done, 0, 2, "2 effects", 0},
		{"a stored 500 replayed with a new effect", contract.FailuresReplay, fail500, fail500, 0, 1, "effects moved", 0},
		{"a stored 500 replayed, the effect left by the failed attempt", contract.FailuresReplay, fail500, fail500, 0, 1, "already there after the failed attempt", 1},
		{"retried, two effects, one left by the failed attempt", contract.FailuresReattempt, fail503, done, 0, 2, "already there after the failed attempt", 1},
		{"retried, one effect, resumed from the failed attempt's recovery point", contract.FailuresReattempt, fail503, done, 0, 1, "", 1},
		{"stored_outcomes: 2xx keeps no 500 even under replay", contract.Stored2xx, fail500, done, 0, 1, "", 0},
		{"stored_outcomes: 2xx, the 500 replayed", contract.Stored2xx, fail500, resp(500, `{"error":{"code":"internal"}}`, "Idempotent-Replayed", "true"), 0, 0, "stored_outcomes: 2xx", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := payouts(t)
			wantPath := "idempotency.stored_failures"
			switch p := tc.policy.(type) {
			case contract.StoredOutcomes:
				c.Idempotency.StoredFailures, c.Idempotency.StoredOutcomes = contract.FailuresReplay, p
				wantPath = "idempotency.stored_outcomes"
			case contract.FailurePolicy:
				c.Idempotency.StoredFailures, c.Idempotency.StoredOutcomes = p, ""
			default:
				t.Fatalf("policy %T", p)
			}
			r := &runner{c: c, plan: &Plan{}, cur: &gateState{}}
			skip, f := r.judgeFailedAttempt(attempts{failed: tc.failed, again: tc.again, before: tc.before, mid: tc.mid, after: tc.after, counted: true})
			if skip != "" {
				t.Fatalf("skipped: %s", skip)
			}
			switch {
			case tc.want == "" && f != nil:
				t.Errorf("failed: %s", f.msg)
			case tc.want != "" && f == nil:
				t.Errorf("passed (%s), want a failure saying %q", r.cur.res.Reason, tc.want)
			case f != nil && (!strings.Contains(f.msg, tc.want) || f.path != wantPath):
				t.Errorf("failure at %s: %s; want %q", f.path, f.msg, tc.want)
			}
		})
	}
}
