package verify

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
)

func payouts(t testing.TB) *contract.Contract {
	t.Helper()
	c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "examples", "payouts", "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

const goodPlan = `base_url: http://127.0.0.1:8080
headers:
  Authorization: "Bearer ${API_TOKEN}"
operations:
  "POST /v1/transfers":
    body: {"amount": 1000, "currency": "usd", "destination": "acct_1"}
    effects:
      request: "GET /v1/transfers?idempotency_key={key}"
      count: /count
`

func TestParsePlan(t *testing.T) {
	p, err := ParsePlan("plan.yaml", []byte(goodPlan), payouts(t), env(map[string]string{"API_TOKEN": "s3cret"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Operations) != 1 || p.Concurrency != 16 || p.BaseURL != "http://127.0.0.1:8080" {
		t.Fatalf("plan = %+v", p)
	}
	op := p.Operations[0]
	if got, want := string(op.Body), `{"amount":1000,"currency":"usd","destination":"acct_1"}`; got != want {
		t.Errorf("body %s, want %s", got, want)
	}
	if p.Headers[0].Value != "Bearer s3cret" || len(p.secrets) != 1 {
		t.Errorf("headers %+v secrets %d", p.Headers, len(p.secrets))
	}
	if op.Effects.Method != "GET" || op.Effects.Count != "/count" {
		t.Errorf("effects %+v", op.Effects)
	}
}

// TestBadPlans: each problem is a diagnostic at the plan's line, with a fix.
func TestBadPlans(t *testing.T) {
	cases := []struct {
		name, plan string
		env        map[string]string
		line       int
		want       string
	}{
		{"unknown operation", "base_url: http://127.0.0.1:1\noperations:\n  \"POST /v1/transfer\":\n    body: {}\n", nil, 3, `operation "POST /v1/transfer" is not in the contract`},
		{"unkeyed operation", "base_url: http://127.0.0.1:1\noperations:\n  \"GET /v1/transfers/{id}\":\n    path: {id: x}\n", nil, 3, "key: none"},
		{"body not JSON", "base_url: http://127.0.0.1:1\noperations:\n  \"POST /v1/transfers\":\n    body: '{amount: 1000'\n", nil, 4, "body is not JSON"},
		{"unset variable", "base_url: http://127.0.0.1:1\nheaders:\n  Authorization: \"Bearer ${NOPE_TOKEN}\"\noperations:\n  \"POST /v1/transfers\":\n    body: {}\n", nil, 3, "${NOPE_TOKEN}, which is not set"},
		{"unknown key", "base_url: http://127.0.0.1:1\nconcurency: 4\noperations:\n  \"POST /v1/transfers\":\n    body: {}\n", nil, 2, `unknown key "concurency"`},
		{"concurrency too high", "base_url: http://127.0.0.1:1\nconcurrency: 5000\noperations:\n  \"POST /v1/transfers\":\n    body: {}\n", nil, 2, "concurrency must be"},
		{"no operations", "base_url: http://127.0.0.1:1\n", nil, 1, "no operations"},
		{"no target", "operations:\n  \"POST /v1/transfers\":\n    body: {}\n", nil, 1, "neither base_url nor server"},
		{"effects without key", "base_url: http://127.0.0.1:1\noperations:\n  \"POST /v1/transfers\":\n    effects:\n      request: GET /v1/transfers\n      count: /count\n", nil, 5, "does not use {key}"},
		{"bad pointer", "base_url: http://127.0.0.1:1\noperations:\n  \"POST /v1/transfers\":\n    effects:\n      request: GET /x?k={key}\n      count: count\n", nil, 6, "not a JSON pointer"},
		{"command without addr", "server:\n  command: [./api]\noperations:\n  \"POST /v1/transfers\":\n    body: {}\n", nil, 2, "has no {addr}"},
		{"not yaml", "base_url: [\n", nil, 1, "not valid YAML"},
		{"bad base url", "base_url: ftp://x\noperations:\n  \"POST /v1/transfers\":\n    body: {}\n", nil, 1, "not an absolute http"},
		{"replay_window not a duration", "base_url: http://127.0.0.1:1\nreplay_window: soon\noperations:\n  \"POST /v1/transfers\":\n    body: {}\n", nil, 2, "replay_window must be a positive duration"},
		{"replay_window over the contract's", "base_url: http://127.0.0.1:1\nreplay_window: 25h\noperations:\n  \"POST /v1/transfers\":\n    body: {}\n", nil, 2, "longer than the contract's replay_window 24h"},
		{"alias in body", "base_url: http://127.0.0.1:1\nx: &a 1\noperations:\n  \"POST /v1/transfers\":\n    body: {n: *a}\n", nil, 5, "body is not JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePlan("plan.yaml", []byte(tc.plan), payouts(t), env(tc.env))
			var le *contract.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v, want a *contract.LoadError", err)
			}
			for _, d := range le.Diagnostics {
				if strings.Contains(d.Message, tc.want) {
					if d.Pos.Line != tc.line {
						t.Errorf("%q at line %d, want %d", d.Message, d.Pos.Line, tc.line)
					}
					if d.Fix == "" {
						t.Errorf("%q has no fix", d.Message)
					}
					if d.File != "plan.yaml" {
						t.Errorf("file %q", d.File)
					}
					return
				}
			}
			t.Errorf("no diagnostic contains %q: %v", tc.want, err)
		})
	}
}

func TestIncrementFirstNumber(t *testing.T) {
	for in, want := range map[string]string{
		`{"amount":1000,"currency":"usd"}`:     `{"amount":1001,"currency":"usd"}`,
		`{"note":"1000","n":[2.5,7]}`:          `{"note":"1000","n":[3.5,7]}`,
		`{"a":{"b":-3}}`:                       `{"a":{"b":-2}}`,
		`{"currency":"usd"}`:                   ``,
		`{"id":"x7","amount":1e3,"other":1e3}`: `{"id":"x7","amount":1001,"other":1e3}`,
	} {
		if got := string(incrementFirstNumber([]byte(in))); got != want {
			t.Errorf("incrementFirstNumber(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestErrorCode(t *testing.T) {
	for in, want := range map[string]string{
		`{"code":"a"}`: "a",
		`{"error":{"code":"b","detail":{"code":"deeper"}}}`: "b",
		`{"error":{"type":"x"},"meta":{"code":"c"}}`:        "c",
		`{"code":5,"error":{"code":"d"}}`:                   "d",
		`not json`:                                          "",
	} {
		if got := errorCode([]byte(in)); got != want {
			t.Errorf("errorCode(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestFillTarget(t *testing.T) {
	got := fillTarget("/v1/accounts/{id}/transfers?idempotency_key={key}&x=1", map[string]string{"id": "a b/c"}, "k&y=1")
	want := "/v1/accounts/a%20b%2Fc/transfers?idempotency_key=k%26y%3D1&x=1"
	if got != want {
		t.Errorf("fillTarget = %s, want %s", got, want)
	}
}

func TestCurlMasksAndQuotes(t *testing.T) {
	r := Request{Method: "POST", URL: "http://127.0.0.1:1/v1/x", Headers: []sentHeader{{Name: "Authorization", Value: "Bearer s3cret", Secret: true}, {Name: "Idempotency-Key", Value: "k'1"}}, Body: []byte(`{"a":"it's"}`)}
	got := r.Curl()
	want := `curl -sS -i -X POST 'http://127.0.0.1:1/v1/x' -H 'Authorization: ***' -H 'Idempotency-Key: k'\''1' --data-raw '{"a":"it'\''s"}'`
	if got != want {
		t.Errorf("Curl() =\n%s\nwant\n%s", got, want)
	}
}

func TestCheckTarget(t *testing.T) {
	for u, ok := range map[string]bool{
		"http://127.0.0.1:8080":       true,
		"http://localhost:1":          true,
		"http://[::1]:9":              true,
		"https://api.example.com":     false,
		"http://10.0.0.1:80":          false,
		"http://127.0.0.1.nip.io:800": false,
	} {
		if err := CheckTarget(u, false); (err == nil) != ok {
			t.Errorf("CheckTarget(%s) = %v", u, err)
		}
		if err := CheckTarget(u, true); err != nil {
			t.Errorf("CheckTarget(%s, yes) = %v", u, err)
		}
	}
}

func TestStarterPlanLoads(t *testing.T) {
	c := payouts(t)
	data := StarterPlan(c, map[string][]byte{"POST /v1/transfers": []byte(`{"amount":1}`)})
	p, err := ParsePlan("retryspec.verify.yaml", data, c, env(map[string]string{"API_TOKEN": "a", "OTHER_API_TOKEN": "b"}))
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if len(p.Operations) != 1 || string(p.Operations[0].Body) != `{"amount":1}` || p.OtherPrincipal == nil {
		t.Errorf("starter plan = %+v", p)
	}
}
