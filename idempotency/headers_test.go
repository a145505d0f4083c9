package idempotency_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/idempotency"
)

// TestReplayedHeadersAreSafe: what the first caller's response set for
// that caller alone (a session cookie, an authentication challenge,
// hop-by-hop headers and the headers Connection names) is sent to it but
// never stored and replayed to a retry; a 103 Early Hints before the
// final status does not become the stored status.
func TestReplayedHeadersAreSafe(t *testing.T) {
	for _, name := range allStores {
		t.Run(name, func(t *testing.T) {
			c := payoutsContract(t)
			f := newFixture(t, c, openStore(t, name, c), idempotency.Options{})
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				f.handler.runs.Add(1)
				w.Header().Set("Link", "</style.css>; rel=preload")
				w.WriteHeader(http.StatusEarlyHints)
				w.Header().Set("Set-Cookie", "session=first-caller")
				w.Header().Set("WWW-Authenticate", `Bearer realm="x"`)
				w.Header().Set("Connection", "X-Per-Hop")
				w.Header().Set("X-Per-Hop", "1")
				w.Header().Set("Upgrade", "h2c")
				w.Header().Set("X-Kept", "yes")
				w.WriteHeader(http.StatusCreated)
				fmt.Fprint(w, `{"id":"tr_1"}`)
			})
			var err error
			if f.h, err = f.mw.Handle("POST /v1/transfers", h); err != nil {
				t.Fatal(err)
			}
			first := f.do("hdr", "acct_a", body)
			if first.Code != 201 {
				t.Fatalf("first: %d %s", first.Code, first.Body)
			}
			again := f.do("hdr", "acct_a", body)
			if again.Code != 201 || again.Header().Get("X-Kept") != "yes" || f.handler.runs.Load() != 1 {
				t.Fatalf("replay: %d %v after %d runs", again.Code, again.Header(), f.handler.runs.Load())
			}
			for _, k := range []string{"Set-Cookie", "Www-Authenticate", "Connection", "X-Per-Hop", "Upgrade"} {
				if v := again.Header().Values(k); len(v) > 0 {
					t.Errorf("replay carries %s: %v", k, v)
				}
			}
		})
	}
}

// TestMalformedKeys: two key header lines, a key that is not UTF-8 and a
// key not in the contract's form get 400 before the store is asked,
// never a 503 and never a key joined from two lines.
func TestMalformedKeys(t *testing.T) {
	for _, name := range allStores {
		t.Run(name, func(t *testing.T) {
			c := payoutsContract(t)
			f := newFixture(t, c, openStore(t, name, c), idempotency.Options{})
			send := func(keys ...string) *httptest.ResponseRecorder {
				r := httptest.NewRequest("POST", "/v1/transfers", strings.NewReader(body))
				for _, k := range keys {
					r.Header.Add("Idempotency-Key", k)
				}
				r.Header.Set("X-Account", "acct_a")
				w := httptest.NewRecorder()
				f.h.ServeHTTP(w, r)
				return w
			}
			for what, keys := range map[string][]string{
				"two lines": {"a", "b"},
				"not UTF-8": {"k\xff\xfe"},
			} {
				if w := send(keys...); w.Code != 400 || code(t, w) != "invalid_idempotency_key" {
					t.Errorf("%s: %d %s", what, w.Code, w.Body)
				}
			}
			if w := send("a,b"); w.Code != 201 {
				t.Fatalf("a key with a comma: %d %s", w.Code, w.Body)
			}
			if w := send("a", "b"); w.Code != 400 || f.handler.runs.Load() != 1 {
				t.Errorf("two lines joined into the key of another request: %d after %d runs", w.Code, f.handler.runs.Load())
			}
		})
	}
}
