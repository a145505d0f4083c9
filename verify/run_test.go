package verify

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

func TestFakeSoundPassesEveryGate(t *testing.T) {
	_, srv := newFakeAPI(t, "")
	res, err := Run(context.Background(), Options{Contract: payouts(t), Plan: fakePlan(t, srv.URL, "")})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Outcome{GateMissingKey: Passed, GateKeyTooLong: Passed, GateConcurrency: Passed, GateReplay: Passed,
		GateMismatch: Passed, GateScope: Passed, GateRestartReplay: Skipped, GateCrashRecovery: Skipped,
		GateKeyForm: Skipped, GateFailedAttempt: Skipped, GateAfterWindow: Skipped, GateTooOld: Skipped, GateResultHeader: Skipped}
	if got := results(res); !equalMaps(got, want) {
		t.Errorf("gates = %v, want %v\n%s", got, want, text(t, res))
	}
	for _, g := range res.Gates {
		if g.Result == Passed && g.Gate != GateMissingKey && !strings.HasPrefix(g.Effects, "observed:") {
			t.Errorf("%s: effects %q", g.Gate, g.Effects)
		}
	}
}

func TestFakeRaceCaughtByConcurrencyOnly(t *testing.T) {
	_, srv := newFakeAPI(t, "race")
	res, err := Run(context.Background(), Options{Contract: payouts(t), Plan: fakePlan(t, srv.URL, "")})
	if err != nil {
		t.Fatal(err)
	}
	for gate, r := range results(res) {
		if (r == Failed) != (gate == GateConcurrency) {
			t.Errorf("%s %s\n%s", gate, r, text(t, res))
		}
	}
	if len(res.Findings) != 1 || res.Findings[0].Rule != GateConcurrency || res.Findings[0].Path != "idempotency.claim.mechanism" {
		t.Fatalf("findings = %+v", res.Findings)
	}
	f := res.Findings[0]
	c := payouts(t)
	if p := c.PosOf("idempotency.claim.mechanism"); f.Line != p.Line || f.File != c.File {
		t.Errorf("finding at %s:%d, want the contract line %d", f.File, f.Line, p.Line)
	}
	if len(f.Reproduction) == 0 || !strings.Contains(strings.Join(f.Reproduction, "\n"), "curl ") {
		t.Errorf("no curl reproduction: %v", f.Reproduction)
	}
}

// TestConcurrencyReleasesAllAtOnce: N = 256 requests all reach the server
// and the spread is reported (not asserted: time belongs in benchmarks).
func TestConcurrencyReleasesAllAtOnce(t *testing.T) {
	f, srv := newFakeAPI(t, "")
	res, err := Run(context.Background(), Options{Contract: payouts(t), Plan: fakePlan(t, srv.URL, ""), Only: []string{GateConcurrency}, Concurrency: 256})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Gates[0]
	if g.Result != Passed || g.SpreadMS == nil {
		t.Fatalf("gate = %+v", g)
	}
	if n := f.posts.Load(); n != 256*ConcurrencyRounds {
		t.Errorf("the server saw %d POSTs, want 256 per round", n)
	}
	t.Logf("N=256: release spread %.3f ms", *g.SpreadMS)
}

// TestSecretsNeverPrinted: a server that echoes the token into its body
// and fails a gate; no output format shows the token.
func TestSecretsNeverPrinted(t *testing.T) {
	_, srv := newFakeAPI(t, "echo-auth")
	p := fakePlan(t, srv.URL, "")
	res, err := Run(context.Background(), Options{Contract: payouts(t), Plan: p})
	if err != nil {
		t.Fatal(err)
	}
	if results(res)[GateMissingKey] != Failed {
		t.Fatalf("missing-key did not fail: %v", results(res))
	}
	for _, format := range Formats {
		var b bytes.Buffer
		if err := Encode(&b, format, res, baseReport(nil)); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "s3cret-token") {
			t.Errorf("%s output shows a secret:\n%s", format, b.String())
		}
		if !strings.Contains(b.String(), "***") {
			t.Errorf("%s output does not show the masked header", format)
		}
	}
	for _, l := range DryRun(Options{Contract: payouts(t), Plan: p}) {
		if strings.Contains(l, "s3cret-token") {
			t.Errorf("dry run shows a secret: %s", l)
		}
	}
}

