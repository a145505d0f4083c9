package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/retryspec/retryspec/examples/payouts"
	"github.com/retryspec/retryspec/internal/dbtest"
)

// TestMain lets the crash test run this test binary as the server.
func TestMain(m *testing.M) {
	if args := os.Getenv("RETRYSPEC_PAYOUTS_CHILD"); args != "" {
		os.Exit(run(context.Background(), strings.Split(args, "\x1f"), os.Stderr, os.Getenv))
	}
	os.Exit(m.Run())
}

const transferBody = `{"amount":1000,"currency":"usd","destination":"acct_1"}`

// stub is verify's external-call stub: it applies a call once per
// (call, Idempotency-Key) and counts the effects.
type stub struct {
	mu      sync.Mutex
	answers map[string]string
	effects map[string]int
	n       int
	// hook runs when a call arrives, after it is applied and before it is
	// answered (before=true), and after it was answered (before=false).
	hook func(call string, before bool, w http.ResponseWriter) (abort bool)
}

func newStub() *stub { return &stub{answers: map[string]string{}, effects: map[string]int{}} }

func (s *stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	call := strings.TrimPrefix(r.URL.Path, "/")
	key := r.Header.Get("Idempotency-Key")
	s.mu.Lock()
	id, seen := s.answers[call+"\x00"+key]
	if !seen {
		s.n++
		id = fmt.Sprintf("%s_%d", call, s.n)
		s.answers[call+"\x00"+key] = id
		s.effects[call]++
	}
	hook := s.hook
	s.mu.Unlock()
	if hook != nil && hook(call, true, w) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":%q}`, id)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if hook != nil {
		hook(call, false, w)
	}
}

func (s *stub) effectsOf(call string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.effects[call]
}

