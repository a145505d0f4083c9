package client

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/faultserver"
	"github.com/retryspec/retryspec/snippets/suite"
)

// testJudge is the judge context of the contract at path, without runs.
func testJudge(t *testing.T, path string) judge {
	t.Helper()
	c, err := contract.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := snippets.NewPolicy(c)
	if err != nil {
		t.Fatal(err)
	}
	return judge{p: p, id: c.Idempotency}
}

// attempt is one scripted attempt of a synthetic trial: the answer, the
// key sent and the client's wait before the next attempt.
type attempt struct {
	step faultserver.Step
	key  string
	wait time.Duration
}

// trial builds what the server would have recorded: each attempt answered
// 10 ms after it arrived, the next arriving after its wait.
func trial(kind suite.Kind, exit int, end time.Duration, as ...attempt) Trial {
	t0 := time.Unix(1_000_000, 0)
	tr := Trial{Scenario: suite.Scenario{Name: "synthetic", Kind: kind, Requests: len(as), Success: exit == 0}, ExitCode: exit, Started: t0.Add(-time.Second), Index: 1, Of: 1}
	at := t0
	for _, a := range as {
		r := faultserver.Request{Arrived: at, Answered: at.Add(10 * time.Millisecond), Key: a.key, RawKey: a.key, Step: a.step, Method: "POST", Path: "/v1/transfers", Body: []byte(`{}`)}
		tr.Attempts = append(tr.Attempts, r)
		at = r.Answered.Add(a.wait)
	}
	tr.Elapsed = end + time.Second
	return tr
}

var s503 = faultserver.Step{Status: 503}

func TestJudges(t *testing.T) {
	base := testJudge(t, filepath.Join("testdata", "retryspec.yaml")) // full jitter, base 1s, cap 2s, max_elapsed 12s
	tests := []struct {
		name  string
		judge func(judge) verdict
		runs  []Trial
		// want is "pass", "skip" or a text the failure must contain.
		want string
	}{
		{"one key per call", sameKey, []Trial{trial(suite.KindGiveUp, 1, 0, attempt{s503, "k1", 300 * time.Millisecond}, attempt{s503, "k1", 0}), trial(suite.KindRecover, 0, 0, attempt{s503, "k2", 0})}, "pass"},
		{"a key per attempt", sameKey, []Trial{trial(suite.KindGiveUp, 1, 0, attempt{s503, "k1", 0}, attempt{s503, "k2", 0})}, "attempt 2 carries another key"},
		{"one key for two calls", sameKey, []Trial{trial(suite.KindGiveUp, 1, 0, attempt{s503, "k1", 0}), trial(suite.KindRecover, 1, 0, attempt{s503, "k1", 0})}, "its key is the key of scenario"},
		{"no key", sameKey, []Trial{trial(suite.KindGiveUp, 1, 0, attempt{s503, "", 0})}, "carries no key in the Idempotency-Key header"},

		{"jittered waits", jitterSpread, []Trial{trial(suite.KindGiveUp, 1, 0, attempt{s503, "k", 990 * time.Millisecond}, attempt{s503, "k", 1400 * time.Millisecond}, attempt{s503, "k", 1995 * time.Millisecond}, attempt{s503, "k", 0})}, "pass"},
		{"waits at the top", jitterSpread, []Trial{trial(suite.KindGiveUp, 1, 0, attempt{s503, "k", time.Second}, attempt{s503, "k", 2 * time.Second}, attempt{s503, "k", 2100 * time.Millisecond}, attempt{s503, "k", 0})}, "at least its envelope's top"},
		{"too few waits", jitterSpread, []Trial{trial(suite.KindGiveUp, 1, 0, attempt{s503, "k", time.Second}, attempt{s503, "k", 0})}, "skip"},

		{"waits in the envelope", backoffSchedule, []Trial{trial(suite.KindGiveUp, 1, 0, attempt{s503, "k", 500 * time.Millisecond}, attempt{s503, "k", 1900 * time.Millisecond}, attempt{s503, "k", 0})}, "pass"},
		{"a wait in seconds for milliseconds", backoffSchedule, []Trial{trial(suite.KindGiveUp, 1, 0, attempt{s503, "k", 500 * time.Second}, attempt{s503, "k", 0})}, "far past the full jitter envelope"},
		{"no retry, no wait", backoffSchedule, []Trial{trial(suite.KindGiveUp, 1, 0, attempt{s503, "k", 0})}, "skip"},

		{"Retry-After waited", retryAfter, []Trial{trial(suite.KindRetryAfter, 0, 0, attempt{faultserver.Step{Status: 429, RetryAfter: "1"}, "k", 1010 * time.Millisecond}, attempt{faultserver.Step{Status: 201}, "k", 0})}, "pass"},
		{"Retry-After ignored", retryAfter, []Trial{trial(suite.KindRetryAfter, 0, 0, attempt{faultserver.Step{Status: 429, RetryAfter: "1"}, "k", 300 * time.Millisecond}, attempt{faultserver.Step{Status: 201}, "k", 0})}, "sooner than the 1s the answer's Retry-After asked for"},

		{"gave up in time", maxElapsed, []Trial{trial(suite.KindMaxElapsed, 1, 7*time.Second, attempt{faultserver.Step{Status: 429, RetryAfter: "7"}, "k", 7 * time.Second}, attempt{faultserver.Step{Status: 429, RetryAfter: "7"}, "k", 0})}, "pass"},
		{"slept past the deadline", maxElapsed, []Trial{trial(suite.KindMaxElapsed, 1, 14*time.Second, attempt{faultserver.Step{Status: 429, RetryAfter: "7"}, "k", 7 * time.Second}, attempt{faultserver.Step{Status: 429, RetryAfter: "7"}, "k", 0})}, "slept through a wait that could not fit"},

		{"max_attempts kept", maxAttempts, []Trial{trial(suite.KindGiveUp, 1, 0, attempt{s503, "k", time.Second}, attempt{s503, "k", time.Second}, attempt{s503, "k", 0})}, "pass"},
		{"one attempt too many", maxAttempts, []Trial{trial(suite.KindGiveUp, 1, 0, attempt{s503, "k", 0}, attempt{s503, "k", 0}, attempt{s503, "k", 0}, attempt{s503, "k", 0})}, "4 attempts, past max_attempts 3"},
		{"gave up and said it worked", maxAttempts, []Trial{trial(suite.KindGiveUp, 0, 0, attempt{s503, "k", 0}, attempt{s503, "k", 0}, attempt{s503, "k", 0})}, "exited 0 after every attempt failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := base
			j.runs = tt.runs
			checkVerdict(t, tt.judge(j), tt.want)
		})
	}
}

// checkVerdict checks a judge's verdict: want is "pass", "skip" or a text
// the failure must contain.
func checkVerdict(t *testing.T, v verdict, want string) {
	t.Helper()
	switch want {
	case "pass":
		if v.Fail != "" || v.Skip != "" {
			t.Errorf("want a pass, got %+v", v)
		}
	case "skip":
		if v.Skip == "" {
			t.Errorf("want a skip, got %+v", v)
		}
	default:
		if !strings.Contains(v.Fail, want) {
			t.Errorf("want a failure containing %q, got %+v", want, v)
		}
	}
}