func TestDryRunSendsNothing(t *testing.T) {
	f, srv := newFakeAPI(t, "")
	lines := DryRun(Options{Contract: payouts(t), Plan: fakePlan(t, srv.URL, "concurrency: 4\n")})
	out := strings.Join(lines, "\n")
	for _, want := range []string{"# verify/concurrency POST /v1/transfers", "for i in $(seq 4); do curl", "# verify/crash-recovery POST /v1/transfers: skipped", "-H 'Authorization: Bearer '\"${FAKE_TOKEN}\""} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	if n := f.posts.Load(); n != 0 {
		t.Errorf("dry run sent %d requests", n)
	}
}

// TestUnresponsiveServer: a server that accepts connections and never
// answers ends the run with Aborted, not a hang.
func TestUnresponsiveServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn
		for {
			c, err := ln.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	p := fakePlan(t, "http://"+ln.Addr().String(), "")
	p.RequestTimeout = 200_000_000 // 200 ms: the test waits for the tool's own bound
	res, err := Run(context.Background(), Options{Contract: payouts(t), Plan: p})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res.Aborted, errUnresponsive) {
		t.Fatalf("Aborted = %v", res.Aborted)
	}
	if len(res.Gates) != 1 || res.Gates[0].Result != Failed {
		t.Errorf("gates = %+v", res.Gates)
	}
	var b bytes.Buffer
	Encode(&b, "text", res, baseReport(nil))
	if !strings.Contains(b.String(), "run stopped: server stopped answering") {
		t.Errorf("text output:\n%s", b.String())
	}
}

func serverPlan(t *testing.T, server string) *Plan {
	t.Helper()
	src := "headers:\n  Authorization: Bearer x\nserver:\n" + server + "operations:\n  \"POST /v1/transfers\":\n    body: {\"amount\": 1}\n"
	p, err := ParsePlan("plan.yaml", []byte(src), payouts(t), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestServerExitsAtOnce(t *testing.T) {
	p := serverPlan(t, "  command: [\"sh\", \"-c\", \"echo cannot open the store >&2; exit 3\", \"{addr}\"]\n  ready: GET /healthz\n")
	_, err := Run(context.Background(), Options{Contract: payouts(t), Plan: p})
	var le *contract.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v", err)
	}
	d := le.Diagnostics[0]
	if d.Pos.Line != 4 || !strings.Contains(d.Message, "cannot open the store") || d.Fix == "" {
		t.Errorf("diagnostic = %+v", d)
	}
}

func TestReadyNeverAnswers(t *testing.T) {
	p := serverPlan(t, "  command: [\"sh\", \"-c\", \"exec sleep 60\", \"{addr}\"]\n  ready: GET /healthz\n  startup_timeout: 300ms\n")
	_, err := Run(context.Background(), Options{Contract: payouts(t), Plan: p})
	var le *contract.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v", err)
	}
	d := le.Diagnostics[0]
	if d.Pos.Line != 5 || !strings.Contains(d.Message, "did not answer GET /healthz") {
		t.Errorf("diagnostic = %+v", d)
	}
}

func TestNonLoopbackNeedsYes(t *testing.T) {
	p := fakePlan(t, "http://192.0.2.1:9", "")
	if _, err := Run(context.Background(), Options{Contract: payouts(t), Plan: p}); err == nil || !strings.Contains(err.Error(), "--yes") {
		t.Errorf("err = %v", err)
	}
}

func equalMaps(a, b map[string]Outcome) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func text(t *testing.T, res *Result) string {
	var b bytes.Buffer
	if err := Encode(&b, "text", res, baseReport(nil)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestEffectsUnobserved: without effects, every gate says so and the run
// ends with the verify/effects-unobserved warning (which fails nothing).
func TestEffectsUnobserved(t *testing.T) {
	_, srv := newFakeAPI(t, "")
	p := fakePlan(t, srv.URL, "")
	p.Operations[0].Effects = nil
	res, err := Run(context.Background(), Options{Contract: payouts(t), Plan: p, Only: []string{GateReplay, GateMismatch}})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range res.Gates {
		if g.Result != Passed || !strings.HasPrefix(g.Effects, "not observed") {
			t.Errorf("%s: %s, effects %q", g.Gate, g.Result, g.Effects)
		}
	}
	if len(res.Findings) != 1 || res.Findings[0].Rule != RuleEffectsUnobserved || res.Findings[0].Severity.String() != "warning" || res.Failed() {
		t.Errorf("findings = %+v", res.Findings)
	}
}
