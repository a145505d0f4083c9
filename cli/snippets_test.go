package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/snippets"
	"github.com/retryspec/retryspec/snippets/faultserver"
	"github.com/retryspec/retryspec/snippets/run"
)

func runSnippetsCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	// The snippet runtimes need the machine's PATH, HOME and caches.
	sys, out, errb := testIO()
	sys.Getenv = os.Getenv
	code = Run(context.Background(), args, sys)
	return code, out.String(), errb.String()
}

func snippetsExamplePath(t *testing.T) string {
	return filepath.Join(testenv.RepoRoot(t), "examples", "payouts", "retryspec.yaml")
}

func TestSnippetsPrintAndWrite(t *testing.T) {
	ex := snippetsExamplePath(t)
	c, err := contract.Load(ex)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := snippets.Render(c, "python")
	code, out, errs := runSnippetsCLI(t, "snippets", "-c", ex, "--lang", "python")
	if code != 0 || out != string(want) {
		t.Fatalf("snippets --lang python: exit %d, stderr %q; stdout must be the rendered snippet", code, errs)
	}

	dir := filepath.Join(t.TempDir(), "out")
	if code, _, errs := runSnippetsCLI(t, "snippets", "-c", ex, "--out", dir); code != 0 {
		t.Fatalf("snippets --out: exit %d: %s", code, errs)
	}
	for _, l := range snippets.Languages() {
		got, err := os.ReadFile(filepath.Join(dir, l.FileName))
		want, _ := snippets.Render(c, l.Name)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: written file differs from the rendered snippet (%v)", l.FileName, err)
		}
	}
}

func TestSnippetsUsageErrors(t *testing.T) {
	ex := snippetsExamplePath(t)
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("retryspec: 1\napi: {name: X, base_url: https://x.example}\nidempotency:\n  headr: X\n"), 0o644)
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"snippets", "-c", ex, "--lang", "cobol"}, 2, `unknown language "cobol"`},
		{[]string{"snippets", "-c", filepath.Join(t.TempDir(), "none.yaml")}, 2, "none.yaml"},
		{[]string{"snippets", "-c", bad}, 2, "bad.yaml:4:"},
		{[]string{"snippets", "run", "-c", ex}, 2, "needs --lang"},
		{[]string{"snippets", "test", "-c", ex, "--lang", "cobol"}, 2, "unknown language"},
		{[]string{"snippets", "-c", ex, "extra"}, 2, `snippets takes no arguments; got "extra"`},
	}
	for _, tt := range tests {
		code, _, errs := runSnippetsCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, errs, tt.code, tt.msg)
		}
	}
}

func needPythonTenacity(t *testing.T) {
	testenv.LookPath(t, "python3")
	if exec.Command("python3", "-c", "from tenacity import stop_before_delay").Run() != nil {
		testenv.Missing(t, "python package tenacity>=8.3 (run .ci/install-snippets)")
	}
}

// TestSnippetsRun runs the rendered Python snippet against a local fault
// server through --base-url and checks that its output and exit code pass
// through.
func TestSnippetsRun(t *testing.T) {
	needPythonTenacity(t)
	srv, err := faultserver.Start("Idempotency-Key")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// A contract with short delays, so the retry is quick.
	src, _ := os.ReadFile(snippetsExamplePath(t))
	fast := strings.Replace(string(src), "base: 1s", "base: 10ms", 1)
	path := filepath.Join(t.TempDir(), "retryspec.yaml")
	os.WriteFile(path, []byte(fast), 0o644)

	ok := srv.NewSession(faultserver.Script{{Status: 503}, {Status: 201, Body: `{"id":"tr_1"}`}})
	code, out, errs := runSnippetsCLI(t, "snippets", "run", "-c", path, "--lang", "python", "--base-url", ok.BaseURL())
	if code != 0 || !strings.Contains(out, `HTTP 201: {"id":"tr_1"}`) || !regexp.MustCompile(`(?m)^attempt 1 failed: HTTP 503; retrying in \d+ ms$`).MatchString(errs) {
		t.Errorf("run against 503 then 201: exit %d\nstdout %q\nstderr %q", code, out, errs)
	}
	if n := len(ok.Requests()); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}

	no := srv.NewSession(faultserver.Script{{Status: 400}})
	code, _, errs = runSnippetsCLI(t, "snippets", "run", "-c", path, "--lang", "python", "--base-url", no.BaseURL())
	if code != 1 || !strings.Contains(errs, "giving up after attempt 1: HTTP 400") {
		t.Errorf("run against 400: exit %d, stderr %q; want the snippet's exit 1 and give-up line", code, errs)
	}
}

func TestSnippetsTestCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Python snippet through every scenario")
	}
	needPythonTenacity(t)
	code, _, errs := runSnippetsCLI(t, "snippets", "test", "-c", snippetsExamplePath(t), "--lang", "python")
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	last := lines[len(lines)-1]
	if code != 0 || !regexp.MustCompile(`^\d+ passed, 0 failed$`).MatchString(last) {
		t.Errorf("snippets test --lang python: exit %d, last line %q\n%s", code, last, errs)
	}
	if !strings.Contains(errs, "ok   python     recover-after-503") {
		t.Errorf("no per-scenario progress line:\n%s", errs)
	}
}

// TestSnippetsRunFailureIsExit1: whatever status the program exits with,
// a failed run is exit 1 as for every command (2 would read as a usage
// error), with the program's status named on stderr.
func TestSnippetsRunFailureIsExit1(t *testing.T) {
	for _, status := range []int{1, 2, 3, 127} {
		sys, _, errb := testIO()
		fake := &run.Fake{Respond: func(run.Program, map[string]string) (run.Result, error) {
			return run.Result{ExitCode: status}, nil
		}}
		opts := &snippetsOptions{IO: sys, ContractPath: snippetsExamplePath(t), Lang: "go", Runner: fake}
		printedCode := exitCode(sys, runSnippetsRun(context.Background(), opts))
		if printedCode != ExitFindings || !strings.Contains(errb.String(), fmt.Sprintf("the go snippet exited with status %d", status)) {
			t.Errorf("program exit %d: retryspec exit %d, stderr %q; want 1 and the status named", status, printedCode, errb.String())
		}
		if len(fake.Prepared) != 1 || fake.Prepared[0].FileName != "snippet.go" {
			t.Errorf("prepared %+v, want the Go snippet", fake.Prepared)
		}
	}
}
