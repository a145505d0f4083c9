package copylint

import (
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
)

// contractFor loads a contract written inline, on top of a sound base.
func contractFor(t *testing.T, extra string) *contract.Contract {
	t.Helper()
	src := `retryspec: 1
api:
  name: Lumapay
  base_url: https://api.lumapay.example
idempotency:
  header: Idempotency-Key
  replay_window: 7d
  reaper_after: 14d
  longest_retry_chain: {duration: 6h, because: "SDK retries"}
  conflicts:
    payload_mismatch: { status: 409, code: invalid_idempotent_request }
    in_flight:        { status: 409, code: concurrent_idempotent_requests }
    missing_key:      { status: 400, code: missing_idempotency_key }
retry:
  statuses: [429, 502, 503, 504]
  backoff: {jitter: full, base: 1s, cap: 30s, multiplier: 2}
  max_attempts: 3
  max_elapsed: 60s
` + extra
	c, err := contract.Parse("retryspec.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestContradictsContract(t *testing.T) {
	c := contractFor(t, "")
	tests := []struct {
		text string
		path string // "" when the sentence agrees with the contract
		want string // a fragment of the message: both figures
	}{
		{"Idempotency keys expire after 24 hours.", "idempotency.replay_window", `"24 hours"`},
		{"Idempotency keys are per account. Keys are remembered for a day.", "idempotency.replay_window", "replay_window is 7d"},
		{"The replay window is 72h.", "idempotency.replay_window", `"72h"`},
		{"An idempotency key is valid for one week.", "", ""},
		{"Idempotency keys expire after 7 days.", "", ""},
		{"Keys are retained for 14 days for recovery, then deleted.", "", ""},
		{"Idempotency keys are per account, and keys are kept for 30 days.", "idempotency.replay_window", "7d"},
		{"Send the X-Idempotency-Key header with each POST.", "idempotency.header", "x-idempotency-key"},
		{"Send the `Idempotency-Key` header with each POST.", "", ""},
		{"A reused key returns 409 idempotency_key_in_use.", "idempotency.conflicts", "idempotency_key_in_use"},
		{"A mismatched body returns 409 invalid_idempotent_request.", "", ""},
		{"The SDK retries up to 5 attempts.", "retry.max_attempts", "max_attempts is 3"},
		{"The SDK makes at most 3 attempts.", "", ""},
		{"Failed requests are retried 2 times.", "", ""},
		{"We retry a request 4 times before giving up.", "retry.max_attempts", "4 retries (5 attempts)"},
		{"The initial delay is 500ms, doubling each time.", "retry.backoff.base", "base is 1s"},
		{"Backoff is capped at 60 seconds.", "retry.backoff.cap", "cap is 30s"},
		{"Backoff is capped at 30 seconds.", "", ""},
		{"The client gives up after 5 minutes.", "retry.max_elapsed", "max_elapsed is 60s"},
		{"Wait 90 seconds between attempts with jitter.", "retry.backoff", "outside the contract's backoff"},
		{"Retries are safe: within 7 days, a request repeated with the same Idempotency-Key is applied at most once.", "", ""},
		{"Our rate limit window is 1 minute.", "", ""},
		{"API keys expire after 90 days.", "", ""},
		{"The lock timeout is 2 minutes.", "", ""},
	}
	for _, tc := range tests {
		var got []string
		var msgs []string
		for _, f := range LintSource(c, "page.md", []byte(tc.text+"\n")) {
			if f.Rule == RuleContradicts {
				got = append(got, f.Path)
				msgs = append(msgs, f.Message)
				if f.Fix == "" {
					t.Errorf("%q: finding without a fix", tc.text)
				}
			}
		}
		switch {
		case tc.path == "" && len(got) > 0:
			t.Errorf("%q: agrees with the contract but got %v %q", tc.text, got, msgs)
		case tc.path != "" && (len(got) != 1 || got[0] != tc.path):
			t.Errorf("%q: want one finding at %s, got %v %q", tc.text, tc.path, got, msgs)
		case tc.path != "" && !strings.Contains(msgs[0], tc.want):
			t.Errorf("%q: message %q lacks %q", tc.text, msgs[0], tc.want)
		}
	}
}

func TestNoContractSkipsContradicts(t *testing.T) {
	for _, f := range LintSource(nil, "page.md", []byte("Idempotency keys expire after 24 hours. Send X-Idempotency-Key.\n")) {
		if f.Rule == RuleContradicts {
			t.Errorf("contract check ran without a contract: %+v", f)
		}
	}
}

func TestExactlyOnceFixUsesContract(t *testing.T) {
	c := contractFor(t, "")
	fs := LintSource(c, "page.md", []byte("We guarantee exactly-once delivery.\n"))
	if len(fs) != 1 {
		t.Fatalf("want one finding, got %+v", fs)
	}
	want := "Retries are safe: within 7 days, a request repeated with the same Idempotency-Key on the same account is applied at most once."
	if fs[0].Fix != want {
		t.Errorf("fix:\n got %q\nwant %q", fs[0].Fix, want)
	}
}

// Issue 15 item 12: a sentence about a late retry is not a schedule. The
// line is docs/ci.md's; `copy docs` flagged it as advice to wait 12 hours.
func TestLateRetryIsNotAWait(t *testing.T) {
	c := contractFor(t, "")
	for _, s := range []string{
		"| `replay_window` 24h → 12h | breaking | a retry after 12h runs as a new request and repeats the effect |",
		"A retry after 12h runs as a new request.",
		"The retry after 2 days is treated as a new request.",
	} {
		for _, f := range LintSource(c, "ci.md", []byte(s+"\n")) {
			t.Errorf("%q: %s: %s", s, f.Rule, f.Message)
		}
	}
	// Advice to wait still is checked.
	if fs := LintSource(c, "a.md", []byte("Retry after 12h if the request fails.\n")); len(fs) != 1 || fs[0].Rule != RuleContradicts {
		t.Errorf("advice to retry after 12h: %+v", fs)
	}
}

// Error codes: a contract field path and another provider's code quoted as
// theirs are not this API's codes; a code this API is said to return is.
func TestErrorCodeSubjects(t *testing.T) {
	c := contractFor(t, "")
	for _, s := range []string{
		"Set sdk.auto_idempotency_key: true.",
		"Resend rejects the mismatch with 409 invalid_idempotent_request_x.",
	} {
		for _, f := range LintSource(c, "r.md", []byte(s+"\n")) {
			t.Errorf("%q: %s: %s", s, f.Rule, f.Message)
		}
	}
	for _, s := range []string{
		"We reject the mismatch with 409 idempotency_key_reused.",
		"We reject the mismatch with 409 idempotency\\_key\\_reused.",
	} {
		if fs := LintSource(c, "r.md", []byte(s+"\n")); len(fs) != 1 || fs[0].Rule != RuleContradicts {
			t.Errorf("%q: want the unknown code, got %+v", s, fs)
		}
	}
}

// TestBodyKeyPlace: under idempotency.key_in: body (Square's contract) no
// header carries the key, so copy that sends it in a header contradicts
// the contract (idempotency.key_in), copy about the body member passes,
// and the fixes name the body member, never a header (issue 32).
func TestBodyKeyPlace(t *testing.T) {
	c, err := contract.Load("../examples/square-payments/retryspec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !c.Idempotency.InBody() {
		t.Fatal("the Square example no longer keeps its key in the body")
	}
	tests := []struct {
		text string
		path string // "" when the sentence agrees with the contract
	}{
		{"Send the key in the Idempotency-Key header on every retry.", "idempotency.key_in"},
		{"Pass an X-Idempotency-Key header with each POST.", "idempotency.key_in"},
		{"Put a unique idempotency_key in the JSON body of every write, and reuse it on each retry.", ""},
		{"The key travels in the request body, not in an Idempotency-Key header.", ""},
		{"A reused idempotency_key with a different body returns an error.", ""},
	}
	for _, tc := range tests {
		var paths []string
		for _, f := range LintSource(c, "page.md", []byte(tc.text+"\n")) {
			if f.Rule != RuleContradicts {
				continue
			}
			paths = append(paths, f.Path)
			if strings.Contains(f.Fix, "Idempotency-Key") {
				t.Errorf("%q: the fix names a header under key_in: body: %s", tc.text, f.Fix)
			}
		}
		switch {
		case tc.path == "" && len(paths) > 0:
			t.Errorf("%q: want no finding, got %v", tc.text, paths)
		case tc.path != "" && (len(paths) != 1 || paths[0] != tc.path):
			t.Errorf("%q: want one finding at %s, got %v", tc.text, tc.path, paths)
		}
	}
	// A family's fix names the body member too.
	fs := LintSource(c, "page.md", []byte("You can retry a payment without a key.\n"))
	if len(fs) == 0 {
		t.Fatal("the keyless retry was not reported")
	}
	for _, f := range fs {
		if !strings.Contains(f.Fix, "/idempotency_key member of the JSON body") {
			t.Errorf("the keyless fix does not name the body member: %s", f.Fix)
		}
	}
}
