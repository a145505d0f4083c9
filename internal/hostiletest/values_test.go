package hostiletest

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// withContract writes the payouts example with one substitution into a
// fresh sandbox.
func withContract(t *testing.T, old, new string) *sandbox {
	t.Helper()
	sb := newSandbox(t)
	p := filepath.Join(sb.work, "retryspec.yaml")
	src := readFile(t, p)
	if !strings.Contains(src, old) {
		t.Fatalf("the example has no %q", old)
	}
	mustWrite(t, p, []byte(strings.Replace(src, old, new, 1)))
	return sb
}

// TestContractValuesThatReachCodeAreChecked (issue 13 item 6): base URLs
// with glob or shell syntax and reserved header names are refused at load
// time, exit 2 at the value's position with a fix; the curl snippet turns
// URL globbing off and the Ruby snippet connects to uri.hostname (an IPv6
// literal without brackets). An IPv6 loopback base URL loads.
func TestContractValuesThatReachCodeAreChecked(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{"http://h/[1-5]", `retryspec.yaml:4:22: error: api.base_url: "http://h/[1-5]" has "[" at character 10`},
		{"https://api.example.com/v1/{a,b}", "api.base_url"},
		{"https://api.example.com/v1/*", `has "*"`},
		{"https://api.example.com/$(touch PWNED)", "api.base_url"},
		{"https://api.example.com/v1;id", `has ";"`},
		{"https://[example.com]/v1", "api.base_url"},
	} {
		sb := withContract(t, "base_url: https://api.lumapay.example", "base_url: '"+c.value+"'")
		if c.value == "http://h/[1-5]" {
			sb = withContract(t, "base_url: https://api.lumapay.example", "base_url: "+c.value)
		}
		r := run(t, sb, 0, "check")
		checkNoCrash(t, c.value, r)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "fix:") {
			t.Errorf("base_url %s: exit %d, want 2 with %q and a fix\n%s", c.value, r.code, c.want, r.stderr)
		}
	}
	for _, h := range []string{"Host", "Content-Length", "transfer-encoding", "Content-Type", "Authorization", "Cookie",
		"Connection", "Expect", "TE", "Upgrade", "Proxy-Authorization", "Proxy-Idempotency-Key", "Keep-Alive", "Trailer"} {
		sb := withContract(t, "header: Idempotency-Key", "header: "+h)
		r := run(t, sb, 0, "check")
		checkNoCrash(t, h, r)
		if r.code != 2 || !strings.Contains(r.stderr, "idempotency.header") || !strings.Contains(r.stderr, "reserves") {
			t.Errorf("idempotency.header %s: exit %d, want 2 naming the field as reserved\n%s", h, r.code, r.stderr)
		}
	}

	sb := withContract(t, "base_url: https://api.lumapay.example", "base_url: 'http://[::1]:8080/v1'")
	if r := run(t, sb, 0, "check"); r.code == 2 {
		t.Errorf("an IPv6 loopback base URL was refused:\n%s", r.stderr)
	}
	r := run(t, sb, 0, "snippets", "--lang", "curl")
	if !regexp.MustCompile(`\bcurl (-g|--globoff)\b`).MatchString(r.stdout) {
		t.Errorf("the curl snippet does not pass -g/--globoff:\n%.600s", r.stdout)
	}
	r = run(t, sb, 0, "snippets", "--lang", "ruby")
	if !strings.Contains(r.stdout, "Net::HTTP.new(uri.hostname") || strings.Contains(r.stdout, "uri.host,") {
		t.Errorf("the Ruby snippet does not connect to uri.hostname:\n%.600s", r.stdout)
	}
}

