package render

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/render/schedule"
)

func load(t testing.TB, path string) *contract.Contract {
	t.Helper()
	c, err := contract.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func pages(t testing.TB, in Inputs) map[string]string {
	t.Helper()
	tm, err := LoadTemplates("")
	if err != nil {
		t.Fatal(err)
	}
	ps, _, err := Markdown(in, tm)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range ps {
		out[p.Path] = string(p.Markdown)
	}
	return out
}

// TestRetryingPageFigures reads the rendered Retrying page back and finds
// each of the contract's figures in its place.
func TestRetryingPageFigures(t *testing.T) {
	c := load(t, "testdata/figures.yaml")
	page := pages(t, Inputs{Contract: c})["retrying.md"]
	want := []string{
		// allowlist, cautious status, connection errors
		"| 429 Too Many Requests | yes |", "| 502 Bad Gateway | yes |", "| 503 Service Unavailable | yes |",
		"| 500 Internal Server Error | once at most |",
		"| connection or read timeout | yes |", "| connection reset | yes |", "| connection refused | no |",
		"| `422 key_body_mismatch` | no |", "| `409 key_still_running` | yes, after a wait |", "| `400 key_missing_here` | no |",
		"so 500 is retried at most once",
		// Retry-After, unkeyed endpoints
		"### Honour Retry-After", "- `POST /v1/payments/{id}/notify`: Notifying twice pages the merchant twice.",
		// backoff
		"`sleep = random(0, min(cap, base * 3^n))`",
		"base 750ms, multiplier 3, cap 9s, 5 attempts, each attempt timing out after 1s50ms",
		// bounds, timeouts
		"Stop after 5 attempts in all", "once 45s (45 seconds) have passed",
		"timeout of 1s50ms: 2.5 times the measured p99 latency of 420ms",
		// budget
		"| Capacity | 640 tokens |", "| Cost of a retry after a transient error | 13 tokens |",
		"| Cost of a retry after throttling (429) | 7 tokens |", "| Refund per successful request | 2 tokens |",
		"retry → circuit-breaker → rate-limiter → bulkhead",
		"![Chart of the retry schedule", "(retry-schedule.svg)",
	}
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("Retrying page lacks %q", w)
		}
	}
	// The worked schedule: one row per attempt with its envelope and sums.
	steps := schedule.Compute(c.Retry)
	if len(steps) != 5 {
		t.Fatalf("%d steps, want 5", len(steps))
	}
	rows := []string{
		"| 1 | no wait: first request | (none) | 0s | 1s50ms |",
		"| 2 | min(9s, 750ms × 3^0) = 750ms | 0s to 750ms | 750ms | 2s850ms |",
		"| 3 | min(9s, 750ms × 3^1) = 2s250ms | 0s to 2s250ms | 3s | 6s150ms |",
		"| 4 | min(9s, 750ms × 3^2) = 6s750ms | 0s to 6s750ms | 9s750ms | 13s950ms |",
		"| 5 | min(9s, 750ms × 3^3) = 9s | 0s to 9s | 18s750ms | 24s |",
	}
	for _, r := range rows {
		if !strings.Contains(page, r) {
			t.Errorf("schedule table lacks row %q", r)
		}
	}
	if t.Failed() {
		t.Logf("page:\n%s", page)
	}
}

func TestScheduleCompute(t *testing.T) {
	sec := func(f float64) contract.Duration { return contract.Dur(time.Duration(f * float64(time.Second))) }
	tests := []struct {
		name      string
		retry     contract.Retry
		envelopes []time.Duration
		past      []bool
	}{
		{"capped", contract.Retry{MaxAttempts: 4, MaxElapsed: sec(60), Backoff: contract.Backoff{Jitter: "full", Base: sec(1), Cap: sec(3), Multiplier: 2}, AttemptTimeout: contract.AttemptTimeout{Bare: sec(1)}},
			[]time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second}, []bool{false, false, false, false}},
		{"past max_elapsed", contract.Retry{MaxAttempts: 3, MaxElapsed: sec(5), Backoff: contract.Backoff{Jitter: "equal", Base: sec(2), Cap: sec(30), Multiplier: 2}, AttemptTimeout: contract.AttemptTimeout{Bare: sec(1)}},
			[]time.Duration{0, 2 * time.Second, 4 * time.Second}, []bool{false, false, true}},
		{"huge multiplier saturates at cap", contract.Retry{MaxAttempts: 20, Backoff: contract.Backoff{Jitter: "none", Base: sec(1), Cap: sec(10), Multiplier: 1e300}},
			nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps := schedule.Compute(tt.retry)
			for i, s := range steps {
				if s.Envelope < 0 || s.Envelope > tt.retry.Backoff.Cap.D {
					t.Errorf("step %d envelope %v outside [0, cap]", i, s.Envelope)
				}
				if s.JitterLow > s.JitterHigh {
					t.Errorf("step %d jitter band %v..%v inverted", i, s.JitterLow, s.JitterHigh)
				}
				if tt.envelopes != nil && s.Envelope != tt.envelopes[i] {
					t.Errorf("step %d envelope = %v, want %v", i, s.Envelope, tt.envelopes[i])
				}
				if tt.past != nil && s.PastMaxElapsed != tt.past[i] {
					t.Errorf("step %d past max_elapsed = %v, want %v", i, s.PastMaxElapsed, tt.past[i])
				}
			}
		})
	}
}

