package verify

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeAPI is a small in-memory payouts API in Go for the unit tests (the
// end-to-end proof runs the Python and reference servers). flaw switches in
// one mistake: "race" (check, work, then store), "echo-auth" (puts the
// caller's Authorization header in the body and accepts keyless requests),
// "tail-differs" (a 1.5 MiB body whose replay differs in its last digit),
// "late-rerun" (a replay whose handler runs again after the answer),
// "constant-body" (every success is the same bytes), "leak" (keys are not
// scoped to the caller), "unique-body" (a body already sent under another
// key is refused, as servers that check a client reference do),
// "unwrapped" (no idempotency at all), "refuse-all" (every POST is a 422),
// "accepted" (a sound in_flight.response: accepted: a copy in flight gets
// 202 with the in-flight code), "accepted-runs-anyway" (that 202, and the
// copy still runs: a second effect).
type fakeAPI struct {
	flaw  string
	mu    sync.Mutex
	keys  map[string]*fakeKey
	count map[string]int // account + key -> transfers
	posts atomic.Int64
	seq   int
	// late is an effect to apply when the server has answered one more
	// request (the late-rerun flaw): after an immediate count, before a settled one.
	late    string
	lateDue int
	// bodyKey is the key each body was first sent with (unique-body flaw).
	bodyKey map[string]string
}

type fakeKey struct {
	fingerprint string
	done        bool
	body        []byte
}

func newFakeAPI(t *testing.T, flaw string) (*fakeAPI, *httptest.Server) {
	f := &fakeAPI{flaw: flaw, keys: map[string]*fakeKey{}, count: map[string]int{}, bodyKey: map[string]string{}}
	return f, newBenchServer(t, f)
}

func newBenchServer(t testing.TB, f *fakeAPI) *httptest.Server {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv
}

func fakeError(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"code":%q}}`, code)
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	acct := r.Header.Get("Authorization")
	f.mu.Lock()
	if f.late != "" {
		if f.lateDue == 0 {
			f.count[f.late]++
			f.late = ""
		} else {
			f.lateDue--
		}
	}
	f.mu.Unlock()
	if r.Method == "GET" && r.URL.Path == "/v1/transfers" {
		f.mu.Lock()
		n := f.count[acct+"\x00"+r.URL.Query().Get("idempotency_key")]
		f.mu.Unlock()
		fmt.Fprintf(w, `{"count":%d}`, n)
		return
	}
	if r.Method != "POST" || r.URL.Path != "/v1/transfers" {
		fakeError(w, 404, "not_found")
		return
	}
	f.posts.Add(1)
	body, _ := io.ReadAll(r.Body)
	key := r.Header.Get("Idempotency-Key")
	switch f.flaw {
	case "refuse-all":
		fakeError(w, 422, "invalid_destination")
		return
	case "unwrapped": // no idempotency at all: every request runs
		f.mu.Lock()
		f.seq++
		f.count[acct+"\x00"+key]++
		out, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("tr_%d", f.seq)})
		f.mu.Unlock()
		w.WriteHeader(201)
		w.Write(out)
		return
	}
	switch {
	case key == "" && f.flaw != "echo-auth":
		fakeError(w, 400, "missing_idempotency_key")
		return
	case len(key) > 255:
		fakeError(w, 400, "invalid_idempotency_key")
		return
	}
	fp := fmt.Sprintf("%x", sha256.Sum256(body))
	id := acct + "\x00" + key
	if f.flaw == "unique-body" {
		f.mu.Lock()
		first, seen := f.bodyKey[acct+"\x00"+string(body)]
		if !seen {
			f.bodyKey[acct+"\x00"+string(body)] = id
		}
		f.mu.Unlock()
		if seen && first != id {
			fakeError(w, 422, "duplicate_reference")
			return
		}
	}
	lookup := id
	if f.flaw == "leak" {
		lookup = key // keys shared across callers
	}
	f.mu.Lock()
	k, seen := f.keys[lookup]
	if !seen && f.flaw != "race" {
		k = &fakeKey{fingerprint: fp}
		f.keys[lookup] = k
	}
	f.mu.Unlock()
	if seen {
		f.mu.Lock()
		done, stored, kfp := k.done, k.body, k.fingerprint
		f.mu.Unlock()
		switch {
		case kfp != fp:
			fakeError(w, 409, "invalid_idempotent_request")
		case !done && strings.HasPrefix(f.flaw, "accepted"):
			w.Header().Set("Retry-After", "1")
			fakeError(w, 202, "concurrent_idempotent_requests")
			if f.flaw == "accepted-runs-anyway" {
				f.mu.Lock()
				f.count[id]++ // the 202'd copy is queued and run after all
				f.mu.Unlock()
			}
		case !done:
			w.Header().Set("Retry-After", "1")
			fakeError(w, 409, "concurrent_idempotent_requests")
		default:
			if f.flaw == "late-rerun" { // reruns the handler after answering
				f.mu.Lock()
				f.late, f.lateDue = id, 1
				f.mu.Unlock()
			}
			if f.flaw == "tail-differs" {
				// Past the first MiB, the replay's last digit differs.
				stored = append(append([]byte{}, stored[:len(stored)-2]...), '2', '}')
			}
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(201)
			w.Write(stored)
		}
		return
	}
	time.Sleep(20 * time.Millisecond) // the work
	f.mu.Lock()
	f.seq++
	out, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("tr_%d", f.seq), "echo": r.Header.Get("Authorization")})
	switch f.flaw {
	case "echo-auth":
	case "constant-body":
		out = []byte(`{"status":"accepted"}`)
	case "tail-differs":
		out, _ = json.Marshal(map[string]any{"id": fmt.Sprintf("tr_%d", f.seq), "pad": strings.Repeat("x", 3<<19), "z": 1})
	default:
		out, _ = json.Marshal(map[string]any{"id": fmt.Sprintf("tr_%d", f.seq)})
	}
	f.count[id]++
	if f.flaw == "race" {
		k = &fakeKey{fingerprint: fp}
		f.keys[lookup] = k
	}
	k.done, k.body = true, out
	f.mu.Unlock()
	w.WriteHeader(201)
	w.Write(out)
}

func fakePlan(t testing.TB, base string, extra string) *Plan {
	t.Helper()
	src := fmt.Sprintf(`base_url: %s
headers:
  Authorization: "Bearer ${FAKE_TOKEN}"
other_principal:
  Authorization: "Bearer ${FAKE_OTHER}"
request_timeout: 5s
%soperations:
  "POST /v1/transfers":
    body: {"amount": 1000, "currency": "usd", "destination": "acct_1"}
    effects:
      request: "GET /v1/transfers?idempotency_key={key}"
      count: /count
`, base, extra)
	p, err := ParsePlan("plan.yaml", []byte(src), payouts(t), env(map[string]string{"FAKE_TOKEN": "s3cret-token-1", "FAKE_OTHER": "s3cret-token-2"}))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func results(res *Result) map[string]Outcome {
	out := map[string]Outcome{}
	for _, g := range res.Gates {
		out[g.Gate] = g.Result
	}
	return out
}
