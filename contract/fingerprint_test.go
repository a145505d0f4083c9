package contract

import (
	"strings"
	"testing"
)

// TestSameRequestSaysTheFingerprint: the sentence the pages and the
// OpenAPI description show follows fingerprint and fingerprint_headers;
// a header name that cannot be one is refused at its position.
func TestSameRequestSaysTheFingerprint(t *testing.T) {
	for _, tt := range []struct{ lines, want string }{
		{"", "body match the first request's byte for byte; any other"},
		{"  fingerprint: canonical-json\n", "(a JSON body is compared as JSON: the order of its keys and whitespace between tokens do not count); any other"},
		{"  fingerprint_headers: [Api-Version]\n", "byte for byte, and so do its Api-Version header;"},
		{"  fingerprint: none\n", "does not compare a retry"},
	} {
		c, err := Parse("c.yaml", []byte(errorBodyBase+"idempotency:\n  stored_failures: replay\n"+tt.lines))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Idempotency.SameRequest(); !strings.Contains(got, tt.want) {
			t.Errorf("%q: got %q, want it to contain %q", tt.lines, got, tt.want)
		}
	}
	_, err := Parse("c.yaml", []byte(errorBodyBase+"idempotency:\n  stored_failures: replay\n  fingerprint_headers: [\"Api Version\"]\n"))
	if err == nil || !strings.Contains(err.Error(), "c.yaml:7:25: idempotency.fingerprint_headers[0]") {
		t.Errorf("got %v", err)
	}
}