func TestEscapeMarkdown(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, with commas.", "plain text, with commas."},
		{"*em* _em_", `\*em\* \_em\_`},
		{"[x](javascript:y)", `\[x\](javascript:y)`},
		{"<script>", `\<script\>`},
		{"a | b", `a \| b`},
		{"{jsx}", `\{jsx\}`},
		{"# heading", `\# heading`},
		{"- item", `\- item`},
		{"1. item", `1\. item`},
		{"line\nbreak", "line break"},
		{"`tick`", "\\`tick\\`"},
		{"&amp;", `\&amp;`},
	}
	for _, tt := range tests {
		if got := EscapeMarkdown(tt.in); got != tt.want {
			t.Errorf("EscapeMarkdown(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCodeSpan(t *testing.T) {
	tests := []struct{ in, want, cell string }{
		{"Idempotency-Key", "`Idempotency-Key`", "`Idempotency-Key`"},
		{"a`b", "``a`b``", "``a`b``"},
		{"`x`", "`` `x` ``", "`` `x` ``"},
		{"a|b", "`a|b`", "`a\\|b`"},
	}
	for _, tt := range tests {
		if got := CodeSpan(tt.in); got != tt.want {
			t.Errorf("CodeSpan(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := CellCodeSpan(tt.in); got != tt.cell {
			t.Errorf("CellCodeSpan(%q) = %q, want %q", tt.in, got, tt.cell)
		}
	}
}

// TestSnippetBlocksAreExact renders the Retrying page with snippets whose
// text is hostile to fences (backtick runs, trailing spaces, blank lines)
// and reads each code block back: byte for byte the snippet, in the
// Markdown and in the HTML text.
func TestSnippetBlocksAreExact(t *testing.T) {
	c := load(t, "testdata/figures.yaml")
	snips := []Snippet{
		{Lang: "python", Title: "Python", Library: "Use **tenacity**.", Code: []byte("import time\n\n\ndef f():  \n    return '```'\n")},
		{Lang: "node", Title: "Node.js", Library: "Use a loop.", Code: []byte("const s = `a ${b}`;\n````\n// </script>\n")},
		{Lang: "curl", Title: "curl", Library: "Shell.", Code: []byte("curl -H 'Idempotency-Key: k' https://x.example\n")},
	}
	page := pages(t, Inputs{Contract: c, Snippets: snips})["retrying.md"]
	blocks := fencedBlocks(t, []byte(page), "json")
	if len(blocks) != len(snips) {
		t.Fatalf("%d code blocks on the page, want %d:\n%s", len(blocks), len(snips), page)
	}
	for i, s := range snips {
		if blocks[i].lang != FenceTag(s.Lang) {
			t.Errorf("block %d language %q, want %q", i, blocks[i].lang, FenceTag(s.Lang))
		}
		if !bytes.Equal(blocks[i].code, s.Code) {
			t.Errorf("%s: code block is not the rendered snippet:\n got %q\nwant %q", s.Lang, blocks[i].code, s.Code)
		}
		if !strings.Contains(page, "### "+s.Title+"\n\n"+s.Library+"\n") {
			t.Errorf("%s: library note missing before its code", s.Lang)
		}
	}
	body, err := HTMLBody([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	html := string(body)
	if n := strings.Count(html, `<section class="tab-panel"`); n != len(snips) {
		t.Errorf("%d tab panels in HTML, want %d", n, len(snips))
	}
	for _, s := range snips {
		if !strings.Contains(html, fmt.Sprintf(`id="tab-%s"`, s.Lang)) {
			t.Errorf("no tab panel for %s", s.Lang)
		}
	}
	// The highlighted HTML's text is the snippet.
	pre := regexp.MustCompile(`(?s)<pre[^>]*>(.*?)</pre>`).FindAllStringSubmatch(html, -1)
	tags := regexp.MustCompile(`<[^>]+>`)
	var texts []string
	for _, m := range pre {
		texts = append(texts, unescapeHTML(tags.ReplaceAllString(m[1], "")))
	}
	for _, s := range snips {
		found := false
		for _, tx := range texts {
			if tx == string(s.Code) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no <pre> whose text is the snippet; have %q", s.Lang, texts)
		}
	}
}

func unescapeHTML(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&#34;", `"`, "&amp;", "&").Replace(s)
}

type block struct {
	lang string
	code []byte
}

// fencedBlocks parses Markdown and returns its fenced code blocks, skipping
// those tagged skipLang.
func fencedBlocks(t testing.TB, md []byte, skipLang string) []block {
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(md))
	var out []block
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if fc, ok := n.(*ast.FencedCodeBlock); ok && entering {
			lang := string(fc.Language(md))
			if lang == skipLang {
				return ast.WalkContinue, nil
			}
			var b bytes.Buffer
			for i := 0; i < fc.Lines().Len(); i++ {
				s := fc.Lines().At(i)
				b.Write(s.Value(md))
			}
			out = append(out, block{lang, b.Bytes()})
		}
		return ast.WalkContinue, nil
	})
	return out
}

func TestIndexSaysWhySDKPageIsAbsent(t *testing.T) {
	c := load(t, "testdata/figures.yaml")
	ps := pages(t, Inputs{Contract: c})
	if _, ok := ps["sdk.md"]; ok {
		t.Error("sdk.md rendered for a contract without an sdk section")
	}
	if !strings.Contains(ps["index.md"], "There is no SDK defaults page: this contract does not describe any official SDK") {
		t.Errorf("index does not say why the SDK page is absent:\n%s", ps["index.md"])
	}
}

func TestChangelogPage(t *testing.T) {
	c := load(t, "testdata/figures.yaml")
	if _, ok := pages(t, Inputs{Contract: c})["changelog.md"]; ok {
		t.Error("changelog.md rendered without a changelog")
	}
	body := "## 2026-11-01: raise the window\n\n- **breaking**: `idempotency.replay_window` 24h → 36h\n"
	ps := pages(t, Inputs{Contract: c, Changelog: body})
	if !strings.Contains(ps["changelog.md"], body) {
		t.Errorf("changelog.md lacks the diff package's body:\n%s", ps["changelog.md"])
	}
	if !strings.Contains(ps["index.md"], "[Changelog](changelog.md)") {
		t.Error("index does not link the changelog")
	}
}

// TestRulePageMarksQuotes: a catalog text that the copy linter would flag
// gets a marker line naming the rules it fires, and the page opts into
// CommonMark for the comment; a page with nothing to mark has neither.
func TestRulePageMarksQuotes(t *testing.T) {
	c := load(t, "testdata/figures.yaml")
	r := rules.Rule{ID: "retry/any-error", Severity: findings.Error, Scope: rules.ScopeContract,
		Summary: "retry on any error is wrong", Rationale: "Because.", Fix: "list statuses"}
	clean := rules.Rule{ID: "retry/no-logging", Severity: findings.Warning, Scope: rules.ScopeContract,
		Summary: "no logging", Rationale: "Because.", Fix: "log"}
	detect := func(lines []string) [][]string {
		out := make([][]string, len(lines))
		for i, line := range lines {
			if strings.Contains(line, "any error") {
				out[i] = []string{"copy/retry-any-error", "copy/contradicts-contract", "copy/retry-any-error"}
			}
		}
		return out
	}
	ps := pages(t, Inputs{Contract: c, Rules: []rules.Rule{r, clean}, CopyQuotes: detect})
	page := ps["rules/retry-any-error.md"]
	want := "<!-- retryspec-disable-next-line copy/contradicts-contract copy/retry-any-error -- quoted as an example -->\nRetry on any error is wrong.\n"
	if !strings.Contains(page, want) {
		t.Errorf("no marker before the summary:\n%s", page)
	}
	if !strings.HasPrefix(page, "---\n") || strings.Count(page, "retryspec-disable-next-line") != 1 {
		t.Errorf("want front matter and exactly one marker:\n%s", page)
	}
	if p := ps["rules/retry-no-logging.md"]; strings.Contains(p, "<!--") || strings.HasPrefix(p, "---") {
		t.Errorf("page with nothing to mark has a marker or front matter:\n%s", p)
	}
	if !strings.Contains(ps["index.md"], "| [retry/any-error](rules/retry-any-error.md) | error | Its page quotes the wording it looks for. |") {
		t.Errorf("index repeats a quoted summary unmarked:\n%s", ps["index.md"])
	}
}
