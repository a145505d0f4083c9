package idempotency_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/internal/flaws"
)

// TestUnknownFlaw: a Flaw that is none of flaws.All (a name from a command
// line) is refused by New with the list of names; each of them, and no
// flaw, is accepted.
func TestUnknownFlaw(t *testing.T) {
	c := payoutsContract(t)
	opts := func(f flaws.Flaw) idempotency.Options {
		return idempotency.Options{Flaw: f, Account: func(*http.Request) (string, bool) { return "a", true }}
	}
	_, err := idempotency.New(c, idempotency.NewMemoryStore(c), opts("check-then-inserts"))
	want := `idempotency: unknown flaw "check-then-inserts" (one of check-then-insert, no-in-flight, no-fingerprint, ` +
		`replay-not-verbatim, global-scope, missing-key-accepted, fresh-downstream-key)`
	if err == nil || err.Error() != want {
		t.Errorf("a misspelt flaw: %v\nwant %s", err, want)
	}
	for _, f := range append([]flaws.Flaw{""}, flaws.All...) {
		if _, err := idempotency.New(c, idempotency.NewMemoryStore(c), opts(f)); err != nil {
			t.Errorf("flaw %q: %v", f, err)
		}
	}
}

// flawProperties are the properties the flaws break, each checked on the
// in-memory store: held reports whether it held, and what was seen.
var flawProperties = map[flaws.Flaw]func(t *testing.T, f *fixture) (held bool, seen string){
	flaws.CheckThenInsert: func(t *testing.T, f *fixture) (bool, string) {
		// Concurrent first attempts, round after round until two ran:
		// the race needs two requests inside one check-to-insert gap.
		for round := range 50 {
			start, key := make(chan struct{}), fmt.Sprint("race-", round)
			before := f.handler.runs.Load()
			var wg sync.WaitGroup
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					f.do(key, "acct_a", body)
				}()
			}
			close(start)
			wg.Wait()
			if n := f.handler.runs.Load() - before; n > 1 {
				return false, fmt.Sprintf("round %d: 16 concurrent first attempts ran %d times", round, n)
			}
		}
		return true, "50 rounds of 16 concurrent first attempts ran once each"
	},
	flaws.NoInFlight: func(t *testing.T, f *fixture) (bool, string) {
		f.handler.gate, f.handler.gatedRuns = make(chan struct{}), 1
		first := make(chan *httptest.ResponseRecorder, 1)
		go func() { first <- f.do("held", "acct_a", body) }()
		awaitRun(f.handler)
		w := f.do("held", "acct_a", body)
		close(f.handler.gate)
		<-first
		return f.handler.runs.Load() == 1, fmt.Sprintf("a retry of a key in flight got %d after %d runs", w.Code, f.handler.runs.Load())
	},
	flaws.NoFingerprint: func(t *testing.T, f *fixture) (bool, string) {
		f.do("fp", "acct_a", body)
		w := f.do("fp", "acct_a", strings.Replace(body, "1000", "1001", 1))
		return w.Code == 409 && code(t, w) == "invalid_idempotent_request", fmt.Sprintf("another body under the key got %d %s", w.Code, w.Body)
	},
	flaws.ReplayNotVerbatim: func(t *testing.T, f *fixture) (bool, string) {
		a, b := f.do("verbatim", "acct_a", body), f.do("verbatim", "acct_a", body)
		return bytes.Equal(a.Body.Bytes(), b.Body.Bytes()), fmt.Sprintf("replayed %q for %q", b.Body, a.Body)
	},
	flaws.GlobalScope: func(t *testing.T, f *fixture) (bool, string) {
		f.do("shared", "acct_a", body)
		w := f.do("shared", "acct_b", body)
		return f.handler.runs.Load() == 2, fmt.Sprintf("another account's same key got %d %s", w.Code, w.Body)
	},
	flaws.MissingKeyAccepted: func(t *testing.T, f *fixture) (bool, string) {
		w := f.do("", "acct_a", body)
		return w.Code == 400 && f.handler.runs.Load() == 0, fmt.Sprintf("a request without a key got %d after %d runs", w.Code, f.handler.runs.Load())
	},
	flaws.FreshDownstreamKey: func(t *testing.T, f *fixture) (bool, string) {
		var keys []string
		f.handler.onRun = func(s *idempotency.Step) {
			for range 2 {
				k, err := s.DownstreamKey(context.Background(), "charge_bank")
				if err != nil {
					t.Fatal(err)
				}
				keys = append(keys, k)
			}
		}
		f.do("downstream", "acct_a", body)
		return keys[0] == keys[1], fmt.Sprintf("charge_bank's key asked twice in one run: %q", keys)
	},
}

// TestFlawsBreakTheirProperty: each flaw breaks the property it is named
// for, which holds without it; the reference server's tests and verify's
// show the same against a real store.
func TestFlawsBreakTheirProperty(t *testing.T) {
	for _, flaw := range flaws.All {
		property := flawProperties[flaw]
		if property == nil {
			t.Errorf("flaw %s has no property in flawProperties", flaw)
			continue
		}
		for _, on := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/%v", flaw, on), func(t *testing.T) {
				c := payoutsContract(t)
				opts := idempotency.Options{}
				if on {
					opts.Flaw = flaw
				}
				held, seen := property(t, newFixture(t, c, idempotency.NewMemoryStore(c), opts))
				if held == on {
					t.Errorf("flaw on: %v, property held: %v: %s", on, held, seen)
				}
			})
		}
	}
}

// TestMissingKeyAcceptedReadsTheKeyWhereItTravels: under a body-key
// contract (the Square example) the flaw lets through only the requests
// without a key member; a request with one is still the middleware's (a
// retry replays, the handler runs once), and the handler reads the whole
// body either way. With the flaw reading the key header, which a body-key
// contract never sends, every request skipped the middleware.
func TestMissingKeyAcceptedReadsTheKeyWhereItTravels(t *testing.T) {
	const pay = "POST /v2/payments"
	c := exampleContract(t, "square-payments")
	s := serve(t, c, idempotency.NewMemoryStore(c), idempotency.Options{Flaw: flaws.MissingKeyAccepted}, pay)
	sent := withBodyKey(payment, "idempotency_key", "pay-1")
	a, b := s.send(t, pay, keyed{key: "pay-1", body: payment}), s.send(t, pay, keyed{key: "pay-1", body: payment})
	if a.Code != 201 || a.Body.String() != sent || !bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) || s.echo[pay].runs.Load() != 1 {
		t.Errorf("a keyed request and its retry under the flaw: %d %s / %d %s after %d runs, want one run and its replay",
			a.Code, a.Body, b.Code, b.Body, s.echo[pay].runs.Load())
	}
	if w := s.sendRaw(t, pay, payment); w.Code != 201 || w.Body.String() != payment || s.echo[pay].runs.Load() != 2 {
		t.Errorf("a request without a key under the flaw: %d %s after %d runs, want the handler's 201 with the whole body",
			w.Code, w.Body, s.echo[pay].runs.Load())
	}
}
