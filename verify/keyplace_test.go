package verify

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// TestKeyedBody: the key goes to key_field, first in the object, in place
// of any member the plan wrote there; no key takes the member
// out; a body that is not an object is left to the plan loader's refusal.
func TestKeyedBody(t *testing.T) {
	id := repeatPayouts(t).Idempotency
	for _, tc := range []struct{ body, key, want string }{
		{`{"amount":1000}`, "k1", `{"idempotency_key":"k1","amount":1000}`},
		{`{"amount":1000,"idempotency_key":"{key}"}`, "k1", `{"idempotency_key":"k1","amount":1000}`},
		{`{"amount":1000,"idempotency_key":"old"}`, "", `{"amount":1000}`},
		{``, "k1", `{"idempotency_key":"k1"}`},
		{``, "", `{}`},
		{`[1,2]`, "k1", `[1,2]`},
		{`{"amount":1.50e3,"note":"a&b"}`, "k\"1", `{"idempotency_key":"k\"1","amount":1.50e3,"note":"a&b"}`},
	} {
		var body []byte
		if tc.body != "" {
			body = []byte(tc.body)
		}
		if got := string(keyedBody(id, body, tc.key)); got != tc.want {
			t.Errorf("keyedBody(%s, %q) = %s, want %s", tc.body, tc.key, got, tc.want)
		}
	}
}

// TestFirstSentPerKey: every request with one key states the same
// first-sent time, an HTTP date; another key gets its own stamp; the
// header goes only with a first_sent contract.
func TestFirstSentPerKey(t *testing.T) {
	c := repeatPayouts(t)
	p := repeatPlan(t, c, "http://127.0.0.1:1")
	r := &runner{c: c, plan: p, base: p.BaseURL}
	op := p.Operations[0]
	sent := func(key string) string {
		req := r.opRequest(op, key, op.Body, primary)
		for _, h := range req.Headers {
			if h.Name == c.Idempotency.FirstSent.Header {
				return h.Value
			}
		}
		return ""
	}
	first := sent("k1")
	if _, err := http.ParseTime(first); err != nil {
		t.Fatalf("first-sent %q is not an HTTP date: %v", first, err)
	}
	if a, b := r.fills.firstSent("k1"), r.fills.firstSent("k1"); !a.Equal(b) {
		t.Errorf("k1 is stamped anew: %v, then %v", a, b)
	}
	r.fills.stampFirstSent("k2", r.tooOldSent())
	if again := sent("k1"); again != first {
		t.Errorf("the repeat states %q, the first %q", again, first)
	}
	if other := sent("k2"); other == first || other == "" {
		t.Errorf("another key states %q (first %q)", other, first)
	}
	r.c = payouts(t)
	if got := sent("k3"); got != "" {
		t.Errorf("a contract without first_sent sends %q", got)
	}
}

// TestBodyKeyPlanNeedsObject: with the key in the body, a plan body that
// is not a JSON object is refused at its line, with a fix.
func TestBodyKeyPlanNeedsObject(t *testing.T) {
	for _, tc := range []struct {
		plan string
		line int
	}{
		{"base_url: http://127.0.0.1:1\noperations:\n  \"POST /v1/transfers\":\n    body: [1, 2]\n", 4},
		{"base_url: http://127.0.0.1:1\noperations:\n  \"POST /v1/transfers\":\n    body: {\"amount\": 1}\n    mismatch_body: '\"text\"'\n", 5},
	} {
		_, err := ParsePlan("plan.yaml", []byte(tc.plan), repeatPayouts(t), env(nil))
		var le *contract.LoadError
		if !errors.As(err, &le) || len(le.Diagnostics) != 1 {
			t.Fatalf("err = %v, want one diagnostic", err)
		}
		d := le.Diagnostics[0]
		if d.Pos.Line != tc.line || d.Fix == "" || !strings.Contains(d.Message, "not a JSON object") {
			t.Errorf("diagnostic %+v, want line %d with a fix", d, tc.line)
		}
	}
	if _, err := ParsePlan("plan.yaml", []byte("base_url: http://127.0.0.1:1\noperations:\n  \"POST /v1/transfers\":\n    body: [1, 2]\n"), payouts(t), env(nil)); err != nil {
		t.Errorf("a header key refuses a list body: %v", err)
	}
}
