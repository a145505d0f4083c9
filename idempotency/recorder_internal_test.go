package idempotency

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/idempotency/keystore"
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
		want   keystore.Response
	}{
		{"header value changed through a kept map", func() { h.Set("X-A", "2") },
			keystore.Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "Content-Type": {"text/plain; charset=utf-8"}}, Body: []byte(`{"id":1}`)}},
		{"header added", func() { h.Add("X-B", "b") },
			keystore.Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "X-B": {"b"}, "Content-Type": {"text/plain; charset=utf-8"}}, Body: []byte(`{"id":1}`)}},
		{"header deleted", func() { h.Del("X-B") },
			keystore.Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "Content-Type": {"text/plain; charset=utf-8"}}, Body: []byte(`{"id":1}`)}},
		{"content type set to the sniffed value", func() { h.Set("Content-Type", "text/plain; charset=utf-8") },
			keystore.Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "Content-Type": {"text/plain; charset=utf-8"}}, Body: []byte(`{"id":1}`)}},
		{"content type changed", func() { h.Set("Content-Type", "application/json") },
			keystore.Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "Content-Type": {"application/json"}}, Body: []byte(`{"id":1}`)}},
		{"unstored header added", func() { h.Set("Date", "now") },
			keystore.Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "Content-Type": {"application/json"}}, Body: []byte(`{"id":1}`)}},
		{"body grows", func() { _, _ = rec.Write([]byte("\n")) },
			keystore.Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "Content-Type": {"application/json"}}, Body: []byte("{\"id\":1}\n")}},
		{"nil value", func() { h["X-N"] = nil },
			keystore.Response{Status: 201, Headers: map[string][]string{"X-A": {"2"}, "X-N": nil, "Content-Type": {"application/json"}}, Body: []byte("{\"id\":1}\n")}},
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
	// The sums the release before fingerprint_fields stored for
	// canonical-json and fingerprint_headers (computed with it): a contract
	// that names no body fields keeps matching them.
	r.Header.Set("Api-Version", "2025-01")
	nested := []byte("{ \"b\": [1, 2.50, {\"z\":1,\"a\":null}], \"a\": \"x\" }")
	for _, tt := range []struct {
		id   contract.Idempotency
		want string
	}{
		{contract.Idempotency{Fingerprint: contract.FingerprintCanonicalJSON}, "9afa38b8e545155973b69c30c32090c1a75c141483e437afded1d3cf40c59c53"},
		{contract.Idempotency{Fingerprint: contract.FingerprintCanonicalJSON, FingerprintHeaders: []string{"Api-Version"}}, "bba138e7fb4162018b80d25fbe38fb5e5e6f7f6965e147d3bc6f207225e5dde9"},
		{contract.Idempotency{Fingerprint: contract.FingerprintSHA256Body, FingerprintHeaders: []string{"Api-Version"}}, "9e2a116518e26a74c06f257961b4cb3a64286ba77527357dec03a0f8bf232666"},
	} {
		if got := fingerprint(tt.id, r, nested); got != tt.want {
			t.Errorf("%s %v: fingerprint = %s, want %s", tt.id.Fingerprint, tt.id.FingerprintHeaders, got, tt.want)
		}
	}
}
