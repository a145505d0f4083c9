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

// waitPage polls url until its body contains want (a build may take
// more than one event to settle on a loaded machine), returning the body.
func waitPage(t *testing.T, ctx context.Context, url, want string) string {
	t.Helper()
	page := get(t, url)
	for !strings.Contains(page, want) && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
		page = get(t, url)
	}
	return page
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

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log := &syncBuffer{}
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ServeOptions{
			Build: Options{Contract: contractPath},
			Addr:  "127.0.0.1:0",
			Poll:  50 * time.Millisecond,
			Log:   log,
			Ready: func(url string) { ready <- url },
		})
	}()
	var base string
	select {
	case base = <-ready:
	case err := <-done:
		t.Fatalf("serve ended early: %v", err)
	case <-ctx.Done():
		t.Fatal("serve did not start")
	}
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

	// Listen for build events.
	resp, err := http.Get(base + "_retryspec/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "event: ") {
				events <- strings.TrimPrefix(sc.Text(), "event: ")
			}
		}
	}()
	waitEvent := func(what string) {
		t.Helper()
		select {
		case e := <-events:
			if e != "build" {
				t.Fatalf("event %q, want build", e)
			}
		case <-ctx.Done():
			t.Fatalf("no build event after %s; log:\n%s", what, log.String())
		}
	}
	time.Sleep(100 * time.Millisecond) // let the stream subscribe

	// A broken edit: the unit is missing. Written in place, as editors
	// that truncate and rewrite do; serve waits for the edit to settle.
	broken := bytes.Replace(good, []byte("replay_window: 24h"), []byte("replay_window: 24"), 1)
	os.WriteFile(contractPath, broken, 0o644)
	waitEvent("the broken edit")
	page = waitPage(t, ctx, base+"retrying.html", "replay_window")
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
	waitEvent("the fix")
	page = waitPage(t, ctx, base+"index.html", "Lumapay Two")
	if strings.Contains(page, "build-error") || !strings.Contains(page, "Lumapay Two") {
		t.Errorf("fixed build not served:\n%s", page)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// TestServeRebuildsOnTemplateChange: editing an override template rebuilds
// the site; an override that breaks the escaping rule shows in the page.
func TestServeRebuildsOnTemplateChange(t *testing.T) {
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "tmpl", "markdown", "errors.md.tmpl")
	os.MkdirAll(filepath.Dir(tmpl), 0o755)
	os.WriteFile(tmpl, []byte("# First version\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ServeOptions{
			Build: Options{Contract: examples(t)["payouts"], Templates: filepath.Join(dir, "tmpl")},
			Addr:  "127.0.0.1:0", Poll: 50 * time.Millisecond,
			Ready: func(url string) { ready <- url },
		})
	}()
	base := <-ready
	if page := get(t, base+"errors.html"); !strings.Contains(page, "First version") {
		t.Fatalf("override not served:\n%s", page)
	}
	waitFor := func(want string) string {
		t.Helper()
		for ctx.Err() == nil {
			if page := get(t, base+"errors.html"); strings.Contains(page, want) {
				return page
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("errors.html never showed %q", want)
		return ""
	}
	os.WriteFile(tmpl, []byte("# Second version, a bit longer\n"), 0o644)
	waitFor("Second version")
	os.WriteFile(tmpl, []byte("# {{.C.API.Name}} broken\n"), 0o644)
	page := waitFor("build-error")
	if !strings.Contains(page, "prints a value without escaping it") || !strings.Contains(page, "Second version") {
		t.Errorf("broken template: page lacks the error or the last good content:\n%s", page)
	}
	cancel()
	if err := <-done; err != nil {
		t.Error(err)
	}
}
