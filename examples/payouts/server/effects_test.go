package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/internal/dbtest"
)

// startWith runs the server in-process on the contract file, behind a
// loopback HTTP server.
func startWith(t *testing.T, storeURL, contractFile, externalURL string) string {
	t.Helper()
	a, err := newApp(context.Background(), config{store: storeURL, migrate: true, contractFile: contractFile}, externalURL, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.routes())
	t.Cleanup(func() { srv.Close(); a.close() })
	return srv.URL
}

func send(t *testing.T, method, url, body string, header map[string]string) answer {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer acct_1")
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, b}
}

func effectCount(t *testing.T, base, key string) int {
	t.Helper()
	a := send(t, "GET", base+"/effects?idempotency_key="+key, "", nil)
	var v struct{ Count int }
	if a.status != 200 || json.Unmarshal(a.body, &v) != nil {
		t.Fatalf("effect count: %d %s", a.status, a.body)
	}
	return v.Count
}

// TestServesOtherContracts: pointed at the Square example (key in the
// body) and the Azure email example (first-sent window, result header),
// the server serves each keyed endpoint with the generic handler on every
// store: one effect and one external call per key, replays, and the
// contract's refusals.
func TestServesOtherContracts(t *testing.T) {
	for _, store := range dbtest.Names {
		t.Run(store, func(t *testing.T) {
			t.Run("square-payments", func(t *testing.T) {
				ext := newStub()
				ts := httptest.NewServer(ext)
				defer ts.Close()
				base := startWith(t, dbtest.Fresh(t, store, os.Getenv), "../../square-payments/retryspec.yaml", ts.URL)
				pay := `{"idempotency_key":"pay-1","source_id":"cnon:card-nonce-ok","amount_money":{"amount":1000,"currency":"USD"}}`
				first := send(t, "POST", base+"/v2/payments", pay, nil)
				again := send(t, "POST", base+"/v2/payments", pay, nil)
				if first.status != 201 || again.status != 201 || string(first.body) != string(again.body) {
					t.Errorf("payment and its retry: %d %s, %d %s", first.status, first.body, again.status, again.body)
				}
				if n := effectCount(t, base, "pay-1"); n != 1 || ext.effectsOf("authorize_card") != 1 {
					t.Errorf("%d effects, %d card authorisations; want 1 and 1", n, ext.effectsOf("authorize_card"))
				}
				if a := send(t, "POST", base+"/v2/payments", `{"source_id":"x"}`, nil); a.status != 400 || !strings.Contains(string(a.body), "MISSING_REQUIRED_PARAMETER") {
					t.Errorf("no key: %d %s", a.status, a.body)
				}
				other := strings.Replace(pay, "1000", "1001", 1)
				if a := send(t, "POST", base+"/v2/payments", other, nil); a.status != 400 || !strings.Contains(string(a.body), "IDEMPOTENCY_KEY_REUSED") {
					t.Errorf("key reused with another body: %d %s", a.status, a.body)
				}
			})
			t.Run("azure-email", func(t *testing.T) {
				ext := newStub()
				ts := httptest.NewServer(ext)
				defer ts.Close()
				base := startWith(t, dbtest.Fresh(t, store, os.Getenv), "../../azure-email/retryspec.yaml", ts.URL)
				mail := `{"senderAddress":"a@example.net","recipients":{"to":[{"address":"b@example.com"}]}}`
				h := map[string]string{"Repeatability-Request-Id": "mail-1", "Repeatability-First-Sent": time.Now().UTC().Format(http.TimeFormat)}
				first := send(t, "POST", base+"/emails:send", mail, h)
				again := send(t, "POST", base+"/emails:send", mail, h)
				if first.status != 201 || again.status != 201 || string(first.body) != string(again.body) ||
					first.header.Get("Repeatability-Result") != "accepted" || again.header.Get("Repeatability-Result") != "accepted" {
					t.Errorf("send and its retry: %d %v %s, %d %v %s", first.status, first.header, first.body, again.status, again.header, again.body)
				}
				if n := effectCount(t, base, "mail-1"); n != 1 || ext.effectsOf("mail_delivery") != 1 {
					t.Errorf("%d effects, %d deliveries; want 1 and 1", n, ext.effectsOf("mail_delivery"))
				}
				old := map[string]string{"Repeatability-Request-Id": "mail-2", "Repeatability-First-Sent": time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)}
				if a := send(t, "POST", base+"/emails:send", mail, old); a.status != 412 || a.header.Get("Repeatability-Result") != "rejected" || effectCount(t, base, "mail-2") != 0 {
					t.Errorf("first sent an hour ago: %d %v %s", a.status, a.header, a.body)
				}
			})
		})
	}
}
