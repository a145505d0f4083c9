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

// TestFingerprintFields: fingerprint_fields leaves named JSON members out
// of "the same request" (exclude) or counts only them (only); the sentence
// says so; without them canonical-json is unchanged; bad combinations are
// refused at their position with a fix.
func TestFingerprintFields(t *testing.T) {
	parse := func(lines string) Idempotency {
		t.Helper()
		c, err := Parse("c.yaml", []byte(errorBodyBase+"idempotency:\n  stored_failures: replay\n  fingerprint: canonical-json\n"+lines))
		if err != nil {
			t.Fatal(err)
		}
		return c.Idempotency
	}
	first := `{"amount":1000,"currency":"usd","sent_at":"2026-01-02T03:04:05Z","meta":{"trace_id":"a1","order":"o_1"}}`
	for _, tt := range []struct {
		name, lines, retry string
		same               bool
	}{
		{"plain canonical, timestamp differs", "", `{"amount":1000,"currency":"usd","sent_at":"2026-01-02T03:09:00Z","meta":{"trace_id":"a1","order":"o_1"}}`, false},
		{"excluded timestamp and trace differ", "  fingerprint_fields:\n    exclude: [/sent_at, /meta/trace_id]\n", `{"meta":{"order":"o_1","trace_id":"b2"},"currency":"usd","amount":1000,"sent_at":"2026-01-02T03:09:00Z"}`, true},
		{"excluded, a counted member differs", "  fingerprint_fields:\n    exclude: [/sent_at, /meta/trace_id]\n", `{"amount":1001,"currency":"usd","sent_at":"x","meta":{"trace_id":"b2","order":"o_1"}}`, false},
		{"excluded, a nested counted member differs", "  fingerprint_fields:\n    exclude: [/sent_at, /meta/trace_id]\n", `{"amount":1000,"currency":"usd","sent_at":"x","meta":{"trace_id":"b2","order":"o_2"}}`, false},
		{"only amount and currency, rest differs", "  fingerprint_fields:\n    only: [/amount, /currency]\n", `{"currency":"usd","amount":1000,"note":"hi"}`, true},
		{"only amount and currency, amount differs", "  fingerprint_fields:\n    only: [/amount, /currency]\n", `{"currency":"usd","amount":1001}`, false},
		{"only, a counted member missing", "  fingerprint_fields:\n    only: [/amount, /currency]\n", `{"amount":1000}`, false},
		{"only, a counted member null", "  fingerprint_fields:\n    only: [/amount, /currency]\n", `{"amount":1000,"currency":null}`, false},
		{"not JSON is byte for byte", "  fingerprint_fields:\n    exclude: [/sent_at]\n", `amount=1000`, false},
	} {
		id := parse(tt.lines)
		a, b := id.FingerprintBody([]byte(first)), id.FingerprintBody([]byte(tt.retry))
		if got := string(a) == string(b); got != tt.same {
			t.Errorf("%s: same = %v (%s vs %s), want %v", tt.name, got, a, b, tt.same)
		}
	}
	if got := parse("  fingerprint_fields:\n    exclude: [/sent_at, /meta/trace_id]\n").SameRequest(); !strings.Contains(got, "whitespace between tokens do not count, nor do its /sent_at, /meta/trace_id members)") {
		t.Errorf("exclude sentence: %q", got)
	}
	if got := parse("  fingerprint_fields:\n    only: [/amount]\n").SameRequest(); !strings.Contains(got, "; of the body only its /amount member count)") {
		t.Errorf("only sentence: %q", got)
	}
	// Strict default untouched; a body that is not JSON counts byte for byte.
	strict := Idempotency{Fingerprint: FingerprintSHA256Body, FingerprintFields: FingerprintFields{Members: []string{"/a"}}}
	if got := string(strict.FingerprintBody([]byte(`{ "a": 1 }`))); got != `{ "a": 1 }` {
		t.Errorf("sha256-body changed the body: %s", got)
	}
	for _, tt := range []struct{ lines, want string }{
		{"  fingerprint_fields:\n    exclude: [sent_at]\n", `c.yaml:9:15: idempotency.fingerprint_fields.exclude[0]: "sent_at" is not a JSON pointer to a member`},
		{"  fingerprint_fields:\n    exclude: [/items/0/id]\n", `list items cannot be named`},
		{"  fingerprint_fields:\n    exclude: [/a]\n    only: [/b]\n", "c.yaml:10:11: idempotency.fingerprint_fields names both exclude and only (fix: keep one list"},
		{"  fingerprint_fields:\n    excludes: [/a]\n", `did you mean "exclude"`},
	} {
		_, err := Parse("c.yaml", []byte(errorBodyBase+"idempotency:\n  stored_failures: replay\n  fingerprint: canonical-json\n"+tt.lines))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.lines, err, tt.want)
		}
	}
	_, err := Parse("c.yaml", []byte(errorBodyBase+"idempotency:\n  stored_failures: replay\n  fingerprint_fields:\n    exclude: [/sent_at]\n"))
	if err == nil || !strings.Contains(err.Error(), "c.yaml:8:5: idempotency.fingerprint_fields names body members, but fingerprint is sha256-body, which compares the body byte for byte (fix: set fingerprint: canonical-json") {
		t.Errorf("fields without canonical-json: %v", err)
	}
}
