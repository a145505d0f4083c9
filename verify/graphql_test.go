package verify

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/golden"
)

// graphQLFake is a GraphQL API driven by its contract (key_in: graphql):
// it takes every mutation as a POST to idempotency.graphql.path, reads the
// key from the variable the contract's document passes it in, and answers
// every conflict with contract.GraphQLReply in a 200. flaw switches in one
// mistake: "ignores-key" (every mutation runs), "no-mismatch" (a used key
// with other arguments gets the stored response), "http-409" (conflicts
// answered with status 409 instead of a 200), "replay-differs" (a replay
// re-renders the stored answer, with other bytes), "keyless-runs" (a
// mutation without the key runs), "wrong-place" (conflict codes where the
// other errors_in would put them), "user-error" (every keyed mutation
// fails with a userErrors entry in a 200).
type graphQLFake struct{ fakeState }

func newGraphQLFake(t *testing.T, c *contract.Contract, flaw string) *httptest.Server {
	f := &graphQLFake{}
	f.init(c, flaw)
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv
}

func (f *graphQLFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/effects" {
		f.mu.Lock()
		n := f.count[r.URL.Query().Get("key")]
		f.mu.Unlock()
		fmt.Fprintf(w, `{"count":%d}`, n)
		return
	}
	g := f.c.Idempotency.GraphQL
	if r.Method != http.MethodPost || r.URL.Path != g.Path {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Query     string            `json:"query"`
		Variables map[string]string `json:"variables"`
	}
	if json.Unmarshal(body, &req) != nil {
		http.Error(w, "not a GraphQL request", http.StatusBadRequest)
		return
	}
	// "mutation name($v: String!) {": the operation is named after the field.
	mutation, _, _ := strings.Cut(strings.Fields(req.Query + " x")[1], "(")
	key := ""
	if strings.Contains(req.Query, ": $"+g.KeyVariable()) {
		key = req.Variables[g.KeyVariable()]
	}
	switch {
	case key == "" && f.flaw == "keyless-runs":
		f.keyed(w, newKey(8), mutation, "")
	case key == "":
		f.reply(w, contract.ReplyMissingKey, mutation)
	case len(key) > f.c.Idempotency.MaxKeyLength:
		f.reply(w, contract.ReplyInvalidKey, mutation)
	default:
		f.keyed(w, key, mutation, fmt.Sprintf("%x", sha256.Sum256(body)))
	}
}

// keyed runs a keyed mutation: claim, work, store, or answer the key's
// conflict or its stored response.
func (f *graphQLFake) keyed(w http.ResponseWriter, key, mutation, fp string) {
	f.mu.Lock()
	k, seen := f.keys[key]
	if !seen || f.flaw == "ignores-key" {
		k = &fakeKey{fingerprint: fp}
		f.keys[key] = k
		seen = false
	}
	done, stored := k.done, k.body
	f.mu.Unlock()
	switch {
	case !seen:
	case k.fingerprint != fp && f.flaw != "no-mismatch":
		f.reply(w, contract.ReplyPayloadMismatch, mutation)
		return
	case !done:
		f.reply(w, contract.ReplyInFlight, mutation)
		return
	case f.flaw == "replay-differs":
		var v any
		_ = json.Unmarshal(stored, &v)
		out, _ := json.MarshalIndent(v, "", " ")
		w.Write(out)
		return
	default:
		w.Write(stored)
		return
	}
	time.Sleep(20 * time.Millisecond) // the work
	f.mu.Lock()
	f.seq++
	f.count[key]++
	out := fmt.Sprintf(`{"data":{%q:{"id":"gid://fake/%d","userErrors":[]}}}`, mutation, f.seq)
	if f.flaw == "user-error" {
		out = fmt.Sprintf(`{"data":{%q:{"userErrors":[{"code":"INVALID","message":"no such location"}]}}}`, mutation)
	}
	k.done, k.body = true, []byte(out)
	f.mu.Unlock()
	w.Write([]byte(out))
}

