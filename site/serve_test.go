package site

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log the server writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	return string(b)
}

// buildEvents subscribes to the server's build events and returns once
// the stream is connected, so no build after the call is missed. Each
// build sends one value on the channel.
func buildEvents(t *testing.T, base string) <-chan struct{} {
	t.Helper()
	resp, err := http.Get(base + "_retryspec/events")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	if !sc.Scan() || sc.Text() != ": connected" {
		t.Fatalf("event stream did not open with its connected comment: %q", sc.Text())
	}
	events := make(chan struct{}, 100)
	go func() {
		for sc.Scan() {
			if sc.Text() == "event: build" {
				events <- struct{}{}
			}
		}
		close(events)
	}()
	return events
}

// waitPage waits for build events until url's body contains want (an
// editor's write may be seen half-done and built twice), returning the
// body. No clock: on a loaded machine a build takes as long as it takes,
// and a build that never comes ends in go test's own -timeout, with the
// goroutines' stacks.
func waitPage(t *testing.T, events <-chan struct{}, url, want string) string {
	t.Helper()
	for {
		if _, ok := <-events; !ok {
			t.Fatalf("the event stream ended before %s showed %q", url, want)
		}
		if page := get(t, url); strings.Contains(page, want) {
			return page
		}
	}
}

// TestServeRebuildsAndShowsBrokenEdits serves a contract, breaks it, then
// fixes it: each edit triggers a build event; the broken one keeps the last
// good pages up with the problem shown in the page and in the log.
func TestServeRebuildsAndShowsBrokenEdits(t *testing.T) {
	dir := t.TempDir()
	contractPath := filepath.Join(dir, "retryspec.yaml")
	good, err := os.ReadFile(examples(t)["payouts"])
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(contractPath, good, 0o644)

	log := &syncBuffer{}
	base, stop := startServe(t, ServeOptions{Build: Options{Contract: contractPath}, Log: log})
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("serving on %s, want loopback", base)
	}
	page := get(t, base)
	if !strings.Contains(page, "Lumapay") || !strings.Contains(page, "/_retryspec/live.js") {
		t.Fatalf("index lacks the site or the reload script:\n%s", page)
	}
	if css := get(t, base+"assets/site.css"); !strings.Contains(css, "prefers-color-scheme") {
		t.Error("site.css not served")
	}
	events := buildEvents(t, base)

	// A broken edit: the unit is missing. Written in place, as editors
	// that truncate and rewrite do; serve waits for the edit to settle.
	broken := bytes.Replace(good, []byte("replay_window: 24h"), []byte("replay_window: 24"), 1)
	os.WriteFile(contractPath, broken, 0o644)
	page = waitPage(t, events, base+"retrying.html", "build-error")
	if !strings.Contains(page, `class="build-error" role="alert"`) || !strings.Contains(page, "replay_window") {
		t.Errorf("page does not show the build error:\n%s", page)
	}
	if !strings.Contains(page, "Retrying requests") {
		t.Error("the last good page is gone after a broken edit")
	}
	if !strings.Contains(log.String(), "build failed") || !strings.Contains(log.String(), "replay_window") {
		t.Errorf("log does not show the failure:\n%s", log.String())
	}

	// The fix, with a visible change.
	fixed := bytes.Replace(good, []byte("name: Lumapay"), []byte("name: Lumapay Two"), 1)
	os.WriteFile(contractPath, fixed, 0o644)
	page = waitPage(t, events, base+"index.html", "Lumapay Two")
	if strings.Contains(page, "build-error") {
		t.Errorf("fixed build still shows the error:\n%s", page)
	}
	if err := stop(); err != nil {
		t.Errorf("serve returned %v", err)
	}
}

// startServe runs Serve on a free loopback port until stop, which waits
// for Serve to return. Waits on Serve's Ready call, not on a clock.
func startServe(t *testing.T, opts ServeOptions) (base string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	opts.Addr, opts.Poll = "127.0.0.1:0", 50*time.Millisecond
	opts.Ready = func(url string) { ready <- url }
	go func() { done <- Serve(ctx, opts) }()
	select {
	case base = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("serve ended before it listened: %v", err)
	}
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() { stop() })
	return base, stop
}

// TestServeRebuildsOnTemplateChange: editing an override template rebuilds
// the site; an override that breaks the escaping rule shows in the page.
// It waits on build events, never on a clock: with a 30-second budget it
// failed a loaded machine's `make test` after 21 minutes (issue 28).
func TestServeRebuildsOnTemplateChange(t *testing.T) {
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "tmpl", "markdown", "errors.md.tmpl")
	os.MkdirAll(filepath.Dir(tmpl), 0o755)
	os.WriteFile(tmpl, []byte("# First version\n"), 0o644)
	base, stop := startServe(t, ServeOptions{Build: Options{Contract: examples(t)["payouts"], Templates: filepath.Join(dir, "tmpl")}})
	if page := get(t, base+"errors.html"); !strings.Contains(page, "First version") {
		t.Fatalf("override not served:\n%s", page)
	}
	events := buildEvents(t, base)
	os.WriteFile(tmpl, []byte("# Second version, a bit longer\n"), 0o644)
	waitPage(t, events, base+"errors.html", "Second version")
	os.WriteFile(tmpl, []byte("# {{.C.API.Name}} broken\n"), 0o644)
	page := waitPage(t, events, base+"errors.html", "build-error")
	if !strings.Contains(page, "prints a value without escaping it") || !strings.Contains(page, "Second version") {
		t.Errorf("broken template: page lacks the error or the last good content:\n%s", page)
	}
	if err := stop(); err != nil {
		t.Error(err)
	}
}
