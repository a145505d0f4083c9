package idempotency_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/alerting"
	"github.com/retryspec/retryspec/idempotency/keystore"
)

// exampleContract loads an example contract from examples/NAME, with
// some values replaced.
func exampleContract(t testing.TB, name string, replace ...string) *contract.Contract {
	t.Helper()
	c, err := contract.Load("../examples/" + name + "/retryspec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(replace) == 0 {
		return c
	}
	src := string(c.Source)
	for i := 0; i+1 < len(replace); i += 2 {
		if !strings.Contains(src, replace[i]) {
			t.Fatalf("contract has no %q", replace[i])
		}
		src = strings.Replace(src, replace[i], replace[i+1], 1)
	}
	if c, err = contract.Parse(c.File, []byte(src)); err != nil {
		t.Fatal(err)
	}
	return c
}

// echo is a handler that counts its runs and answers with the body it
// read, so a test sees that the middleware left the whole body to it.
type echo struct {
	runs atomic.Int64
	mu   sync.Mutex
	// bodies are the bodies each run read.
	bodies []string
	// gate, when set, holds the first run until it is closed; entered is
	// closed when that run has started.
	gate, entered chan struct{}
}

func (h *echo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := h.runs.Add(1)
	b, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.bodies = append(h.bodies, string(b))
	h.mu.Unlock()
	if h.gate != nil && n == 1 {
		close(h.entered)
		<-h.gate
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(b)
}

// served is a middleware serving some of a contract's operations with echo
// handlers, on a test clock.
type served struct {
	c       *contract.Contract
	store   keystore.Store
	mw      *idempotency.Middleware
	h       map[string]http.Handler
	echo    map[string]*echo
	clock   *clock
	metrics *idempotency.Counters
	// logs holds what the middleware logged, as slog text.
	logs *syncBuffer
}

// syncBuffer is a bytes.Buffer safe for the handlers' goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func serve(t testing.TB, c *contract.Contract, store keystore.Store, opts idempotency.Options, operations ...string) *served {
	t.Helper()
	s := &served{c: c, store: store, h: map[string]http.Handler{}, echo: map[string]*echo{}, clock: newClock(), metrics: idempotency.NewCounters(), logs: &syncBuffer{}}
	opts.Now, opts.Metrics, opts.Log = s.clock.Now, s.metrics, slog.New(slog.NewTextHandler(s.logs, nil))
	opts.Account = func(r *http.Request) (string, bool) {
		a := r.Header.Get("X-Account")
		return a, a != "" && a != "anonymous"
	}
	var err error
	if s.mw, err = idempotency.New(c, store, opts); err != nil {
		t.Fatal(err)
	}
	for _, op := range operations {
		s.echo[op] = &echo{}
		if s.h[op], err = s.mw.Handle(op, s.echo[op]); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func (s *served) endpoint(t testing.TB, op string) contract.Endpoint {
	t.Helper()
	for _, e := range s.c.Endpoints {
		if e.Operation == op {
			return e
		}
	}
	t.Fatalf("no endpoint %s", op)
	return contract.Endpoint{}
}

// send sends k to operation op.
func (s *served) send(t testing.TB, op string, k keyed) *httptest.ResponseRecorder {
	t.Helper()
	if k.account == "" {
		k.account = "acct_a"
	}
	w := httptest.NewRecorder()
	s.h[op].ServeHTTP(w, k.request(s.c, s.endpoint(t, op)))
	return w
}

// sendRaw sends body as it is (no key added) to op.
func (s *served) sendRaw(t testing.TB, op, body string) *httptest.ResponseRecorder {
	t.Helper()
	return s.send(t, op, keyed{body: body})
}

// squareCode reads the code of a Square-shaped error body.
func squareCode(w *httptest.ResponseRecorder) string {
	var v struct {
		Errors []struct{ Code string }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil || len(v.Errors) == 0 {
		return ""
	}
	return v.Errors[0].Code
}

const payment = `{"source_id":"cnon:card-nonce-ok","amount_money":{"amount":1000,"currency":"USD"}}`

// TestBodyKey serves the Square example (key_in: body, key_field
// /idempotency_key, max_key_length 45 on CreatePayment and 192 API-wide)
// on every store: the key is read from the body, the handler still reads
// the whole body, and each way of sending no key or a bad one gets the
// answer the pages give it.
func TestBodyKey(t *testing.T) {
	const pay, order = "POST /v2/payments", "POST /v2/orders"
	for _, name := range allStores {
		t.Run(name, func(t *testing.T) {
			c := exampleContract(t, "square-payments")
			s := serve(t, c, openStore(t, name, c), idempotency.Options{MaxBodyBytes: 4096}, pay, order)
			sent := withBodyKey(payment, "idempotency_key", "pay-1")

			first := s.send(t, pay, keyed{key: "pay-1", body: payment})
			if first.Code != 201 || first.Body.String() != sent {
				t.Fatalf("first: %d %s, want 201 with the body the handler read, %s", first.Code, first.Body, sent)
			}
			again := s.send(t, pay, keyed{key: "pay-1", body: payment})
			if again.Code != 201 || !bytes.Equal(again.Body.Bytes(), first.Body.Bytes()) || s.echo[pay].runs.Load() != 1 {
				t.Errorf("retry: %d %s after %d runs, want the replay of the one run", again.Code, again.Body, s.echo[pay].runs.Load())
			}
			// The same key in another account is another key (scope: account).
			if w := s.send(t, pay, keyed{key: "pay-1", body: payment, account: "acct_b"}); w.Code != 201 || s.echo[pay].runs.Load() != 2 {
				t.Errorf("other account: %d %s", w.Code, w.Body)
			}

			rows := []struct {
				name string
				body string
				// status and code: the answer; 201 runs the handler.
				status int
				code   string
				kind   string
			}{
				{"another body under the key", withBodyKey(`{"amount_money":{"amount":1001,"currency":"USD"}}`, "idempotency_key", "pay-1"), 400, "IDEMPOTENCY_KEY_REUSED", alerting.KindPayloadMismatch},
				{"no key member", payment, 400, "MISSING_REQUIRED_PARAMETER", alerting.KindMissingKey},
				{"a null key", `{"idempotency_key":null,"amount":1}`, 400, "MISSING_REQUIRED_PARAMETER", alerting.KindMissingKey},
				{"an empty key", `{"idempotency_key":"","amount":1}`, 400, "MISSING_REQUIRED_PARAMETER", alerting.KindMissingKey},
				{"a body that is not JSON", `idempotency_key=pay-2`, 400, "MISSING_REQUIRED_PARAMETER", alerting.KindMissingKey},
				{"a JSON array", `[{"idempotency_key":"pay-2"}]`, 400, "MISSING_REQUIRED_PARAMETER", alerting.KindMissingKey},
				{"the key in a nested object only", `{"source":{"idempotency_key":"pay-2"}}`, 400, "MISSING_REQUIRED_PARAMETER", alerting.KindMissingKey},
				{"a number for a key", `{"idempotency_key":42}`, 400, "invalid_idempotency_key", alerting.KindInvalidKey},
				{"an object for a key", `{"idempotency_key":{"k":"pay-2"}}`, 400, "invalid_idempotency_key", alerting.KindInvalidKey},
				{"a key with a line break", `{"idempotency_key":"pay\n2"}`, 400, "invalid_idempotency_key", alerting.KindInvalidKey},
				{"46 characters: above CreatePayment's 45", withBodyKey(payment, "idempotency_key", strings.Repeat("k", 46)), 400, "invalid_idempotency_key", alerting.KindInvalidKey},
				{"45 characters", withBodyKey(payment, "idempotency_key", strings.Repeat("k", 45)), 201, "", ""},
				{"45 characters outside ASCII", withBodyKey(payment, "idempotency_key", strings.Repeat("é", 45)), 201, "", ""},
				{"a body above MaxBodyBytes", withBodyKey(`{"pad":"`+strings.Repeat("x", 4096)+`"}`, "idempotency_key", "pay-3"), 413, "body_too_large", ""},
			}
			for _, row := range rows {
				runs := s.echo[pay].runs.Load()
				conflicts := s.metrics.Get(alerting.Conflicts, pay, row.kind)
				w := s.sendRaw(t, pay, row.body)
				ran := s.echo[pay].runs.Load() - runs
				if w.Code != row.status || (row.code != "" && squareCode(w) != row.code) {
					t.Errorf("%s: %d %s, want %d %s", row.name, w.Code, w.Body, row.status, row.code)
				}
				if row.status == 201 {
					if ran != 1 || !strings.Contains(w.Body.String(), "cnon:card-nonce-ok") {
						t.Errorf("%s: %d runs, answer %s: want one run of the whole body", row.name, ran, w.Body)
					}
				} else if ran != 0 {
					t.Errorf("%s: the handler ran %d times", row.name, ran)
				}
				if row.kind != "" && s.metrics.Get(alerting.Conflicts, pay, row.kind) != conflicts+1 {
					t.Errorf("%s: %s{kind=%q} did not count it", row.name, alerting.Conflicts, row.kind)
				}
				if row.kind != "" && row.kind != alerting.KindPayloadMismatch && !strings.Contains(s.logs.String(), "kind="+row.kind) {
					t.Errorf("%s: no log line with kind=%s:\n%s", row.name, row.kind, s.logs)
				}
			}

			// CreateOrder takes a key optionally: without one the request
			// runs unkeyed, every time, with its body intact; with one it
			// is keyed (192 characters API-wide, not CreatePayment's 45).
			for range 2 {
				if w := s.sendRaw(t, order, `{"order":{"location_id":"L1"}}`); w.Code != 201 || w.Body.String() != `{"order":{"location_id":"L1"}}` {
					t.Errorf("unkeyed order: %d %s", w.Code, w.Body)
				}
			}
			long := strings.Repeat("o", 100)
			for range 2 {
				if w := s.send(t, order, keyed{key: long, body: `{"order":{}}`}); w.Code != 201 {
					t.Errorf("keyed order with a 100-character key: %d %s", w.Code, w.Body)
				}
			}
			if w := s.send(t, order, keyed{key: strings.Repeat("o", 193), body: `{"order":{}}`}); w.Code != 400 || squareCode(w) != "invalid_idempotency_key" {
				t.Errorf("order with a 193-character key: %d %s", w.Code, w.Body)
			}
			if n := s.echo[order].runs.Load(); n != 3 {
				t.Errorf("orders ran %d times, want 3 (two unkeyed, one keyed and its replay)", n)
			}
		})
	}
}

// TestEndpointKeyBoundOnHeader: a header key is held to its endpoint's
// own max_key_length too, not only to the API-wide one.
func TestEndpointKeyBoundOnHeader(t *testing.T) {
	c := payoutsContract(t, "    key: required                 # required | optional | none", "    key: required\n    max_key_length: 40")
	f := newFixture(t, c, idempotency.NewMemoryStore(c), idempotency.Options{})
	if w := f.do(strings.Repeat("k", 41), "acct_a", body); w.Code != 400 || code(t, w) != c.Idempotency.Conflicts.InvalidKey.Code {
		t.Errorf("41 characters on an endpoint taking 40: %d %s", w.Code, w.Body)
	}
	if w := f.do(strings.Repeat("k", 40), "acct_a", body); w.Code != 201 {
		t.Errorf("40 characters: %d %s", w.Code, w.Body)
	}
}
