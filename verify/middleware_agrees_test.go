package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/internal/testenv"
)

// TestMiddlewareAgrees runs verify against the Go middleware (its
// in-memory store) wrapping a handler that counts its runs per caller and
// key, under the issue-32 example contracts: Square's (the key in the JSON
// body, per-endpoint max lengths) and Azure's (a first-sent window and a
// result header). verify and the middleware read one contract; every gate
// passes, or skips with a reason, and none fails. The gates this test
// exists for must run, not skip.
func TestMiddlewareAgrees(t *testing.T) {
	for _, tc := range []struct {
		example string
		// shorten replaces text of the contract: Azure's 5-minute windows
		// become 10s ones, so verify/after-window waits 10s, not 5m.
		shorten []string
		ops     string
		mustRun []string
	}{
		{"square-payments", nil, `  "POST /v2/payments":
    body: {"source_id": "cnon:card-nonce-ok", "amount_money": {"amount": 1000, "currency": "USD"}}
    effects: {request: "GET /effects?key={key}", count: /count}
  "POST /v2/orders":
    body: {"order": {"location_id": "L1", "quantity": 1}}
    effects: {request: "GET /effects?key={key}", count: /count}
`, []string{GateMissingKey, GateKeyTooLong, GateConcurrency, GateReplay, GateMismatch, GateScope}},
		{"azure-email", []string{"replay_window: 5m ", "replay_window: 10s ", "window: 5m ", "window: 10s ", "duration: 5m", "duration: 10s", "max_elapsed: 2m", "max_elapsed: 8s"}, `  "POST /emails:send":
    body: {"senderAddress": "a@example.com", "content": {"subject": "Welcome"}}
    mismatch_body: {"senderAddress": "a@example.com", "content": {"subject": "Goodbye"}}
    effects: {request: "GET /effects?key={key}", count: /count}
`, []string{GateMissingKey, GateKeyTooLong, GateConcurrency, GateReplay, GateMismatch, GateScope, GateTooOld, GateResultHeader, GateAfterWindow}},
	} {
		t.Run(tc.example, func(t *testing.T) {
			c, err := contract.Load(filepath.Join(testenv.RepoRoot(t), "examples", tc.example, "retryspec.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if tc.shorten != nil {
				if c, err = contract.Parse(c.File, []byte(strings.NewReplacer(tc.shorten...).Replace(string(c.Source)))); err != nil {
					t.Fatal(err)
				}
			}
			srv := httptest.NewServer(newCounted(t, c))
			t.Cleanup(srv.Close)
			src := fmt.Sprintf("base_url: %s\nheaders:\n  Authorization: Bearer one\nother_principal:\n  Authorization: Bearer two\nrequest_timeout: 5s\nsettle: 0s\nconcurrency: 8\noperations:\n%s", srv.URL, tc.ops)
			plan, err := ParsePlan("plan.yaml", []byte(src), c, env(nil))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), Options{Contract: c, Plan: plan})
			if err != nil {
				t.Fatal(err)
			}
			noneFailed(t, res, tc.mustRun)
		})
	}
}

// noneFailed fails t when a gate of res failed or skipped without a
// reason, or a gate of mustRun did not pass.
func noneFailed(t *testing.T, res *Result, mustRun []string) {
	t.Helper()
	ran := map[string]bool{}
	for _, g := range res.Gates {
		switch {
		case g.Result == Failed:
			t.Errorf("%s %s failed: %s", g.Gate, g.Operation, g.Reason)
		case g.Result == Skipped && g.Reason == "":
			t.Errorf("%s %s skipped without a reason", g.Gate, g.Operation)
		case g.Result == Passed:
			ran[g.Gate] = true
		}
	}
	for _, id := range mustRun {
		if !ran[id] {
			t.Errorf("%s never passed", id)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Log(text(t, res))
	}
}

// counted is an API under the middleware: each keyed endpoint's handler
// counts its runs per caller and key (the key read where the contract
// says it travels), and GET /effects?key=K reads the caller's count.
type counted struct {
	c      *contract.Contract
	mu     sync.Mutex
	runs   map[string]int
	routes map[string]http.Handler
}

func newCounted(t *testing.T, c *contract.Contract) *counted {
	t.Helper()
	m, err := idempotency.New(c, idempotency.NewMemoryStore(c), idempotency.Options{Account: func(r *http.Request) (string, bool) {
		a := r.Header.Get("Authorization")
		return a, a != ""
	}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	s := &counted{c: c, runs: map[string]int{}, routes: map[string]http.Handler{}}
	for _, e := range c.Endpoints {
		if !e.Keyed() {
			continue
		}
		h, err := m.Handle(e.Operation, http.HandlerFunc(s.run))
		if err != nil {
			t.Fatal(err)
		}
		s.routes[e.Method+" "+e.Path] = h
	}
	return s
}

func (s *counted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/effects" {
		s.mu.Lock()
		n := s.runs[r.Header.Get("Authorization")+"\x00"+r.URL.Query().Get("key")]
		s.mu.Unlock()
		fmt.Fprintf(w, `{"count":%d}`, n)
		return
	}
	h, ok := s.routes[r.Method+" "+r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h.ServeHTTP(w, r)
}

// run is the handler: one run, one effect, under the key the request carried.
func (s *counted) run(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	key := r.Header.Get(s.c.Idempotency.Header)
	if member := s.c.Idempotency.KeyMember(); member != "" {
		var obj map[string]any
		_ = json.Unmarshal(body, &obj)
		key, _ = obj[member].(string)
	}
	s.mu.Lock()
	id := r.Header.Get("Authorization") + "\x00" + key
	s.runs[id]++
	n := len(s.runs)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"id":"r_%d","key":%q}`, n, strings.ToValidUTF8(key, ""))
}