// testContract is the example contract with a short lock_timeout, so a
// retry after a crash takes the key over without a two-minute wait. The
// lock must outlast the 2s attempt timeout and the handler's max_duration
// (state/lock-timeout-below-request), so both shrink together.
func testContract(t testing.TB) string {
	t.Helper()
	src := strings.Replace(string(payouts.Contract), "lock_timeout: 2m", "lock_timeout: 3s", 1)
	src = strings.Replace(src, "max_duration: 45s", "max_duration: 2500ms", 1)
	p := filepath.Join(t.TempDir(), "retryspec.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// server is the app in-process, behind a loopback HTTP server.
func startApp(t testing.TB, storeURL, flaw, externalURL string) string {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := newApp(context.Background(), config{store: storeURL, flaw: flaw, migrate: true, contractFile: testContract(t)}, externalURL, log)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.routes())
	t.Cleanup(func() { srv.Close(); a.close() })
	return srv.URL
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func post(t testing.TB, base, key, account, body string) (answer, error) {
	req, _ := http.NewRequest("POST", base+"/v1/transfers", strings.NewReader(body))
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	req.Header.Set("Authorization", "Bearer "+account)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, b}, err
}

func mustPost(t testing.TB, base, key, account, body string) answer {
	t.Helper()
	a, err := post(t, base, key, account, body)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func count(t testing.TB, base, key, account string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v1/transfers?idempotency_key="+key, nil)
	req.Header.Set("Authorization", "Bearer "+account)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct{ Count int }
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || resp.StatusCode != 200 {
		t.Fatalf("count: %d %v", resp.StatusCode, err)
	}
	return v.Count
}

func errorCode(b []byte) string {
	var v struct{ Code string }
	_ = json.Unmarshal(b, &v)
	return v.Code
}

// concurrencyHolds fires n identical requests with one key and reports
// whether exactly one transfer was made and every answer was the original,
// a byte-identical replay or the in-flight conflict.
func concurrencyHolds(t *testing.T, base, key string, n int) bool {
	t.Helper()
	res := make([]answer, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			a, err := post(t, base, key, "acct_a", transferBody)
			if err != nil {
				t.Error(err)
			}
			res[i] = a
		}()
	}
	close(start)
	wg.Wait()
	final := mustPost(t, base, key, "acct_a", transferBody)
	ok := count(t, base, key, "acct_a") == 1
	for _, a := range res {
		switch {
		case a.status == 409 && errorCode(a.body) == "concurrent_idempotent_requests":
		case a.status == 201 && bytes.Equal(a.body, final.body):
		default:
			ok = false
		}
	}
	return ok
}

// TestReferenceServer: on every store, the server keeps each property, and
// each --flaw breaks the property it is named for.
func TestReferenceServer(t *testing.T) {
	for _, store := range dbtest.Names {
		t.Run(store, func(t *testing.T) {
			t.Run("correct", func(t *testing.T) {
				ext := newStub()
				ts := httptest.NewServer(ext)
				defer ts.Close()
				base := startApp(t, dbtest.Fresh(t, store, os.Getenv), "", ts.URL)
				for round := range 3 {
					if !concurrencyHolds(t, base, fmt.Sprintf("conc-%d", round), 64) {
						t.Fatalf("round %d: 64 concurrent requests made more than one transfer or a wrong answer", round)
					}
				}
				checkProperties(t, base, ext, true)
			})
			for _, flaw := range []string{"check-then-insert", "no-in-flight"} {
				t.Run(flaw, func(t *testing.T) {
					base := startApp(t, dbtest.Fresh(t, store, os.Getenv), flaw, "")
					for round := range 50 {
						if !concurrencyHolds(t, base, fmt.Sprintf("conc-%d", round), 64) {
							t.Logf("broke the concurrency property in round %d", round)
							return
						}
					}
					t.Fatalf("--flaw %s: 50 rounds of 64 concurrent requests never made a second transfer", flaw)
				})
			}
			for _, flaw := range []string{"no-fingerprint", "replay-not-verbatim", "global-scope", "missing-key-accepted", "fresh-downstream-key"} {
				t.Run(flaw, func(t *testing.T) {
					ext := newStub()
					ts := httptest.NewServer(ext)
					defer ts.Close()
					base := startApp(t, dbtest.Fresh(t, store, os.Getenv), flaw, ts.URL)
					broken := checkProperties(t, base, ext, false)
					if broken[flaw] == "" {
						t.Fatalf("--flaw %s left its property intact (broken: %v)", flaw, broken)
					}
					t.Log(broken[flaw])
				})
			}
		})
	}
}

// checkProperties runs the request-level properties once each. With
// strict, any broken property fails the test; it returns which broke,
// keyed by the flaw that breaks it.
func checkProperties(t *testing.T, base string, ext *stub, strict bool) map[string]string {
	t.Helper()
	broken := map[string]string{}
	fail := func(flaw, format string, args ...any) {
		broken[flaw] = fmt.Sprintf(format, args...)
		if strict {
			t.Errorf(format, args...)
		}
	}
	// Missing key.
	if a := mustPost(t, base, "", "acct_a", transferBody); a.status != 400 || errorCode(a.body) != "missing_idempotency_key" {
		fail("missing-key-accepted", "a request without a key got %d %s", a.status, a.body)
	}
	// Replay and mismatch.
	first := mustPost(t, base, "prop-1", "acct_a", transferBody)
	again := mustPost(t, base, "prop-1", "acct_a", transferBody)
	if first.status != 201 {
		t.Fatalf("first attempt: %d %s", first.status, first.body)
	}
	if again.status != 201 || !bytes.Equal(first.body, again.body) || again.header.Get("Idempotent-Replayed") != "true" {
		fail("replay-not-verbatim", "replay %d %q differs from the original %q", again.status, again.body, first.body)
	}
	mismatch := mustPost(t, base, "prop-1", "acct_a", strings.Replace(transferBody, "1000", "1001", 1))
	if mismatch.status != 409 || errorCode(mismatch.body) != "invalid_idempotent_request" {
		fail("no-fingerprint", "another body under the same key got %d %s", mismatch.status, mismatch.body)
	}
	// Scope: another account's same key is its own transfer.
	other := mustPost(t, base, "prop-1", "acct_b", transferBody)
	if other.status != 201 || bytes.Equal(other.body, first.body) || count(t, base, "prop-1", "acct_b") != 1 {
		fail("global-scope", "another account with the same key got %d %s (its count %d)", other.status, other.body, count(t, base, "prop-1", "acct_b"))
	}
	if n := count(t, base, "prop-1", "acct_a"); n != 1 {
		t.Errorf("prop-1 made %d transfers for acct_a", n)
	}
	// Downstream keys: charge_bank is applied but its answer is lost, so
	// the server gives up; the retry must reuse the call's key.
	ext.mu.Lock()
	before := ext.effects["charge_bank"]
	failed := false
	ext.hook = func(call string, beforeAnswer bool, w http.ResponseWriter) bool {
		if call == "charge_bank" && beforeAnswer && !failed {
			failed = true
			w.WriteHeader(http.StatusBadGateway)
			return true
		}
		return false
	}
	ext.mu.Unlock()
	if a := mustPost(t, base, "prop-2", "acct_a", transferBody); a.status != 503 {
		t.Errorf("lost charge answer: %d %s, want 503", a.status, a.body)
	}
	if a := mustPost(t, base, "prop-2", "acct_a", transferBody); a.status != 201 {
		t.Errorf("retry after a lost charge answer: %d %s", a.status, a.body)
	}
	ext.mu.Lock()
	ext.hook = nil
	ext.mu.Unlock()
	if n := ext.effectsOf("charge_bank") - before; n != 1 {
		fail("fresh-downstream-key", "the bank was charged %d times for one transfer", n)
	}
	return broken
}

// TestCrashRecovery kills the server (SIGKILL to its process group) when
// the external stub receives each call (applied, not answered) and right
// after it answered, restarts it, and retries: the transfer completes
// once, and each external call took effect once.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the crash test starts server processes")
	}
	for _, store := range dbtest.Names {
		t.Run(store, func(t *testing.T) {
			storeURL := dbtest.Fresh(t, store, os.Getenv)
			contractFile := testContract(t)
			for _, call := range []string{"charge_bank", "send_receipt"} {
				for _, when := range []string{"on-receive", "after-answer"} {
					t.Run(call+"/"+when, func(t *testing.T) {
						for _, v := range crashAndResume(t, storeURL, contractFile, "", call, when == "on-receive") {
							t.Error(v)
						}
					})
				}
			}
		})
	}
}

