package client

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/snippets/suite"
)

// stamped is tr with each attempt's first-sent header set, in order.
func stamped(tr Trial, values ...string) Trial {
	for i := range tr.Attempts {
		tr.Attempts[i].FirstSent = values[min(i, len(values)-1)]
	}
	return tr
}

// TestKeyPlaceJudges: the judges of the fields issue 32 added. A key in
// the body is judged by client/same-key like a header key and named by its
// place; client/first-sent holds when every attempt carries one IMF-fixdate
// stamped at the call's start and repeated on its retries, and fails a
// missing, malformed, fixed or restamped value.
func TestKeyPlaceJudges(t *testing.T) {
	examples := filepath.Join(testenv.RepoRoot(t), "examples")
	azure := testJudge(t, filepath.Join(examples, "azure-email", "retryspec.yaml"))
	square := testJudge(t, filepath.Join(examples, "square-payments", "retryspec.yaml"))
	payouts := testJudge(t, filepath.Join("testdata", "retryspec.yaml"))
	// trial's first attempt arrives at t0, the program started a second
	// before; attempts 10 ms answers and 1 s waits apart.
	t0 := time.Unix(1_000_000, 0).UTC()
	at := func(d time.Duration) string { return t0.Add(d).Format(http.TimeFormat) }
	call := func(keys ...string) Trial {
		var as []attempt
		for _, k := range keys {
			as = append(as, attempt{s503, k, time.Second})
		}
		return trial(suite.KindGiveUp, 1, 0, as...)
	}
	for _, tt := range []struct {
		name  string
		on    judge
		judge func(judge) verdict
		runs  []Trial
		want  string
	}{
		{"body key kept", square, sameKey, []Trial{call("k1", "k1", "k1"), call("k2")}, "pass"},
		{"body key missing", square, sameKey, []Trial{call("", "")}, "carries no key in the /idempotency_key member of the JSON body"},
		{"body key changed", square, sameKey, []Trial{call("k1", "k2")}, "attempt 2 carries another key than attempt 1 in the /idempotency_key member"},

		{"stamped once", azure, firstSent, []Trial{stamped(call("k1", "k1", "k1"), at(0)), stamped(call("k2"), at(-time.Second))}, "pass"},
		{"restamped on a retry", azure, firstSent, []Trial{stamped(call("k1", "k1"), at(0), at(time.Second))}, `attempt 2 carries Repeatability-First-Sent "` + at(time.Second) + `", the first attempt with its key carried "` + at(0) + `"`},
		{"missing on a retry", azure, firstSent, []Trial{stamped(call("k1", "k1"), at(0), "")}, "attempt 2 carries no Repeatability-First-Sent header"},
		{"never sent", azure, firstSent, []Trial{call("k1")}, "attempt 1 carries no Repeatability-First-Sent header"},
		{"seconds since the epoch", azure, firstSent, []Trial{stamped(call("k1"), "1000000")}, "not an HTTP date"},
		{"RFC 850 date", azure, firstSent, []Trial{stamped(call("k1"), t0.Format(time.RFC850))}, "not an IMF-fixdate"},
		{"a fixed date", azure, firstSent, []Trial{stamped(call("k1"), contract.FirstSentExample)}, "not a time between the program's start"},
		{"stamped after it was sent", azure, firstSent, []Trial{stamped(call("k1"), at(time.Minute))}, "not a time between the program's start"},
		// A new key is a new call: it gets a stamp of its own (a key per
		// attempt is client/same-key's failure, not this gate's).
		{"a new key, a new stamp", azure, firstSent, []Trial{stamped(call("k1", "k2"), at(0), at(time.Second))}, "pass"},
		{"no first-sent in the contract", payouts, firstSent, []Trial{call("k1")}, "skip"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j := tt.on
			j.runs = tt.runs
			checkVerdict(t, tt.judge(j), tt.want)
		})
	}
}

// TestPlanKeyPlace: the plan reads the key where the contract puts it and
// bounds it by the chosen operation's own max_key_length (Square's
// CreatePayment takes 45 characters, CreateOrder the API-wide 192).
func TestPlanKeyPlace(t *testing.T) {
	examples := filepath.Join(testenv.RepoRoot(t), "examples")
	load := func(name string) *contract.Contract {
		c, err := contract.Load(filepath.Join(examples, name, "retryspec.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	square, azure := load("square-payments"), load("azure-email")
	for _, tt := range []struct {
		c         *contract.Contract
		operation string
		maxKey    int
		field     string
		firstSent string
	}{
		{square, "", 45, "idempotency_key", ""},
		{square, "POST /v2/orders", 192, "idempotency_key", ""},
		{azure, "", 36, "", "Repeatability-First-Sent"},
	} {
		pl, err := newPlan(Options{Contract: tt.c, Operation: tt.operation, Command: []string{"true"}})
		if err != nil {
			t.Fatal(err)
		}
		kp := keyPlace(tt.c.Idempotency, pl.p)
		if pl.p.MaxKeyLength != tt.maxKey || kp.Field != tt.field || kp.FirstSent != tt.firstSent {
			t.Errorf("%s %q: max key length %d, key place %+v; want %d, field %q, first-sent %q",
				tt.c.API.Name, tt.operation, pl.p.MaxKeyLength, kp, tt.maxKey, tt.field, tt.firstSent)
		}
	}
}
