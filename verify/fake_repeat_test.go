package verify

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/retryspec/retryspec/contract"
)

// repeatFake is fakeAPI's contract-driven sibling for issue 32's fields:
// it reads the key where its contract says (the header, or key_field in
// the JSON body), refuses a first-sent time older than the contract's
// window with its too_old answer, and writes the result header on every
// keyed answer, every answer from contract.Reply. flaw switches in one
// mistake: "ignores-body-key" (looks for the key in the header only, so a
// body-keyed request runs unprotected), "ignores-first-sent" (never reads
// the first-sent header), "no-result-header" (replays lack the result
// header), "wrong-result-header" (refusals say accepted), "api-wide-length"
// (bounds keys by the API-wide max_key_length, not the endpoint's).
type repeatFake struct{ fakeState }

// fakeState is what a contract-driven fake keeps: its contract and flaw,
// each key's record and the effects counted per key.
type fakeState struct {
	c     *contract.Contract
	flaw  string
	mu    sync.Mutex
	keys  map[string]*fakeKey
	count map[string]int
	seq   int
}

func (f *fakeState) init(c *contract.Contract, flaw string) {
	f.c, f.flaw, f.keys, f.count = c, flaw, map[string]*fakeKey{}, map[string]int{}
}

func newRepeatFake(t *testing.T, c *contract.Contract, flaw string) *httptest.Server {
	f := &repeatFake{}
	f.init(c, flaw)
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv
}

func (f *repeatFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	acct := r.Header.Get("Authorization")
	if r.Method == http.MethodGet && r.URL.Path == "/v1/transfers" {
		f.mu.Lock()
		n := f.count[acct+"\x00"+r.URL.Query().Get("idempotency_key")]
		f.mu.Unlock()
		fmt.Fprintf(w, `{"count":%d}`, n)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/transfers" {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	// The transfer records the key the client sent wherever it sent it,
	// so the effects count is right even when idempotency ignores it.
	ref := f.sentKey(r, body, "")
	key := f.sentKey(r, body, f.flaw)
	if key == "" && f.flaw == "ignores-body-key" {
		f.run(w, acct+"\x00"+ref, nil)
		return
	}
	if k, refused := f.admit(r, key); refused {
		f.reply(w, k)
		return
	}
	f.serveKey(w, acct+"\x00"+key, fmt.Sprintf("%x", sha256.Sum256(body)))
}

// sentKey reads the key where the contract says it travels; with the
// ignores-body-key flaw, in the header whatever the contract says.
func (f *repeatFake) sentKey(r *http.Request, body []byte, flaw string) string {
	id := f.c.Idempotency
	if !id.InBody() || flaw == "ignores-body-key" {
		return r.Header.Get(id.Header)
	}
	var obj map[string]any
	_ = json.Unmarshal(body, &obj)
	s, _ := obj[id.KeyMember()].(string)
	return s
}

// admit refuses a missing or too long key, and a first-sent time that is
// missing, unreadable or older than the window, before any work.
func (f *repeatFake) admit(r *http.Request, key string) (contract.ReplyKind, bool) {
	switch {
	case key == "":
		return contract.ReplyMissingKey, true
	case utf8.RuneCountInString(key) > f.maxKeyLength():
		return contract.ReplyInvalidKey, true
	}
	fs := f.c.Idempotency.FirstSent
	if !fs.Set() || f.flaw == "ignores-first-sent" {
		return 0, false
	}
	t, err := http.ParseTime(r.Header.Get(fs.Header))
	switch {
	case err != nil:
		return contract.ReplyInvalidKey, true
	case time.Since(t) > fs.Window.D:
		return contract.ReplyTooOld, true
	}
	return 0, false
}

// maxKeyLength is the endpoint's bound; with the api-wide-length flaw,
// the API's longest.
func (f *repeatFake) maxKeyLength() int {
	if f.flaw == "api-wide-length" {
		return f.c.Idempotency.MaxKeyLength
	}
	return f.c.MaxKeyLengthFor(f.c.Endpoints[0])
}

func (f *repeatFake) serveKey(w http.ResponseWriter, id, fp string) {
	f.mu.Lock()
	k, seen := f.keys[id]
	if !seen {
		k = &fakeKey{fingerprint: fp}
		f.keys[id] = k
	}
	done, stored := k.done, k.body
	f.mu.Unlock()
	switch {
	case !seen:
		f.run(w, id, k)
	case k.fingerprint != fp:
		f.reply(w, contract.ReplyPayloadMismatch)
	case !done:
		w.Header().Set("Retry-After", "1")
		f.reply(w, contract.ReplyInFlight)
	default:
		if f.flaw != "no-result-header" {
			f.accepted(w)
		}
		w.Header().Set(f.c.Idempotency.ReplayHeader, "true")
		w.WriteHeader(201)
		w.Write(stored)
	}
}

// run does the work: one transfer, counted under id, stored in k (nil:
// a request run without idempotency).
func (f *repeatFake) run(w http.ResponseWriter, id string, k *fakeKey) {
	time.Sleep(20 * time.Millisecond) // the work
	f.mu.Lock()
	f.seq++
	out, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("tr_%d", f.seq)})
	f.count[id]++
	if k != nil {
		k.done, k.body = true, out
	}
	f.mu.Unlock()
	f.accepted(w)
	w.WriteHeader(201)
	w.Write(out)
}