// TestCrashRecoveryFreshDownstreamKey: with --flaw fresh-downstream-key
// the same crash makes the retry charge the bank a second time.
func TestCrashRecoveryFreshDownstreamKey(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the crash test starts server processes")
	}
	v := crashAndResume(t, dbtest.Fresh(t, "sqlite", os.Getenv), testContract(t), "fresh-downstream-key", "charge_bank", true)
	if len(v) == 0 {
		t.Fatal("--flaw fresh-downstream-key survived a crash during charge_bank without a second charge")
	}
	t.Log(v)
}

// crashAndResume returns the violated properties.
func crashAndResume(t *testing.T, storeURL, contractFile, flaw, call string, beforeAnswer bool) (violations []string) {
	ext := newStub()
	ts := httptest.NewServer(ext)
	defer ts.Close()
	key := fmt.Sprintf("crash-%s-%t", call, beforeAnswer)

	child := startChild(t, storeURL, contractFile, flaw, ts.URL)
	var once sync.Once
	ext.hook = func(c string, before bool, _ http.ResponseWriter) bool {
		if c == call && before == beforeAnswer {
			once.Do(child.kill)
		}
		return false
	}
	if a, err := post(t, child.base, key, "acct_a", transferBody); err == nil {
		// Killed after the stub answered, the server may still have sent
		// its response; the retry below must then replay it.
		t.Logf("the first attempt answered %d before the kill", a.status)
	}
	child.wait()
	ext.mu.Lock()
	ext.hook = nil
	ext.mu.Unlock()

	again := startChild(t, storeURL, contractFile, flaw, ts.URL)
	defer again.kill()
	var final answer
	for attempt := 0; ; attempt++ {
		a, err := post(t, again.base, key, "acct_a", transferBody)
		if err != nil {
			t.Fatal(err)
		}
		if a.status != 409 || attempt > 200 {
			final = a
			break
		}
		wait, _ := strconv.Atoi(a.header.Get("Retry-After"))
		time.Sleep(time.Duration(max(wait, 1)) * time.Second) // honours Retry-After, as a client would
	}
	if final.status != 201 {
		violations = append(violations, fmt.Sprintf("retry after the crash: %d %s", final.status, final.body))
	}
	if n := count(t, again.base, key, "acct_a"); n != 1 {
		violations = append(violations, fmt.Sprintf("%d transfers for one key", n))
	}
	for _, c := range []string{"charge_bank", "send_receipt"} {
		if n := ext.effectsOf(c); n != 1 {
			violations = append(violations, fmt.Sprintf("%s took effect %d times", c, n))
		}
	}
	return violations
}

type childServer struct {
	cmd  *exec.Cmd
	base string
	done chan struct{}
}

var addrRE = regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)

func startChild(t *testing.T, storeURL, contractFile, flaw, externalURL string) *childServer {
	t.Helper()
	args := []string{"--addr", "127.0.0.1:0", "--store", storeURL, "--contract", contractFile, "--jobs-every", "0", "--flaw", flaw}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RETRYSPEC_PAYOUTS_CHILD="+strings.Join(args, "\x1f"), "RETRYSPEC_EXTERNAL_URL="+externalURL)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &childServer{cmd: cmd, done: make(chan struct{})}
	sc := bufio.NewScanner(stderr)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if m := addrRE.FindStringSubmatch(sc.Text()); m != nil {
			c.base = "http://" + m[1]
			break
		}
	}
	if c.base == "" {
		_ = cmd.Wait()
		t.Fatalf("the server did not start:\n%s", strings.Join(lines, "\n"))
	}
	go func() { _, _ = io.Copy(io.Discard, stderr); _ = cmd.Wait(); close(c.done) }()
	t.Cleanup(c.kill)
	return c
}

func (c *childServer) kill() { _ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL) }
func (c *childServer) wait() { <-c.done }
