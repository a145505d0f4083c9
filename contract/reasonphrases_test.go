package contract

import (
	"net/http"
	"testing"
)

// TestReasonPhrasesMatchNetHTTP: problem+json titles read like the reason
// phrases every Go server sends, for every 4xx and 5xx status.
func TestReasonPhrasesMatchNetHTTP(t *testing.T) {
	for status := 400; status < 600; status++ {
		want := http.StatusText(status)
		got, ok := reasonPhrases[status]
		if want == "" && ok {
			t.Errorf("%d: %q has no phrase in net/http", status, got)
		}
		if want != "" && got != want {
			t.Errorf("%d: reasonPhrases says %q, net/http %q", status, got, want)
		}
	}
}
