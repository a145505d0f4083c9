package hostiletest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/internal/testenv"
)

// TestHostileSnippetsRunClean renders every snippet from a contract full of
// hostile strings and runs them all (`retryspec snippets test`, the real
// runtimes against the loopback fault server). The base URL, the one free
// value the grammar lets through with shell syntax in it ($ ( ) ; & !),
// carries commands that would create a marker file; the text fields carry
// quotes, backslashes, backticks, $(...), #{...} and markup. Every scenario
// must pass (the fault server saw exactly the intended requests), and no
// marker or other file may appear outside the run's own folders.
func TestHostileSnippetsRunClean(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short: runs six runtimes")
	}
	if placeholder(t, "snippets") {
		t.Skip("SKIPPED: snippets is not implemented on this branch yet")
	}
	for _, prog := range []string{"python3", "node", "go", "java", "javac", "ruby", "curl", "sh"} {
		testenv.LookPath(t, prog)
	}
	sb := newSandbox(t)
	// The runtimes' libraries (.ci/install-snippets) live in the real
	// user's cache; HOME is the sandbox's.
	cache := os.Getenv("RETRYSPEC_SNIPPETS_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "retryspec", "snippets")
	}
	sb.env = append(sb.env, "RETRYSPEC_SNIPPETS_CACHE="+cache)
	marker := filepath.Join(sb.root, pwned)
	src, err := os.ReadFile(filepath.Join(repoRoot(), "testdata", "hostile", "contract-hostile-strings.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	payload := "https://api.lumapay.example/v$(touch$IFS" + marker + ");touch$IFS" + marker + "&(touch$IFS" + marker + ")!*$IFS"
	text := strings.Replace(string(src), "base_url: https://api.lumapay.example", "base_url: "+payload, 1)
	if text == string(src) {
		t.Fatal("the base URL was not replaced")
	}
	// Shell syntax in base_url is refused at load (issue 13: it reaches
	// curl and every snippet), with the percent-encoding to write instead.
	mustWrite(t, filepath.Join(sb.work, "hostile.yaml"), []byte(text))
	if r := run(t, sb, 0, "check", "-c", "hostile.yaml"); r.code != 2 || !strings.Contains(r.stderr, "%24") {
		t.Errorf("a base URL with shell syntax: exit %d, want 2 with the percent-encoding of '$'\n%s", r.code, r.stderr)
	}
	// Percent-encoded, the same payload is a legal URL: the snippets carry
	// it, and no runtime may decode it into a command.
	encoded := strings.NewReplacer("$", "%24", "(", "%28", ")", "%29", ";", "%3B", "&", "%26", "!", "%21", "*", "%2A").Replace(payload)
	text = strings.Replace(string(src), "base_url: https://api.lumapay.example", "base_url: "+encoded, 1)
	mustWrite(t, filepath.Join(sb.work, "hostile.yaml"), []byte(text))

	if r := run(t, sb, 0, "check", "-c", "hostile.yaml"); r.code != 0 {
		t.Fatalf("the hostile contract must load and pass check, so the snippets carry its strings: exit %d\n%s", r.code, r.stderr)
	}
	before := snapshot(t, sb.root)
	start := time.Now()
	r := runLong(t, sb, "snippets", "test", "-c", "hostile.yaml")
	t.Logf("snippets test: exit %d in %v\n%s", r.code, time.Since(start).Round(time.Second), failures(r.stdout+r.stderr))
	checkNoCrash(t, "snippets test", r)
	if r.code != 0 {
		t.Errorf("snippets test on the hostile contract: exit %d; every scenario must pass", r.code)
	}
	if _, err := os.Lstat(marker); err == nil {
		t.Fatalf("a command from the contract ran: %s exists", marker)
	}
	// The runtimes keep their own caches and settings under HOME (Go's
	// build cache and telemetry counters, ...): the runtimes are trusted
	// (SECURITY.md) and that state is theirs, not an output of retryspec.
	// Everything else is checked.
	ents, _ := os.ReadDir(sb.home)
	var runtimeState []string
	for _, e := range ents {
		if e.Name() != ".keep" {
			runtimeState = append(runtimeState, e.Name())
			os.RemoveAll(filepath.Join(sb.home, e.Name()))
		}
	}
	t.Logf("runtime state under HOME, not checked: %v", runtimeState)
	checkContained(t, "snippets test", sb, before, r)
}

// runLong is run without the bounds: the snippet runtimes take their time.
func runLong(t testing.TB, sb *sandbox, args ...string) result {
	t.Helper()
	return runFor(t, sb, 0, 10*time.Minute, args...)
}

// failures keeps the report's failed scenarios, their problems and the
// summary lines.
func failures(report string) string {
	var out []string
	inFail := false
	for _, line := range strings.Split(report, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "FAIL"):
			inFail = true
			out = append(out, line)
		case strings.HasPrefix(trimmed, "ok "):
			inFail = false
		case inFail || strings.HasPrefix(trimmed, "time ") || strings.Contains(trimmed, "passed,") || strings.HasPrefix(trimmed, "total"):
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
