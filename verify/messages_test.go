package verify

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/internal/testenv"
)

// TestMaskWholeValuesOnly: a secret is masked where it stands as a value
// of its own, not inside a longer word or number.
func TestMaskWholeValuesOnly(t *testing.T) {
	red := newRedactor([]string{"42", "tok_abc"})
	for in, want := range map[string]string{
		"Bearer tok_abc":            "Bearer ***",
		`{"token":"tok_abc"}`:       `{"token":"***"}`,
		"amount 1420 and 42":        "amount 1420 and ***",
		"tok_abcdef stays, 42 goes": "tok_abcdef stays, *** goes",
	} {
		if got := red.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReproductionRuns: a reproduction printed with a ${VAR} header runs
// as printed in a shell where the variable is set, and shows no secret.
func TestReproductionRuns(t *testing.T) {
	testenv.LookPath(t, "curl")
	sh := testenv.LookPath(t, "sh")
	f, srv := newFakeAPI(t, "")
	p := fakePlan(t, srv.URL, "")
	var line string
	for _, l := range DryRun(Options{Contract: payouts(t), Plan: p, Only: []string{GateReplay}}) {
		if strings.HasPrefix(l, "curl ") && strings.Contains(l, "-X POST") {
			line = l
			break
		}
	}
	if line == "" || strings.Contains(line, "s3cret") {
		t.Fatalf("reproduction %q", line)
	}
	cmd := exec.Command(sh, "-c", line)
	cmd.Env = append(os.Environ(), "FAKE_TOKEN=s3cret-token-1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), " 201 ") {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.count) != 1 {
		t.Errorf("the server counted %v", f.count)
	}
	for k := range f.count {
		if !strings.HasPrefix(k, "Bearer s3cret-token-1\x00") {
			t.Errorf("the reproduction sent Authorization %q", k)
		}
	}
}

// TestServerCommandVars: ${VAR} in server.command is read from the
// environment (and shown as written); an unset one is a plan error.
func TestServerCommandVars(t *testing.T) {
	src := "server:\n  command: [\"${API_BIN}\", \"--addr\", \"{addr}\"]\noperations:\n  \"POST /v1/transfers\":\n    body: {\"amount\": 1}\n"
	p, err := ParsePlan("plan.yaml", []byte(src), payouts(t), env(map[string]string{"API_BIN": "/opt/api"}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Server.Command[0] != "/opt/api" || p.Server.Shown[0] != "${API_BIN}" {
		t.Errorf("command %q shown %q", p.Server.Command, p.Server.Shown)
	}
	_, err = ParsePlan("plan.yaml", []byte(src), payouts(t), env(nil))
	if err == nil || !strings.Contains(err.Error(), "plan.yaml:2:13") || !strings.Contains(err.Error(), "server.command[0] uses ${API_BIN}") {
		t.Errorf("err = %v", err)
	}
}

// TestSharedCauseSaidFirst: a route with no idempotency at all, and a plan
// whose request the server refuses, each fail several gates for one cause,
// which the report says once, before the gates.
func TestSharedCauseSaidFirst(t *testing.T) {
	for flaw, want := range map[string]string{
		"unwrapped":  "does not look wrapped by idempotency at all",
		"refuse-all": "the plan's request itself is refused (status 422)",
	} {
		t.Run(flaw, func(t *testing.T) {
			_, srv := newFakeAPI(t, flaw)
			res, err := Run(t.Context(), Options{Contract: payouts(t), Plan: fakePlan(t, srv.URL, "settle: 0s\n")})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Causes) != 1 || !strings.Contains(res.Causes[0], want) {
				t.Fatalf("causes = %q, want one with %q", res.Causes, want)
			}
			out := text(t, res)
			if i, j := strings.Index(out, want), strings.Index(out, "GATE "); i < 0 || i > j {
				t.Errorf("the cause is not said before the gates:\n%s", out)
			}
		})
	}
	_, srv := newFakeAPI(t, "race")
	res, err := Run(t.Context(), Options{Contract: payouts(t), Plan: fakePlan(t, srv.URL, "settle: 0s\n")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Causes) != 0 {
		t.Errorf("a single gate's failure became a shared cause: %q", res.Causes)
	}
}

// TestNoEffectsNeverSaidOfAPlanWithEffects: when the plan counts effects,
// no gate, not even one that ended before it counted (the plan's request
// refused) or was skipped, says the plan has none, and the run does not
// close with the effects-unobserved warning.
func TestNoEffectsNeverSaidOfAPlanWithEffects(t *testing.T) {
	_, srv := newFakeAPI(t, "refuse-all")
	res, err := Run(t.Context(), Options{Contract: payouts(t), Plan: fakePlan(t, srv.URL, "settle: 0s\n")})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range res.Gates {
		if strings.Contains(g.Effects+g.Reason, "no effects") {
			t.Errorf("%s (%s): %q", g.Gate, g.Result, g.Effects)
		}
	}
	for _, f := range res.Findings {
		if f.Rule == RuleEffectsUnobserved || strings.Contains(f.Message, "no effects") {
			t.Errorf("finding %s: %s", f.Rule, f.Message)
		}
	}
	if out := text(t, res); strings.Contains(out, "no effects") {
		t.Errorf("the report says the plan has no effects:\n%s", out)
	}
}
