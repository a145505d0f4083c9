package idempotency_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency"
	"github.com/retryspec/retryspec/idempotency/alerting"
	"github.com/retryspec/retryspec/idempotency/keystore"
)

const (
	sendEmail = "POST /emails:send"
	email     = `{"senderAddress":"DoNotReply@example.azurecomm.net","recipients":{"to":[{"address":"ada@example.com"}]}}`
)

// serveAzure serves the Azure email example's send operation on store.
func serveAzure(t *testing.T, store string) (*contract.Contract, *served) {
	t.Helper()
	c := exampleContract(t, "azure-email")
	return c, serve(t, c, openStore(t, store, c), idempotency.Options{}, sendEmail)
}

// TestFirstSentWindow serves the Azure email example (first_sent window
// 5m, replay_window 5m, after_window: new-request, conflicts with no codes)
// on every store: retries inside the first-sent window replay, one past it
// gets too_old although its record is kept, a new first-sent time after
// the replay window is a new request, and a retry the window accepts (from
// a clock running ahead) never runs twice.
func TestFirstSentWindow(t *testing.T) {
	for _, name := range allStores {
		t.Run(name, func(t *testing.T) {
			_, s := serveAzure(t, name)
			runs := func() int64 { return s.echo[sendEmail].runs.Load() }
			t0 := s.clock.Now()

			if w := s.send(t, sendEmail, keyed{key: "mail-1", body: email, firstSent: t0}); w.Code != 201 || runs() != 1 {
				t.Fatalf("first: %d %s", w.Code, w.Body)
			}
			// Retries within the window replay, up to its last second.
			for _, after := range []time.Duration{time.Minute, 5 * time.Minute} {
				s.clock.Add(after - (s.clock.Now().Sub(t0)))
				if w := s.send(t, sendEmail, keyed{key: "mail-1", body: email, firstSent: t0}); w.Code != 201 || runs() != 1 {
					t.Errorf("retry %s after: %d %s, %d runs", after, w.Code, w.Body, runs())
				}
			}
			// A second later the first-sent time is too old: 412, before
			// the claim, although the record is still kept.
			s.clock.Add(time.Second)
			tooOld := s.metrics.Get(alerting.Conflicts, sendEmail, alerting.KindTooOld)
			if w := s.send(t, sendEmail, keyed{key: "mail-1", body: email, firstSent: t0}); w.Code != 412 || runs() != 1 {
				t.Errorf("retry past the first-sent window: %d %s, %d runs", w.Code, w.Body, runs())
			}
			if got := s.metrics.Get(alerting.Conflicts, sendEmail, alerting.KindTooOld); got != tooOld+1 {
				t.Errorf("too-old answers counted: %d, want %d", got, tooOld+1)
			}
			// A new first-sent time after the replay window is a new
			// request (after_window: new-request).
			if w := s.send(t, sendEmail, keyed{key: "mail-1", body: email, firstSent: s.clock.Now()}); w.Code != 201 || runs() != 2 {
				t.Errorf("the key with a new first-sent time after the window: %d %s, %d runs", w.Code, w.Body, runs())
			}

			// A client whose clock runs 25s ahead (within the skew): its
			// retry 5m10s after the first attempt is inside the first-sent
			// window but past the replay window, and is replayed, not run.
			t1 := s.clock.Now()
			ahead := t1.Add(25 * time.Second)
			if w := s.send(t, sendEmail, keyed{key: "mail-2", body: email, firstSent: ahead}); w.Code != 201 || runs() != 3 {
				t.Fatalf("first attempt from a clock ahead: %d %s", w.Code, w.Body)
			}
			s.clock.Add(5*time.Minute + 10*time.Second)
			if w := s.send(t, sendEmail, keyed{key: "mail-2", body: email, firstSent: ahead}); w.Code != 201 || runs() != 3 {
				t.Errorf("retry from a clock ahead, past the replay window: %d %s, %d runs (want the replay)", w.Code, w.Body, runs())
			}
		})
	}
}

func replyOf(kind string) contract.ReplyKind {
	if kind == alerting.KindTooOld {
		return contract.ReplyTooOld
	}
	return contract.ReplyInvalidKey
}

