package verify

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
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
			if (g.Result == Passed) != tc.pass {
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

// TestPlaceholdersInPathAndHeaders: placeholders in path values and
// headers are drawn per key like the body's, and the effects request of a
// key names the same resource with the same headers as its operation's
// requests (so a per-key account path counts that account's effects).
func TestPlaceholdersInPathAndHeaders(t *testing.T) {
	type seen struct{ method, path, ref, key string }
	var mu sync.Mutex
	var reqs []seen
	stored := map[string][]byte{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if r.Method == "GET" {
			key = r.URL.Query().Get("idempotency_key")
		}
		mu.Lock()
		defer mu.Unlock()
		reqs = append(reqs, seen{r.Method, r.URL.Path, r.Header.Get("X-Request-Ref"), key})
		if r.Method == "GET" {
			n := 0
			if stored[r.URL.Path+key] != nil {
				n = 1
			}
			fmt.Fprintf(w, `{"count":%d}`, n)
			return
		}
		if stored[r.URL.Path+key] == nil {
			stored[r.URL.Path+key] = []byte(fmt.Sprintf(`{"id":"tr_%d"}`, len(stored)+1))
		} else {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		w.WriteHeader(201)
		w.Write(stored[r.URL.Path+key])
	}))
	defer srv.Close()
	c := payouts(t)
	c.Endpoints[0].Operation, c.Endpoints[0].Path = "POST /v1/accounts/{account}/transfers", "/v1/accounts/{account}/transfers"
	src := `base_url: ` + srv.URL + `
headers:
  X-Request-Ref: "ref-{uuid}"
settle: 0s
operations:
  "POST /v1/accounts/{account}/transfers":
    path: {account: "acct-{counter}"}
    body: {"amount": 1000}
    effects:
      request: "GET /v1/accounts/{account}/transfers?idempotency_key={key}"
      count: /count
`
	p, err := ParsePlan("plan.yaml", []byte(src), c, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Options{Contract: c, Plan: p, Only: []string{GateReplay}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Gates[0].Result != Passed {
		t.Fatalf("%s: %s", res.Gates[0].Result, res.Gates[0].Reason)
	}
	byKey := map[string][]seen{}
	for _, s := range reqs {
		byKey[s.key] = append(byKey[s.key], s)
	}
	if len(byKey) != 1 {
		t.Fatalf("requests of %d keys: %+v", len(byKey), reqs)
	}
	for _, ss := range byKey {
		first := ss[0]
		if !regexp.MustCompile(`^/v1/accounts/acct-\d+/transfers$`).MatchString(first.path) || !regexp.MustCompile(`^ref-[0-9a-f-]{36}$`).MatchString(first.ref) {
			t.Errorf("placeholders not filled: %+v", first)
		}
		for _, s := range ss[1:] {
			if s.path != first.path || s.ref != first.ref {
				t.Errorf("one key, two fills: %+v and %+v", first, s)
			}
		}
	}
}