// TestFiguresNeverOverflow (issue 13 item 7): durations past 3650d, and an
// attempt timeout (p99 × factor) past it, are refused at the field's
// position; at the largest figures accepted, no page or chart prints a
// negative duration.
func TestFiguresNeverOverflow(t *testing.T) {
	// Positions are read off the example, so a line added above them
	// does not break the test.
	src := readFile(t, filepath.Join(newSandbox(t).work, "retryspec.yaml"))
	at := func(text string, col int) string {
		i := strings.Index(src, text)
		if i < 0 {
			t.Fatalf("the example has no %q", text)
		}
		return fmt.Sprintf("retryspec.yaml:%d:%d:", strings.Count(src[:i], "\n")+1, col)
	}
	for _, c := range []struct{ old, new, want string }{
		{"max_elapsed: 60s", "max_elapsed: 36500d", at("max_elapsed: 60s", 16) + " error: retry.max_elapsed"},
		{"p99: 800ms", "p99: 20000d", at("p99: 800ms", 10) + " error: retry.attempt_timeout.p99"},
		{"p99: 800ms", "p99: 1500d", at("factor: 2.5", 13) + " error: retry.attempt_timeout: p99 1500d × factor 2.5"},
		{"replay_window: 24h", "replay_window: 36500d", "error: idempotency.replay_window"},
	} {
		sb := withContract(t, c.old, c.new)
		r := run(t, sb, 0, "check")
		checkNoCrash(t, c.new, r)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "3650d") {
			t.Errorf("%s: exit %d, want 2 with %q naming the maximum\n%s", c.new, r.code, c.want, r.stderr)
		}
	}
	sb := withContract(t, "p99: 800ms", "p99: 400d")
	for _, kv := range [][2]string{{"max_elapsed: 60s", "max_elapsed: 3650d"}, {"max_attempts: 3", "max_attempts: 3"}, {"replay_window: 24h", "replay_window: 3000d"}, {"reaper_after: 72h", "reaper_after: 3650d"}, {"lock_timeout: 2m", "lock_timeout: 1200d"}} {
		p := filepath.Join(sb.work, "retryspec.yaml")
		mustWrite(t, p, []byte(strings.Replace(readFile(t, p), kv[0], kv[1], 1)))
	}
	r := run(t, sb, 0, "build", "--out", "site")
	checkNoCrash(t, "build at the maxima", r)
	if r.code != 0 {
		t.Fatalf("the largest figures were refused or did not build: exit %d\n%s", r.code, r.stderr)
	}
	negative := regexp.MustCompile(`(?:^|[^\w.-])-\d+(?:\.\d+)? ?(?:ms|us|ns|d|h|m|s|y)`)
	after := snapshot(t, filepath.Join(sb.work, "site"))
	for p, e := range after {
		if e.kind != "file" || !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".svg") && !strings.HasSuffix(p, ".html") {
			continue
		}
		data := readFile(t, filepath.Join(sb.work, "site", p))
		if m := negative.FindString(data); m != "" {
			t.Errorf("site/%s prints a negative duration %q", p, strings.TrimSpace(m))
		}
	}
	if r := run(t, sb, 0, "check"); negative.MatchString(r.stdout + r.stderr) {
		t.Errorf("check prints a negative duration:\n%s", r.stdout+r.stderr)
	}
}

// TestHeaderWithPipeStaysInItsCell (issue 13 item 8): "Idem|Key" is a
// legal header token; in idempotency.md (rendered as GFM) and in the HTML
// page the missing-key row still reads "Add the Idem|Key header.".
func TestHeaderWithPipeStaysInItsCell(t *testing.T) {
	sb := withContract(t, "header: Idempotency-Key", "header: 'Idem|Key'")
	r := run(t, sb, 0, "build", "--out", "site")
	checkNoCrash(t, "build", r)
	if r.code == 2 {
		t.Fatalf("build: exit 2\n%s", r.stderr)
	}
	for _, p := range []string{"site/markdown/idempotency.md", "site/idempotency.html"} {
		data := []byte(readFile(t, filepath.Join(sb.work, p)))
		if strings.HasSuffix(p, ".md") {
			var page bytes.Buffer
			if err := markdownPlatform.Convert(data, &page); err != nil {
				t.Fatal(err)
			}
			data = page.Bytes()
		}
		if txt := pageText(data); !strings.Contains(txt, "Add the Idem|Key header.") {
			t.Errorf("%s: the missing-key row does not read \"Add the Idem|Key header.\"", p)
		}
	}
}

// pageText is the text of an HTML page, tags dropped.
func pageText(data []byte) string {
	var b strings.Builder
	z := html.NewTokenizer(bytes.NewReader(data))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			b.Write(z.Text())
		}
	}
}
