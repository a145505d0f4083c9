package faultserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

func post(t *testing.T, url, key string, timeout time.Duration) (*http.Response, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(`{"a":1}`))
	req.Header.Set("Idempotency-Key", key)
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b), nil
}

func TestScriptedAnswers(t *testing.T) {
	srv, err := Start("Idempotency-Key")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sess := srv.NewSession(Script{
		{Status: 429, RetryAfter: "2"},
		{Status: 409, Body: `{"error":{"code":"busy"}}`},
		{Status: 201},
	})
	url := sess.BaseURL() + "/v1/transfers"
	want := []struct {
		status int
		ra     string
		body   string
	}{{429, "2", `{"status":429}`}, {409, "", `{"error":{"code":"busy"}}`}, {201, "", `{"status":201}`}, {201, "", `{"status":201}`}}
	for i, w := range want {
		resp, body, err := post(t, url, `"k-1"`, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != w.status || resp.Header.Get("Retry-After") != w.ra || body != w.body {
			t.Errorf("request %d: %d %q %q, want %d %q %q", i+1, resp.StatusCode, resp.Header.Get("Retry-After"), body, w.status, w.ra, w.body)
		}
	}
	reqs := sess.Requests()
	if len(reqs) != 4 {
		t.Fatalf("recorded %d requests, want 4", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1/transfers" || r.RawKey != `"k-1"` || r.Key != "k-1" || string(r.Body) != `{"a":1}` || r.Answered.Before(r.Arrived) {
		t.Errorf("recorded %+v", r)
	}
	if other := srv.NewSession(Script{{Status: 200}}); other.BaseURL() == sess.BaseURL() {
		t.Error("two sessions share a base URL")
	}
	resp, _, err := post(t, srv.base+"/nope/v1/transfers", "k", 5*time.Second)
	if err != nil || resp.StatusCode != 404 {
		t.Errorf("unknown session: %v %v, want 404", resp, err)
	}
}

func TestResetAndDelay(t *testing.T) {
	srv, err := Start("Idempotency-Key")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	reset := srv.NewSession(Script{{Reset: true}})
	_, _, err = post(t, reset.BaseURL()+"/x", "k", 5*time.Second)
	if err == nil || !(errors.Is(err, syscall.ECONNRESET) || strings.Contains(err.Error(), "EOF")) {
		t.Errorf("reset: err = %v, want a connection reset", err)
	}

	slow := srv.NewSession(Script{{Status: 200, Delay: time.Hour}})
	// The answer would come after an hour; the client gives up after 200 ms. Its
	// own deadline error shows it was not answered first (no wall-clock
	// assertion: a loaded machine may take long to get there).
	_, _, err = post(t, slow.BaseURL()+"/x", "k", 200*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hung answer: err %v, want the client's own timeout", err)
	}
	// Waits for the server to notice the hang-up, without a clock: a
	// server that never does holds the hour-long answer, and the test ends
	// in go test's -timeout with this loop's stack.
	for {
		if r := slow.Requests(); len(r) == 1 && r[0].ClientGone {
			return
		}
		time.Sleep(10 * time.Millisecond) // how often to look, not a bound
	}
}

func TestUnquoteSFString(t *testing.T) {
	for in, want := range map[string]string{
		`"abc"`: "abc", `"a\"b\\c"`: `a"b\c`, `abc`: "abc", `"`: `"`, ``: ``,
	} {
		if got := unquoteSFString(in); got != want {
			t.Errorf("unquoteSFString(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRootSession: a root session answers at the server's bare base URL,
// records the full path, and leaves no room for prefixed sessions' routing.
func TestRootSession(t *testing.T) {
	srv, err := Start("Idempotency-Key")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sess := srv.NewRootSession(Script{{Status: 503}, {Status: 201}})
	if sess.BaseURL() != srv.base {
		t.Errorf("root session base %q, want the server's %q", sess.BaseURL(), srv.base)
	}
	for _, want := range []int{503, 201} {
		resp, _, err := post(t, sess.BaseURL()+"/v1/transfers", "k", 5*time.Second)
		if err != nil || resp.StatusCode != want {
			t.Fatalf("root session: %v %v, want %d", resp, err, want)
		}
	}
	reqs := sess.Requests()
	if len(reqs) != 2 || reqs[0].Path != "/v1/transfers" || reqs[0].Answered.IsZero() || reqs[1].Arrived.Before(reqs[0].Answered) {
		t.Errorf("recorded %+v", reqs)
	}
}

// TestKeyInBody: with key_in: body the server reads the key from the JSON
// body's member, as sent (quotes are part of a body key, not an sf-string),
// and not from a header of the same name.
func TestKeyInBody(t *testing.T) {
	srv, err := StartAt(KeyPlace{Header: "Idempotency-Key", Field: "idempotency_key"}, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sess := srv.NewSession(Script{{Status: 201}})
	for _, body := range []string{`{"amount": 1, "idempotency_key": "\"k-1\""}`, `{"amount": 1}`, `not json`, `{"idempotency_key": 7}`} {
		req, _ := http.NewRequest("POST", sess.BaseURL()+"/v2/payments", strings.NewReader(body))
		req.Header.Set("Idempotency-Key", "from-the-header")
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	reqs := sess.Requests()
	if len(reqs) != 4 {
		t.Fatalf("recorded %d requests, want 4", len(reqs))
	}
	if r := reqs[0]; r.Key != `"k-1"` || r.RawKey != `"k-1"` {
		t.Errorf("body key read as %q (raw %q), want \"k-1\" with its quotes", r.Key, r.RawKey)
	}
	for i, r := range reqs[1:] {
		if r.Key != "" {
			t.Errorf("request %d (%s) has key %q, want none: the key travels in the body only", i+2, r.Body, r.Key)
		}
	}
}

// TestRecordsFirstSent: a key place naming a first-sent header records
// its value with each request; without one nothing is recorded.
func TestRecordsFirstSent(t *testing.T) {
	for _, place := range []KeyPlace{{Header: "Idempotency-Key", FirstSent: "Repeatability-First-Sent"}, {Header: "Idempotency-Key"}} {
		srv, err := StartAt(place, "127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		sess := srv.NewSession(Script{{Status: 201}})
		req, _ := http.NewRequest("POST", sess.BaseURL()+"/emails:send", strings.NewReader(`{}`))
		req.Header.Set("Idempotency-Key", "k")
		req.Header.Set("Repeatability-First-Sent", "Thu, 03 Dec 2026 08:49:37 GMT")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		srv.Close()
		want := ""
		if place.FirstSent != "" {
			want = "Thu, 03 Dec 2026 08:49:37 GMT"
		}
		if got := sess.Requests()[0].FirstSent; got != want {
			t.Errorf("place %+v recorded first-sent %q, want %q", place, got, want)
		}
	}
}