// TestFirstSentRefusedBeforeTheClaim: each refused first-sent time leaves
// no record, so the key is free for a request with a good one; the answer
// is the contract's (invalid_key's 400, too_old's 412).
func TestFirstSentRefusedBeforeTheClaim(t *testing.T) {
	for _, name := range allStores {
		t.Run(name, func(t *testing.T) {
			c, s := serveAzure(t, name)
			now := s.clock.Now()
			rows := []struct {
				name   string
				header []string // the first-sent header's lines
				status int
				kind   string
			}{
				{"no first-sent time", nil, 400, alerting.KindInvalidKey},
				{"not a date", []string{"yesterday"}, 400, alerting.KindInvalidKey},
				{"an ISO 8601 time", []string{now.Format(time.RFC3339)}, 400, alerting.KindInvalidKey},
				{"two first-sent lines", []string{now.Format(http.TimeFormat), now.Format(http.TimeFormat)}, 400, alerting.KindInvalidKey},
				{"a minute ahead (beyond the 30s skew)", []string{now.Add(time.Minute).Format(http.TimeFormat)}, 400, alerting.KindInvalidKey},
				{"5m1s old", []string{now.Add(-5*time.Minute - time.Second).Format(http.TimeFormat)}, 412, alerting.KindTooOld},
				{"a day old", []string{now.Add(-24 * time.Hour).Format(http.TimeFormat)}, 412, alerting.KindTooOld},
			}
			for i, row := range rows {
				key := "refused-" + string(rune('a'+i))
				conflicts := s.metrics.Get(alerting.Conflicts, sendEmail, row.kind)
				r := keyed{key: key, body: email, account: "acct_a"}.request(c, s.endpoint(t, sendEmail))
				for _, v := range row.header {
					r.Header.Add("Repeatability-First-Sent", v)
				}
				w := httptest.NewRecorder()
				s.h[sendEmail].ServeHTTP(w, r)
				if w.Code != row.status || w.Body.String() != string(c.Reply(replyOf(row.kind)).Bytes()) {
					t.Errorf("%s: %d %s, want %d %s", row.name, w.Code, w.Body, row.status, c.Reply(replyOf(row.kind)).Bytes())
				}
				if got := w.Header().Get("Repeatability-Result"); got != "rejected" {
					t.Errorf("%s: Repeatability-Result %q, want rejected", row.name, got)
				}
				if s.metrics.Get(alerting.Conflicts, sendEmail, row.kind) != conflicts+1 {
					t.Errorf("%s: not counted under kind %s", row.name, row.kind)
				}
				if !strings.Contains(s.logs.String(), "kind="+row.kind+" why=") || !strings.Contains(s.logs.String(), "key="+key) {
					t.Errorf("%s: no log line for the refusal:\n%s", row.name, s.logs)
				}
				if rec, err := s.store.Lookup(context.Background(), keystore.Key{Key: key, Account: "acct_a"}); err != nil || rec != nil {
					t.Errorf("%s: the key has a record (%+v, %v); a refused request claims nothing", row.name, rec, err)
				}
				if w := s.send(t, sendEmail, keyed{key: key, body: email, firstSent: now}); w.Code != 201 {
					t.Errorf("%s: the key with a good first-sent time: %d %s", row.name, w.Code, w.Body)
				}
			}
			if n := s.echo[sendEmail].runs.Load(); n != int64(len(rows)) {
				t.Errorf("%d runs, want %d (one per good request)", n, len(rows))
			}
			// The obsolete HTTP date forms RFC 9110 asks recipients to
			// accept, and a time within the skew ahead, are taken.
			for i, v := range []string{now.Format(time.RFC850), now.Format(time.ANSIC), now.Add(20 * time.Second).Format(http.TimeFormat)} {
				r := keyed{key: "form-" + string(rune('a'+i)), body: email, account: "acct_a"}.request(c, s.endpoint(t, sendEmail))
				r.Header.Set("Repeatability-First-Sent", v)
				w := httptest.NewRecorder()
				s.h[sendEmail].ServeHTTP(w, r)
				if w.Code != 201 {
					t.Errorf("first-sent %q: %d %s", v, w.Code, w.Body)
				}
			}
		})
	}
}

