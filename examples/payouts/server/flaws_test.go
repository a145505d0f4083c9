package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/retryspec/retryspec/internal/dbtest"
	"github.com/retryspec/retryspec/internal/testenv"
)

// TestFlawNames: --flaw takes the names docs/server.md lists, in its
// order, and answers a name that is neither the middleware's nor this
// server's with the middleware's error, before serving anything.
func TestFlawNames(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "docs", "server.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, prove, _ := strings.Cut(string(doc), "`--flaw NAME` switches in one")
	prove, _, _ = strings.Cut(prove, "so each gate")
	var listed []string
	for _, m := range regexp.MustCompile("`([a-z-]+)`").FindAllStringSubmatch(prove, -1) {
		listed = append(listed, m[1])
	}
	if got, want := flawNames(), strings.Join(listed, ", "); got != want {
		t.Errorf("--flaw names:\n%s\ndocs/server.md lists:\n%s", got, want)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := dbtest.Fresh(t, "sqlite", os.Getenv)
	_, err = newApp(context.Background(), config{store: store, flaw: "window-ignore", migrate: true}, "", log)
	want := `idempotency: unknown flaw "window-ignore" (one of check-then-insert, no-in-flight, no-fingerprint, ` +
		`replay-not-verbatim, global-scope, missing-key-accepted, fresh-downstream-key)`
	if err == nil || err.Error() != want {
		t.Errorf("--flaw window-ignore: %v\nwant %s", err, want)
	}
	// A server that starts anyway is stopped once it says it serves.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &stopOnServing{cancel: cancel}
	if code := run(ctx, []string{"--addr", "127.0.0.1:0", "--store", store, "--flaw", "no-such-flaw"}, stderr, os.Getenv); code != 1 || !strings.Contains(stderr.String(), `server: idempotency: unknown flaw "no-such-flaw"`) {
		t.Errorf("run --flaw no-such-flaw: exit %d, %s", code, stderr)
	}
}

// stopOnServing is a server's stderr that cancels its context when the
// server logs that it is serving.
type stopOnServing struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	cancel func()
}

func (s *stopOnServing) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if bytes.Contains(b, []byte("msg=serving")) {
		s.cancel()
	}
	return s.buf.Write(b)
}

func (s *stopOnServing) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}
