package idempotency_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/alerting"
	"github.com/retryspec/retryspec/idempotency/keystore"
	"github.com/retryspec/retryspec/idempotency/stores"
	"github.com/retryspec/retryspec/internal/dbtest"
)

// payoutsOp is an endpoint whose path has a parameter, added to the
// example contract beside POST /v1/transfers.
const payoutsOp = "POST /v1/accounts/{id}/payouts"

// payoutsHandler is a two-phase handler on payoutsOp that reads the
// account from the path, as a service under net/http's ServeMux does.
// Its first run commits the first phase and gives the key up (a bank call
// that timed out), leaving the key unfinished; later runs finish it.
type payoutsHandler struct {
	runs int
	seen []string // "PathValue(id) URL.RequestURI()" of each run
}

func (p *payoutsHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	step := idempotency.FromContext(ctx)
	p.runs++
	p.seen = append(p.seen, r.PathValue("id")+" "+r.URL.RequestURI())
	if !step.Reached("payout_created") {
		if err := step.Commit(ctx, "payout_created", nil); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	if p.runs == 1 {
		_ = step.Release(ctx)
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"account":%q,"run":%d}`, r.PathValue("id"), p.runs)
	if err := step.Finish(ctx, nil); err != nil {
		panic(err)
	}
}

// payoutsFixture is the transfers fixture with payoutsOp in the contract
// and its handler behind a ServeMux; replace are more replacements for
// payoutsContract.
func payoutsFixture(t *testing.T, store func(*contract.Contract) keystore.Store, opts idempotency.Options, replace ...string) (*fixture, *payoutsHandler, *http.ServeMux) {
	t.Helper()
	c := payoutsContract(t, append(replace, "  - operation: GET /v1/transfers/{id}",
		"  - operation: "+payoutsOp+"\n    effect: create\n    key: required\n    external_calls: [pay_out]\n    recovery_points: [payout_created, paid]\n    max_duration: 45s\n  - operation: GET /v1/transfers/{id}")...)
	f := newFixture(t, c, store(c), opts)
	p := &payoutsHandler{}
	h, err := f.mw.Handle(payoutsOp, p)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(payoutsOp, h)
	return f, p, mux
}

func postPayout(mux http.Handler, key string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", "/v1/accounts/acct_9/payouts?notify=email", strings.NewReader(body))
	r.Header.Set("Idempotency-Key", key)
	r.Header.Set("X-Account", "acct_a")
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, r)
	return w
}

// TestCompleterFinishesParameterisedPath (issue 26 item 9): a key left
// unfinished on /v1/accounts/{id}/payouts is finished by the completer,
// whose rebuilt request has the first attempt's path, query and path
// value; the client's retry then gets the stored response. Before the
// store kept the request's target, the completer skipped such paths.
func TestCompleterFinishesParameterisedPath(t *testing.T) {
	for _, name := range allStores {
		t.Run(name, func(t *testing.T) {
			f, p, mux := payoutsFixture(t, func(c *contract.Contract) keystore.Store { return openStore(t, name, c) }, idempotency.Options{})
			if w := postPayout(mux, "payout-1"); w.Code != http.StatusBadGateway {
				t.Fatalf("first attempt: %d %s", w.Code, w.Body)
			}
			f.clock.Add(2*time.Minute + time.Second)
			n, err := f.mw.Complete(context.Background(), 10)
			if err != nil || n != 1 {
				t.Fatalf("completer finished %d keys (%v), want 1; handler runs %v", n, err, p.seen)
			}
			want := []string{"acct_9 /v1/accounts/acct_9/payouts?notify=email", "acct_9 /v1/accounts/acct_9/payouts?notify=email"}
			if strings.Join(p.seen, "|") != strings.Join(want, "|") {
				t.Errorf("runs saw %q, want %q", p.seen, want)
			}
			w := postPayout(mux, "payout-1")
			if w.Code != http.StatusCreated || w.Body.String() != `{"account":"acct_9","run":2}` || p.runs != 2 {
				t.Errorf("retry after the completer: %d %s (handler runs %d), want the completer's 201 replayed", w.Code, w.Body, p.runs)
			}
		})
	}
}

// TestUpgradedTableKeepsServing (issue 26 item 9): a key table from before
// request_target existed is refused by stores.Open without migrate, with
// the statement that fixes it, and upgraded with it; a key left unfinished
// before the upgrade (its target NULL) on a path with parameters is
// skipped by the completer, logged with key and account and counted, and
// the client's retry still takes it over and finishes it.
func TestUpgradedTableKeepsServing(t *testing.T) {
	for _, name := range dbtest.Names {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			url := dbtest.Fresh(t, name, os.Getenv)
			open := func(c *contract.Contract) keystore.Store {
				s, err := stores.Open(ctx, url, c, true)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.DB().Close() })
				return s
			}
			f, _, mux := payoutsFixture(t, open, idempotency.Options{})
			if w := postPayout(mux, "old-key"); w.Code != http.StatusBadGateway {
				t.Fatalf("first attempt: %d %s", w.Code, w.Body)
			}
			// The table as an earlier release created it: no target kept.
			if _, err := f.store.(*stores.SQLStore).DB().ExecContext(ctx, "ALTER TABLE idempotency_keys DROP COLUMN request_target"); err != nil {
				t.Fatal(err)
			}
			if _, err := stores.Open(ctx, url, f.c, false); err == nil || !strings.Contains(err.Error(), "ALTER TABLE idempotency_keys ADD COLUMN request_target") {
				t.Fatalf("opening the old table without migrate: %v, want an error naming the ALTER TABLE", err)
			}
			var logs bytes.Buffer
			f, p, mux := payoutsFixture(t, open, idempotency.Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
			p.runs = 1 // runs after the first finish
			f.clock.Add(2*time.Minute + time.Second)
			if n, err := f.mw.Complete(ctx, 10); err != nil || n != 0 || p.runs != 1 {
				t.Fatalf("completer on a row without target: finished %d (%v), handler runs %d; want it skipped", n, err, p.runs-1)
			}
			if got := f.metrics.Get(alerting.CompleterSkipped, payoutsOp, alerting.SkipNoTarget); got != 1 {
				t.Errorf("skips counted: %d, want 1", got)
			}
			if !strings.Contains(logs.String(), "key=old-key account=acct_a recovery_point=payout_created reason=no_request_target") {
				t.Errorf("skip not logged with key and account:\n%s", logs.String())
			}
			if w := postPayout(mux, "old-key"); w.Code != http.StatusCreated || p.runs != 2 {
				t.Errorf("the client's retry of the old key: %d %s, want 201", w.Code, w.Body)
			}
		})
	}
}

// TestPathValues: the completer reads a stored path's parameters as
// ServeMux does (one whole segment each, unescaped), and matches nothing
// it cannot be sure of.
func TestPathValues(t *testing.T) {
	for _, tc := range []struct {
		template, path string
		want           string // name=value pairs, or "no match"
	}{
		{"/v1/accounts/{id}/payouts", "/v1/accounts/acct_9/payouts", "id=acct_9"},
		{"/v1/accounts/{id}/payouts/{payout}", "/v1/accounts/a%2Fb/payouts/p%201", "id=a/b payout=p 1"},
		{"/v1/transfers", "/v1/transfers", ""},
		{"/v1/accounts/{id}/payouts", "/v1/accounts//payouts", "no match"},
		{"/v1/accounts/{id}/payouts", "/v1/accounts/a/b/payouts", "no match"},
		{"/v1/accounts/{id}/payouts", "/accounts/acct_9/payouts", "no match"},
		{"/v1/reports/{id}.json", "/v1/reports/r1.json", "no match"},
		{"/v1/accounts/{id}/payouts", "/v1/accounts/%zz/payouts", "no match"},
	} {
		names, values, ok := idempotency.PathValues(tc.template, tc.path)
		got := "no match"
		if ok {
			var pairs []string
			for i := range names {
				pairs = append(pairs, names[i]+"="+values[i])
			}
			got = strings.Join(pairs, " ")
		}
		if got != tc.want {
			t.Errorf("%s against %s: %q, want %q", tc.path, tc.template, got, tc.want)
		}
	}
}