// TestResultHeader: on the Azure example every answer to a keyed request
// carries Repeatability-Result with the value contract.ResultValue gives
// its kind (accepted for a run, a replay and the in-flight conflict;
// rejected for a refusal); a request the endpoint serves without a key,
// and every answer under a contract naming no result header, carry none.
func TestResultHeader(t *testing.T) {
	for _, name := range allStores {
		t.Run(name, func(t *testing.T) {
			_, s := serveAzure(t, name)
			now := s.clock.Now()
			ok := keyed{key: "r-1", body: email, firstSent: now}
			slow := s.echo[sendEmail]
			slow.gate, slow.entered = make(chan struct{}), make(chan struct{})
			first := make(chan *httptest.ResponseRecorder)
			go func() { first <- s.send(t, sendEmail, ok) }()
			<-slow.entered
			rows := []struct {
				name   string
				k      keyed
				status int
				want   string
			}{
				{"in flight", ok, 409, "accepted"},
				{"missing key", keyed{body: email, firstSent: now}, 400, "rejected"},
				{"key too long", keyed{key: strings.Repeat("k", 37), body: email, firstSent: now}, 400, "rejected"},
				{"no first-sent time", keyed{key: "r-2", body: email}, 400, "rejected"},
				{"too old", keyed{key: "r-2", body: email, firstSent: now.Add(-time.Hour)}, 412, "rejected"},
			}
			for _, row := range rows {
				if w := s.send(t, sendEmail, row.k); w.Code != row.status || w.Header().Get("Repeatability-Result") != row.want {
					t.Errorf("%s: %d %q %s, want %d %q", row.name, w.Code, w.Header().Get("Repeatability-Result"), w.Body, row.status, row.want)
				}
			}
			close(slow.gate)
			if w := <-first; w.Code != 201 || w.Header().Get("Repeatability-Result") != "accepted" {
				t.Errorf("first run: %d %q", w.Code, w.Header().Get("Repeatability-Result"))
			}
			for _, row := range []struct {
				name   string
				k      keyed
				status int
				want   string
			}{
				{"replay", ok, 201, "accepted"},
				{"another request under the key", keyed{key: "r-1", body: `{"other":1}`, firstSent: now}, 400, "rejected"},
				{"no account", keyed{key: "r-3", body: email, firstSent: now, account: "anonymous"}, 401, "rejected"},
			} {
				if w := s.send(t, sendEmail, row.k); w.Code != row.status || w.Header().Get("Repeatability-Result") != row.want {
					t.Errorf("%s: %d %q %s, want %d %q", row.name, w.Code, w.Header().Get("Repeatability-Result"), w.Body, row.status, row.want)
				}
			}
		})
	}
	t.Run("unkeyed request", func(t *testing.T) {
		c := exampleContract(t, "azure-email", `key: required                   # [RR] "two mandatory headers"`, "key: optional")
		s := serve(t, c, idempotency.NewMemoryStore(c), idempotency.Options{}, sendEmail)
		if w := s.sendRaw(t, sendEmail, email); w.Code != 201 || w.Header().Values("Repeatability-Result") != nil {
			t.Errorf("a request without a key on a key: optional endpoint: %d, Repeatability-Result %q", w.Code, w.Header().Values("Repeatability-Result"))
		}
	})
	t.Run("no result header in the contract", func(t *testing.T) {
		c := exampleContract(t, "azure-email", "  result_header:\n    name: Repeatability-Result      # [RR] [OASIS] accepted | rejected\n    accepted: accepted\n    rejected: rejected\n", "")
		s := serve(t, c, idempotency.NewMemoryStore(c), idempotency.Options{}, sendEmail)
		now := s.clock.Now()
		for _, k := range []keyed{{key: "n-1", body: email, firstSent: now}, {key: "n-1", body: email, firstSent: now}, {body: email}, {key: "n-2", body: email, firstSent: now.Add(-time.Hour)}} {
			w := s.send(t, sendEmail, k)
			if v := w.Header().Values("Repeatability-Result"); v != nil {
				t.Errorf("%d answer carries Repeatability-Result %q; the contract names no result header", w.Code, v)
			}
		}
	})
}