// reply writes answer k as the contract's 200 with an error entry, or
// under the http-409 flaw with status 409.
func (f *graphQLFake) reply(w http.ResponseWriter, k contract.ReplyKind, mutation string) {
	w.Header().Set("Content-Type", "application/json")
	if f.flaw == "http-409" {
		w.WriteHeader(http.StatusConflict)
	}
	c := f.c
	if f.flaw == "wrong-place" {
		moved := *f.c
		moved.Idempotency.GraphQL.ErrorsIn = contract.ErrorsInErrors
		c = &moved
	}
	io.WriteString(w, c.GraphQLReply(k, mutation).String())
}

// graphQLPlan is a plan for the Shopify example's first mutation, its
// body the contract's example arguments.
func graphQLPlan(t *testing.T, c *contract.Contract, base string) *Plan {
	t.Helper()
	ep := c.Endpoints[0]
	args, ok := ep.ExampleBody()
	if !ok {
		t.Fatalf("%s has no example body", ep.Operation)
	}
	src := fmt.Sprintf(`base_url: %s
request_timeout: 5s
settle: 0s
concurrency: 4
operations:
  %q:
    body: %s
    effects:
      request: "GET /effects?key={key}"
      count: /count
`, base, ep.Operation, args.String())
	p, err := ParsePlan("plan.yaml", []byte(src), c, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGraphQLFake: against the Shopify example, a sound GraphQL server
// passes every gate or is skipped with a reason, and each flaw fails the
// gate meant to catch it. The example states no missing_key or
// invalid_key, so any refusal of those is the contract's; with
// missing_key stated ("stated"), its code in a 200 is required.
func TestGraphQLFake(t *testing.T) {
	shopify := loadExample(t, "shopify-inventory")
	stated := shopifyWithMissingKey(t)
	for _, tt := range []struct {
		name, flaw string
		c          *contract.Contract
		fail, pass []string
	}{
		{"sound", "", shopify, nil, nil},
		{"sound stated", "", stated, nil, nil},
		{"ignores-key", "ignores-key", shopify, []string{GateConcurrency}, nil},
		{"no-mismatch", "no-mismatch", shopify, []string{GateMismatch}, nil},
		// Unstated, missing_key and invalid_key are any refusal: a 409 too.
		{"http-409", "http-409", shopify, []string{GateConcurrency, GateMismatch}, []string{GateMissingKey, GateKeyTooLong}},
		{"http-409 stated", "http-409", stated, []string{GateMissingKey, GateConcurrency, GateMismatch}, []string{GateKeyTooLong}},
		{"replay-differs", "replay-differs", shopify, []string{GateReplay}, nil},
		{"keyless-runs", "keyless-runs", shopify, []string{GateMissingKey}, nil},
		{"wrong-place", "wrong-place", shopify, []string{GateConcurrency, GateMismatch}, nil},
		{"user-error", "user-error", shopify, []string{GateReplay, GateMismatch}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newGraphQLFake(t, tt.c, tt.flaw)
			res, err := Run(context.Background(), Options{Contract: tt.c, Plan: graphQLPlan(t, tt.c, srv.URL)})
			if err != nil {
				t.Fatal(err)
			}
			got := results(res)
			for _, g := range res.Gates {
				if g.Result == Skipped && g.Reason == "" {
					t.Errorf("%s skipped without a reason", g.Gate)
				}
				if tt.flaw == "" && g.Result == Failed {
					t.Errorf("sound server: %s failed: %s", g.Gate, g.Reason)
				}
			}
			for _, id := range tt.fail {
				if got[id] != Failed {
					t.Errorf("%s = %s, want failed (%v)", id, got[id], got)
				}
			}
			for _, id := range tt.pass {
				if got[id] != Passed {
					t.Errorf("%s = %s, want passed (%v)", id, got[id], got)
				}
			}
			if tt.flaw == "" {
				for _, id := range []string{GateMissingKey, GateKeyTooLong, GateConcurrency, GateReplay, GateMismatch} {
					if got[id] != Passed {
						t.Errorf("sound server: %s = %s, want passed", id, got[id])
					}
				}
				wantReason(t, res, GateKeyForm, "$"+tt.c.Idempotency.GraphQL.KeyVariable())
				if tt.c == shopify {
					wantReason(t, res, GateMissingKey, "states no code")
				} else {
					wantReason(t, res, GateMissingKey, tt.c.Idempotency.GraphQL.CodeAt(tt.c.Endpoints[0].Mutation))
				}
			}
		})
	}
}

func wantReason(t *testing.T, res *Result, gate, part string) {
	t.Helper()
	for _, g := range res.Gates {
		if g.Gate == gate && !strings.Contains(g.Reason, part) {
			t.Errorf("%s: reason %q lacks %q", gate, g.Reason, part)
		}
	}
}

// TestGraphQLScopeGlobal: under scope: global, another caller's use of a
// key may be refused with a GraphQL conflict, a 200 with an error entry.
func TestGraphQLScopeGlobal(t *testing.T) {
	c := loadExample(t, "shopify-inventory")
	c.Idempotency.Scope = contract.ScopeGlobal
	op := graphQLPlan(t, c, "http://127.0.0.1:1").Operations[0]
	r := &runner{c: c, cur: &gateState{op: op}}
	answer := func(body string) Response {
		return Response{Status: 200, Body: []byte(body), BodyLen: int64(len(body)), BodySum: sha256.Sum256([]byte(body))}
	}
	conflict := answer(c.GraphQLReply(contract.ReplyPayloadMismatch, op.Endpoint.Mutation).String())
	first := answer(`{"data":{}}`)
	if f := r.scopeGlobal(scopeSeen{op: op, first: first, resp: conflict}); f != nil {
		t.Errorf("a GraphQL conflict to the other caller: %s", f.msg)
	}
	if f := r.scopeGlobal(scopeSeen{op: op, first: first, resp: first}); f != nil {
		t.Errorf("a replay to the other caller: %s", f.msg)
	}
	fresh := answer(`{"data":{"x":1}}`)
	if f := r.scopeGlobal(scopeSeen{op: op, first: first, resp: fresh}); f == nil {
		t.Error("a new outcome for the other caller passed scope: global")
	}
}

// TestGraphQLMatches: a stated conflict is its status (200) with its code
// at CodeAt, nowhere else and with no other status; an unstated one is
// any refusal.
func TestGraphQLMatches(t *testing.T) {
	c := shopifyWithMissingKey(t)
	op := graphQLPlan(t, c, "http://127.0.0.1:1").Operations[0]
	r := &runner{c: c, cur: &gateState{op: op}}
	m := op.Endpoint.Mutation
	reply := func(status int, k contract.ReplyKind) Response {
		return Response{Status: status, Body: []byte(c.GraphQLReply(k, m).String())}
	}
	cs := c.Idempotency.Conflicts
	for _, tt := range []struct {
		name string
		resp Response
		want contract.Conflict
		ok   bool
	}{
		{"stated, its code in a 200", reply(200, contract.ReplyMissingKey), cs.MissingKey, true},
		{"stated, another code", reply(200, contract.ReplyInFlight), cs.MissingKey, false},
		{"stated, its code in a 409", reply(409, contract.ReplyMissingKey), cs.MissingKey, false},
		{"stated, a clean 200", Response{Status: 200, Body: []byte(`{"data":{"` + m + `":{"userErrors":[]}}}`)}, cs.MissingKey, false},
		{"unstated, a 400", Response{Status: 400, Body: []byte(`bad`)}, cs.InvalidKey, true},
		{"unstated, a 200 with an error", Response{Status: 200, Body: []byte(`{"errors":[{"message":"no"}]}`)}, cs.InvalidKey, true},
		{"unstated, a clean 200", Response{Status: 200, Body: []byte(`{"data":{}}`)}, cs.InvalidKey, false},
		{"unstated, a 500", Response{Status: 500}, cs.InvalidKey, false},
	} {
		if got := r.matches(tt.resp, tt.want); got != tt.ok {
			t.Errorf("%s: matches = %v, want %v", tt.name, got, tt.ok)
		}
	}
}

// TestGraphQLPlanBody: a plan body the mutation document cannot carry is
// refused at its line, with a fix.
func TestGraphQLPlanBody(t *testing.T) {
	c := loadExample(t, "shopify-inventory")
	for _, body := range []string{`{"input": {"not-a-name": 1}}`, `[1]`, `'"text"'`} {
		src := "base_url: http://127.0.0.1:1\noperations:\n  \"mutation inventorySetQuantities\":\n    body: " + body + "\n    mismatch_body: {\"input\": {\"delta\": 6}}\n"
		_, err := ParsePlan("plan.yaml", []byte(src), c, env(nil))
		var le *contract.LoadError
		if !errors.As(err, &le) || len(le.Diagnostics) != 1 {
			t.Fatalf("body %s: err = %v, want one diagnostic", body, err)
		}
		if d := le.Diagnostics[0]; d.Pos.Line != 4 || d.Fix == "" || !strings.Contains(d.Message, "GraphQL arguments") {
			t.Errorf("body %s: %d:%d %s (fix %q)", body, d.Pos.Line, d.Pos.Column, d.Message, d.Fix)
		}
	}
}

// shopifyWithMissingKey is the Shopify example with a stated missing_key.
func shopifyWithMissingKey(t *testing.T) *contract.Contract {
	t.Helper()
	path := filepath.Join("..", "examples", "shopify-inventory", "retryspec.yaml")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	anchor := "  conflicts:"
	i := strings.Index(string(src), anchor)
	if i < 0 {
		t.Fatalf("%s has no %q", path, anchor)
	}
	i += strings.Index(string(src[i:]), "\n") + 1
	out := string(src[:i]) + "    missing_key: { code: IDEMPOTENCY_KEY_MISSING }\n" + string(src[i:])
	c, err := contract.Parse(path, []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGraphQLRequest: the request verify sends is a POST to the GraphQL
// path carrying MutationDocument and the key as its variable; without a
// key, the document the contract would send without one.
func TestGraphQLRequest(t *testing.T) {
	c := loadExample(t, "shopify-inventory")
	p := graphQLPlan(t, c, "http://127.0.0.1:1")
	op := p.Operations[0]
	r := &runner{c: c, plan: p, base: "http://127.0.0.1:1", cur: &gateState{op: op}}
	args, _ := op.Endpoint.ExampleBody()
	g := c.Idempotency.GraphQL
	for _, tt := range []struct {
		key, query string
		vars       map[string]string
	}{
		{"k1", g.MutationDocument(op.Endpoint.Mutation, args, true), map[string]string{g.KeyVariable(): "k1"}},
		{"", g.UnkeyedDocument(op.Endpoint.Mutation, args, true), map[string]string{}},
	} {
		req := r.opRequest(op, tt.key, op.Body, primary)
		var got struct {
			Query     string            `json:"query"`
			Variables map[string]string `json:"variables"`
		}
		if err := json.Unmarshal(req.Body, &got); err != nil {
			t.Fatal(err)
		}
		if req.Method != http.MethodPost || req.URL != "http://127.0.0.1:1"+g.Path || got.Query != tt.query || fmt.Sprint(got.Variables) != fmt.Sprint(tt.vars) {
			t.Errorf("key %q: %s %s %s, want query %s variables %v", tt.key, req.Method, req.URL, req.Body, tt.query, tt.vars)
		}
		for _, h := range req.Headers {
			if h.Name == c.Idempotency.Header && h.Name != "" {
				t.Errorf("key %q: the key also went in the %s header", tt.key, h.Name)
			}
		}
	}
}

// TestDryRunGraphQLGolden: the dry run of a GraphQL contract lists curl
// commands that POST the mutation to the GraphQL path.
func TestDryRunGraphQLGolden(t *testing.T) {
	c := loadExample(t, "shopify-inventory")
	// The example's keys are at most 36 characters: the gates draw 36, the
	// key-too-long gate 37.
	drawn := regexp.MustCompile(`\b[a-z0-9]{36,37}\b`)
	got := drawn.ReplaceAllString(strings.Join(DryRun(Options{Contract: c, Plan: graphQLPlan(t, c, "http://127.0.0.1:8080")}), "\n")+"\n", "KEY")
	golden.Check(t, filepath.Join("testdata", "dryrun", "graphql.golden"), []byte(got))
}
