package suite

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/faultserver"
	"github.com/retryspec/retryspec/snippets/run"
)

// loadSquare is the example whose key travels in the JSON body
// (idempotency.key_in: body, key_field: /idempotency_key).
func loadSquare(t *testing.T) *contract.Contract {
	t.Helper()
	return loadNamed(t, "square-payments")
}

// TestCheckBodyKey: with the key in the body, the check reads it there:
// a run whose body lacks it, whose retry carries another key in it, or
// whose body is not the example with the key added fails; the right one
// passes. CreatePayment's bound (45) is the one checked, not the API's.
func TestCheckBodyKey(t *testing.T) {
	p, err := snippets.NewPolicy(loadSquare(t))
	if err != nil {
		t.Fatal(err)
	}
	if !p.KeyInBody || p.KeyField != "idempotency_key" || p.MaxKeyLength != 45 {
		t.Fatalf("policy: in body %v, field %q, bound %d; want the body member idempotency_key, 45", p.KeyInBody, p.KeyField, p.MaxKeyLength)
	}
	sc := Scenario{Name: "recover", Script: faultserver.Script{{Status: 503}, {Status: 201}}, Requests: 2, Success: true}
	body := func(key string) []byte {
		return []byte(`{"idempotency_key": "` + key + `", "source_id": "cnon:card-nonce-ok", "amount_money": {"amount": 1000, "currency": "USD"}}`)
	}
	req := func(key string, b []byte, at time.Time, step faultserver.Step) faultserver.Request {
		return faultserver.Request{Arrived: at, Answered: at.Add(5 * time.Millisecond), Method: "POST", Path: "/v2/payments",
			Key: key, RawKey: key, Body: b, ContentType: "application/json", Step: step}
	}
	t0 := time.Now()
	good := res(0, logLines(40))
	tests := []struct {
		name string
		reqs []faultserver.Request
		want string
	}{
		{"same key in the same body", []faultserver.Request{req("k-1", body("k-1"), t0, sc.Script[0]), req("k-1", body("k-1"), t0.Add(50*time.Millisecond), sc.Script[1])}, ""},
		{"no key in the body", []faultserver.Request{req("", []byte(`{"source_id": "cnon:card-nonce-ok", "amount_money": {"amount": 1000, "currency": "USD"}}`), t0, sc.Script[0]),
			req("", []byte(`{"source_id": "cnon:card-nonce-ok", "amount_money": {"amount": 1000, "currency": "USD"}}`), t0.Add(50*time.Millisecond), sc.Script[1])}, "carries no key in the body member idempotency_key"},
		{"a new key on the retry", []faultserver.Request{req("k-1", body("k-1"), t0, sc.Script[0]), req("k-2", body("k-2"), t0.Add(50*time.Millisecond), sc.Script[1])}, "one key per logical request"},
		{"another body", []faultserver.Request{req("k-1", []byte(`{"idempotency_key": "k-1", "source_id": "x"}`), t0, sc.Script[0]),
			req("k-1", []byte(`{"idempotency_key": "k-1", "source_id": "x"}`), t0.Add(50*time.Millisecond), sc.Script[1])}, "not the contract's example request"},
		{"past CreatePayment's 45", []faultserver.Request{req(strings.Repeat("k", 46), body(strings.Repeat("k", 46)), t0, sc.Script[0]),
			req(strings.Repeat("k", 46), body(strings.Repeat("k", 46)), t0.Add(50*time.Millisecond), sc.Script[1])}, "longer than max_key_length 45"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems, _ := check(p, sc, good, tt.reqs)
			got := strings.Join(problems, "\n")
			if tt.want == "" && len(problems) > 0 {
				t.Errorf("problems: %s", got)
			}
			if tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("problems %q lack %q", got, tt.want)
			}
		})
	}
}

func res(code int, stderr []byte) run.Result { return run.Result{ExitCode: code, Stderr: stderr} }

// TestBodyKeyProven runs every language's snippet for the Square example
// against the fault server reading the key from the body: the key is in
// the body member, the body is the example with the key added, and every
// retry (after a 503, after a reset connection, after an in-flight
// conflict) repeats the same bytes with the same key.
func TestBodyKeyProven(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every snippet in its runtime")
	}
	langs := availableLanguages(t)
	if len(langs) == 0 {
		return
	}
	rep := proveScenarios(t, loadSquare(t), langs, "recover-after-503", "reset-connection-retried", "in-flight-conflict-retried")
	passed, failed := rep.Counts()
	t.Logf("%d passed, %d failed in %.1fs", passed, failed, rep.Elapsed.Seconds())
	if passed < len(langs)*3 {
		t.Errorf("only %d outcomes passed for %d languages", passed, len(langs))
	}
}

// TestCodesComparedExactly: the snippets compare an error code exactly, in
// the case the API publishes it. Each language's Square snippet, edited to
// expect the in-flight code in lower case, must not take the server's
// IDEMPOTENCY_KEY_IN_USE for it: the in-flight scenario then fails in
// every runtime (the unedited snippets pass it, TestBodyKeyProven).
func TestCodesComparedExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every snippet in its runtime")
	}
	langs := availableLanguages(t)
	if len(langs) == 0 {
		return
	}
	const code = "IDEMPOTENCY_KEY_IN_USE"
	c := loadSquare(t)
	if c.Idempotency.Conflicts.InFlight.Code != code {
		t.Fatalf("the Square example's in-flight code is %q, want %s", c.Idempotency.Conflicts.InFlight.Code, code)
	}
	m := &fileMutations{Runner: run.Exec{}, edits: map[string]struct{ Old, New string }{}, applied: map[string]bool{}}
	for _, lang := range langs {
		l, _ := snippets.LanguageNamed(lang)
		m.edits[l.FileName] = struct{ Old, New string }{code, strings.ToLower(code)}
	}
	rep, err := Run(context.Background(), c, Options{
		Languages: langs, Runner: m, Scenarios: []string{"in-flight-conflict-retried"},
		Vars:     runtimeVars(),
		Parallel: 2, MaxProcs: 4,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rep.Outcomes {
		l, _ := snippets.LanguageNamed(o.Language)
		switch {
		case !m.applied[l.FileName]:
			t.Errorf("%s: the snippet has no %s to edit", o.Language, code)
		case o.Passed():
			t.Errorf("%s: a snippet expecting %s took %s for it", o.Language, strings.ToLower(code), code)
		}
	}
}
