package verify

import (
	"context"
	"strings"
	"testing"
)

// TestPlaceholdersPerKey: a server that refuses a body already sent under
// another key passes every gate when the plan's body draws {uuid} and
// {counter} per key, and fails without them (the plan's fixed body).
func TestPlaceholdersPerKey(t *testing.T) {
	for _, tc := range []struct {
		body string
		pass bool
	}{
		{`{"amount":1000,"currency":"usd","ref":"{uuid}","seq":"{counter}","key":"{key}"}`, true},
		{`{"amount":1000,"currency":"usd","ref":"fixed"}`, false},
	} {
		_, srv := newFakeAPI(t, "unique-body")
		p := fakePlan(t, srv.URL, "settle: 0s\n")
		p.Operations[0].Body = []byte(tc.body)
		res, err := Run(context.Background(), Options{Contract: payouts(t), Plan: p, Only: []string{GateConcurrency, GateReplay, GateMismatch, GateScope}})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range res.Gates {
			if (g.Result == "passed") != tc.pass {
				t.Errorf("body %s: %s %s %s", tc.body, g.Gate, g.Result, g.Reason)
			}
		}
	}
}

// TestPlaceholderValuesStablePerKey: one key always gets the same values
// (a retry sends the same bytes); another key gets others.
func TestPlaceholderValuesStablePerKey(t *testing.T) {
	var f fills
	const tmpl = "{key}/{uuid}/{counter}"
	a1, a2, b := f.replacer("ka").Replace(tmpl), f.replacer("ka").Replace(tmpl), f.replacer("kb").Replace(tmpl)
	if a1 != a2 || a1 == b || !strings.HasPrefix(a1, "ka/") || !strings.HasSuffix(b, "/2") {
		t.Errorf("ka: %s, %s; kb: %s", a1, a2, b)
	}
	if len(strings.Split(a1, "/")[1]) != 36 {
		t.Errorf("uuid %q", a1)
	}
}