func (f *repeatFake) accepted(w http.ResponseWriter) {
	if rh := f.c.Idempotency.ResultHeader; rh.Set() {
		w.Header().Set(rh.Name, rh.Value(contract.ResultAccepted))
	}
}

// reply writes the contract's answer of kind k with its result header.
func (f *repeatFake) reply(w http.ResponseWriter, k contract.ReplyKind) {
	if v := f.c.ResultValue(k); v != "" {
		if f.flaw == "wrong-result-header" {
			v = f.c.Idempotency.ResultHeader.Value(contract.ResultAccepted)
		}
		w.Header().Set(f.c.Idempotency.ResultHeader.Name, v)
	}
	rp := f.c.Reply(k)
	w.Header().Set("Content-Type", rp.ContentType)
	w.WriteHeader(rp.Status)
	w.Write(rp.Bytes())
}

// repeatPayouts is the payouts contract with the key in the body, a
// first-sent window, a result header, and POST /v1/transfers taking keys
// of at most 45 characters (the API's others take 255).
func repeatPayouts(t testing.TB) *contract.Contract {
	t.Helper()
	c := payouts(t)
	src := strings.Replace(string(c.Source), "  header: Idempotency-Key\n", `  header: Idempotency-Key
  key_in: body
  key_field: /idempotency_key
  first_sent: {header: Repeatability-First-Sent, window: 5m}
  result_header: {name: Repeatability-Result}
`, 1)
	src = strings.Replace(src, "    key: required                 # required | optional | none\n", "    key: required\n    max_key_length: 45\n", 1)
	out, err := contract.Parse(c.File, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !out.Idempotency.InBody() || !out.Idempotency.FirstSent.Set() || !out.Idempotency.ResultHeader.Set() || out.MaxKeyLengthFor(out.Endpoints[0]) != 45 {
		t.Fatal("the contract lost a field")
	}
	return out
}

func repeatPlan(t testing.TB, c *contract.Contract, base string) *Plan {
	t.Helper()
	src := fmt.Sprintf(`base_url: %s
headers:
  Authorization: "Bearer one"
other_principal:
  Authorization: "Bearer two"
request_timeout: 5s
settle: 0s
operations:
  "POST /v1/transfers":
    body: {"amount": 1000, "currency": "usd", "destination": "acct_1"}
    effects:
      request: "GET /v1/transfers?idempotency_key={key}"
      count: /count
`, base)
	p, err := ParsePlan("plan.yaml", []byte(src), c, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRepeatFakeFlaws: the sound contract-driven fake passes every gate
// it can be judged by; each flaw fails exactly the gates it breaks.
func TestRepeatFakeFlaws(t *testing.T) {
	c := repeatPayouts(t)
	skipped := map[string]Outcome{GateKeyForm: Skipped, GateFailedAttempt: Skipped, GateRestartReplay: Skipped, GateCrashRecovery: Skipped, GateAfterWindow: Skipped}
	for _, tc := range []struct {
		flaw   string
		failed []string
	}{
		{"", nil},
		// The key is never read: every request runs, keyed or not, and
		// a repeat makes a second effect.
		{"ignores-body-key", []string{GateMissingKey, GateKeyTooLong, GateConcurrency, GateReplay, GateMismatch, GateTooOld}},
		{"ignores-first-sent", []string{GateTooOld}},
		{"no-result-header", []string{GateResultHeader}},
		{"wrong-result-header", []string{GateResultHeader}},
		{"api-wide-length", []string{GateKeyTooLong}},
	} {
		t.Run(cmpOr(tc.flaw, "sound"), func(t *testing.T) {
			t.Parallel()
			srv := newRepeatFake(t, c, tc.flaw)
			res, err := Run(context.Background(), Options{Contract: c, Plan: repeatPlan(t, c, srv.URL), Concurrency: 4})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]Outcome{}
			for _, id := range IDs() {
				want[id] = Passed
			}
			maps.Copy(want, skipped)
			for _, id := range tc.failed {
				want[id] = Failed
			}
			if got := results(res); !equalMaps(got, want) {
				t.Errorf("gates = %v, want %v\n%s", got, want, text(t, res))
			}
			if tc.flaw == "ignores-body-key" && !strings.Contains(findingText(res, GateReplay), "new effect") {
				t.Errorf("the replay finding is not the double effect: %s", findingText(res, GateReplay))
			}
		})
	}
}

// findingText is the message of gate's finding, "" without one.
func findingText(res *Result, gate string) string {
	for _, f := range res.Findings {
		if f.Rule == gate {
			return f.Message
		}
	}
	return ""
}

func cmpOr(s, or string) string {
	if s == "" {
		return or
	}
	return s
}
