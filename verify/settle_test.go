package verify

import (
	"context"
	"strings"
	"testing"
)

// TestLateEffectCaughtAfterSettle: a server that reruns the handler after
// answering a replay shows the second effect only on the settled count;
// the gate fails on it and reports both readings.
func TestLateEffectCaughtAfterSettle(t *testing.T) {
	_, srv := newFakeAPI(t, "late-rerun")
	res, err := Run(context.Background(), Options{Contract: payouts(t), Plan: fakePlan(t, srv.URL, "settle: 10ms\n"), Only: []string{GateReplay}})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Gates[0]
	if g.Result != Failed || !strings.Contains(g.Reason, "new effect (count 1 -> 2)") {
		t.Fatalf("replay gate = %+v", g)
	}
	if !strings.Contains(g.Effects, "1 at once, 2 after settle 10ms") {
		t.Errorf("effects = %q, want both readings", g.Effects)
	}
}

// TestScopeJudgedByEffects: a server whose every success is the same body
// passes the scope gate when each caller's own count moves, and the gate
// says plainly that it cannot tell without effects; a server that shares
// keys across callers fails either way.
func TestScopeJudgedByEffects(t *testing.T) {
	noEffects := func(p *Plan) *Plan {
		p.Operations[0].Effects = nil
		return p
	}
	keep := func(p *Plan) *Plan { return p }
	for _, tc := range []struct {
		flaw string
		plan func(*Plan) *Plan
		want Outcome
		note string
	}{
		{"constant-body", keep, Passed, "one effect of its own"},
		{"constant-body", noEffects, Skipped, "cannot tell"},
		{"leak", keep, Failed, "leaked"},
		{"leak", noEffects, Failed, "leaked"},
		{"", noEffects, Passed, "judged by the body"},
	} {
		t.Run(tc.flaw+"/"+string(tc.want), func(t *testing.T) {
			_, srv := newFakeAPI(t, tc.flaw)
			res, err := Run(context.Background(), Options{Contract: payouts(t), Plan: tc.plan(fakePlan(t, srv.URL, "settle: 0s\n")), Only: []string{GateScope}})
			if err != nil {
				t.Fatal(err)
			}
			if g := res.Gates[0]; g.Result != tc.want || !strings.Contains(g.Reason, tc.note) {
				t.Errorf("scope gate = %s %q, want %s with %q", g.Result, g.Reason, tc.want, tc.note)
			}
		})
	}
}
