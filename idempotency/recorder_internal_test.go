package idempotency

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retryspec/retryspec/contract"
)

// response() follows every change: a handler that keeps the header map and
// changes it after FinishWrites, or writes more, gets what it wrote stored
// and sent (a Response cached between the two calls would miss these).
func TestRecorderResponseFollowsChanges(t *testing.T) {
	rec := &recorder{header: http.Header{}}
	h := rec.Header()
	h.Set("X-A", "1")
	rec.WriteHeader(http.StatusCreated)
	_, _ = rec.Write([]byte(`{"id":1}`))
	first := rec.response()
	if again := rec.response(); !cmp.Equal(again, first) {
		t.Fatalf("unchanged recorder: %v, then %v", first, again)
	}
	steps := []struct {
		name   string
		change func()
		want   Response
	}{
		{"header value changed through a kept map", func() { h.Set("X-A", "2") },
			Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "Content-Type": {"text/plain; charset=utf-8"}}, Body: []byte(`{"id":1}`)}},
		{"header added", func() { h.Add("X-B", "b") },
			Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "X-B": {"b"}, "Content-Type": {"text/plain; charset=utf-8"}}, Body: []byte(`{"id":1}`)}},
		{"header deleted", func() { h.Del("X-B") },
			Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "Content-Type": {"text/plain; charset=utf-8"}}, Body: []byte(`{"id":1}`)}},
		{"content type set to the sniffed value", func() { h.Set("Content-Type", "text/plain; charset=utf-8") },
			Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "Content-Type": {"text/plain; charset=utf-8"}}, Body: []byte(`{"id":1}`)}},
		{"content type changed", func() { h.Set("Content-Type", "application/json") },
			Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "Content-Type": {"application/json"}}, Body: []byte(`{"id":1}`)}},
		{"unstored header added", func() { h.Set("Date", "now") },
			Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "Content-Type": {"application/json"}}, Body: []byte(`{"id":1}`)}},
		{"body grows", func() { _, _ = rec.Write([]byte("\n")) },
			Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "Content-Type": {"application/json"}}, Body: []byte("{\"id\":1}\n")}},
		{"nil value", func() { h["X-N"] = nil },
			Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "X-N": nil, "Content-Type": {"application/json"}}, Body: []byte("{\"id\":1}\n")}},
	}
	for _, s := range steps {
		s.change()
		if got := rec.response(); !cmp.Equal(got, s.want) {
			t.Errorf("%s: %s", s.name, cmp.Diff(s.want, got))
		}
		if got := rec.response(); !cmp.Equal(got, s.want) {
			t.Errorf("%s, asked again: %s", s.name, cmp.Diff(s.want, got))
		}
	}
}

// The fingerprint is stored: it must stay sha256 of "METHOD URI\n" and the
// body, so rows written by earlier versions still match their retries.
func TestFingerprintIsStable(t *testing.T) {
	r := httptest.NewRequest("POST", "/v1/transfers?dry=1", nil)
	body := []byte(`{"amount":1000}`)
	sum := sha256.Sum256([]byte("POST /v1/transfers?dry=1\n" + string(body)))
	if got, want := fingerprint(contract.Idempotency{Fingerprint: contract.FingerprintSHA256Body}, r, body), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("fingerprint = %s, want %s", got, want)
	}
}
