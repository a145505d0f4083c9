package idempotency_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"go/format"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/retryspec/retryspec/internal/testenv"
)

// goBlocks returns the text of each ```go block of a Markdown file, in
// order, as goldmark reads them (as site/snippets_test.go reads the
// Retrying page).
func goBlocks(t *testing.T, md []byte) []string {
	t.Helper()
	var blocks []string
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(md))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if fc, ok := n.(*ast.FencedCodeBlock); ok && entering && string(fc.Language(md)) == "go" {
			var b bytes.Buffer
			for i := 0; i < fc.Lines().Len(); i++ {
				s := fc.Lines().At(i)
				b.Write(s.Value(md))
			}
			blocks = append(blocks, b.String())
		}
		return ast.WalkContinue, nil
	})
	return blocks
}

// TestServerDocsProgram (issue 26 item 10): the Go blocks of
// docs/server.md, in order, are one program. It is extracted from the
// page, built (as a package of this module, through go build's -overlay,
// so nothing is written into the checkout) and run on SQLite with the
// payouts contract; a first attempt runs every phase, a retry gets the
// stored response, another body gets the contract's mismatch, a refused
// body is stored, and the counters are served. A block that does not
// compile, or a pattern that does not run, fails here.
func TestServerDocsProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED: builds and runs the program of docs/server.md; not with -short")
	}
	goBin := testenv.LookPath(t, "go")
	root := testenv.RepoRoot(t)
	md, err := os.ReadFile(filepath.Join(root, "docs", "server.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := goBlocks(t, md)
	if len(blocks) < 3 || !strings.HasPrefix(blocks[0], "package main\n") {
		t.Fatalf("docs/server.md has %d Go blocks; the first must open the program with `package main`", len(blocks))
	}
	program := []byte(strings.Join(blocks, "\n"))
	if formatted, err := format.Source(program); err == nil && !bytes.Equal(formatted, program) {
		t.Errorf("the Go blocks of docs/server.md are not gofmt-formatted; as gofmt has them:\n%s", formatted)
	}
	tmp := t.TempDir()
	src := filepath.Join(tmp, "main.go")
	if err := os.WriteFile(src, program, 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory of the module that does not exist on disk: the overlay
	// alone puts main.go there, so the program imports this checkout's
	// packages as a service importing the module would.
	pkg := filepath.Join(root, "docs", "servermd")
	overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(pkg, "main.go"): src}})
	if err := os.WriteFile(filepath.Join(tmp, "overlay.json"), overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, "server")
	build := exec.Command(goBin, "build", "-overlay", filepath.Join(tmp, "overlay.json"), "-o", bin, "./docs/servermd")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the Go blocks of docs/server.md do not build:\n%s\nthe program, as extracted:\n%s", out, numbered(strings.Join(blocks, "\n")))
	}

	// Run it where `retryspec.yaml` is the payouts contract.
	contractSrc, err := os.ReadFile(filepath.Join(root, "examples", "payouts", "retryspec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "retryspec.yaml"), contractSrc, 0o644); err != nil {
		t.Fatal(err)
	}
	dbFile := filepath.Join(tmp, "keys.db")
	cmd := exec.Command(bin)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "DATABASE_URL=sqlite:"+dbFile, "ADDR=127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
	defer stop()
	var logs bytes.Buffer
	sc := bufio.NewScanner(stderr)
	addr := ""
	for addr == "" && sc.Scan() {
		logs.WriteString(sc.Text() + "\n")
		if _, a, ok := strings.Cut(sc.Text(), "listening on "); ok {
			addr = a
		}
	}
	if addr == "" {
		stop()
		t.Fatalf("the program ended before it listened:\n%s", logs.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()

	post := func(key, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(context.Background(), "POST", "http://"+addr+"/v1/transfers", strings.NewReader(body))
		req.Header.Set("Idempotency-Key", key)
		req.Header.Set("X-Account", "acct_a")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	first, firstBody := post("docs-1", `{"amount":1000,"currency":"usd"}`)
	if first.StatusCode != http.StatusCreated || !strings.Contains(firstBody, `"id":"tr_`) {
		t.Fatalf("first attempt: %d %s", first.StatusCode, firstBody)
	}
	again, againBody := post("docs-1", `{"amount":1000,"currency":"usd"}`)
	if again.StatusCode != http.StatusCreated || againBody != firstBody || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry: %d %s (replayed %q), want the first response replayed", again.StatusCode, againBody, again.Header.Get("Idempotent-Replayed"))
	}
	other, otherBody := post("docs-1", `{"amount":2000,"currency":"usd"}`)
	if other.StatusCode != http.StatusConflict || !strings.Contains(otherBody, "invalid_idempotent_request") {
		t.Errorf("another body under the key: %d %s, want the contract's payload_mismatch", other.StatusCode, otherBody)
	}
	bad, _ := post("docs-2", `{"amount":0}`)
	badAgain, _ := post("docs-2", `{"amount":0}`)
	if bad.StatusCode != http.StatusBadRequest || badAgain.StatusCode != http.StatusBadRequest || badAgain.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("a refused body: %d, then %d (replayed %q); want 400 stored and replayed", bad.StatusCode, badAgain.StatusCode, badAgain.Header.Get("Idempotent-Replayed"))
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(metrics), `retryspec_idempotency_claims_won_total{operation="POST /v1/transfers"} 2`) {
		t.Errorf("metrics:\n%s", metrics)
	}
	stop()

	// Every phase committed once: the transfer row with the bank's charge,
	// and the key at its last recovery point.
	db, err := sql.Open("sqlite", dbFile)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var transfers int
	var charge, point string
	if err := db.QueryRow(`SELECT count(*), max(charge_id) FROM transfers`).Scan(&transfers, &charge); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT recovery_point FROM idempotency_keys WHERE idempotency_key = 'docs-1'`).Scan(&point); err != nil {
		t.Fatal(err)
	}
	if transfers != 1 || !strings.HasPrefix(charge, "ch_") || point != "finished" {
		t.Errorf("after the requests: %d transfers, charge %q, key at %q; want 1, a charge, finished", transfers, charge, point)
	}
}

// numbered prefixes each line with its number, as the compiler counts them.
func numbered(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(src, "\n") {
		fmt.Fprintf(&b, "%4d\t%s\n", i+1, l)
	}
	return b.String()
}
