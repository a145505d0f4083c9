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
		"![Chart: the wait before each retry", "(retry-schedule.svg)", "(retry-elapsed.svg)",
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
// gets a marker line naming the rules it fires, in the Markdown form MDX
// accepts (no HTML comment); a page with nothing to mark has none. The
// rule list carries each rule's one-line description, marked the same way.
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
	mark := "[//]: # (retryspec-disable-next-line copy/contradicts-contract copy/retry-any-error -- quoted as an example)\n"
	if !strings.Contains(page, mark+"Retry on any error is wrong.\n") {
		t.Errorf("no marker before the summary:\n%s", page)
	}
	if strings.Count(page, "retryspec-disable-next-line") != 1 || strings.Contains(page, "<!--") {
		t.Errorf("want exactly one marker and no HTML comment:\n%s", page)
	}
	if p := ps["rules/retry-no-logging.md"]; strings.Contains(p, "retryspec-disable") || strings.Contains(p, "<!--") {
		t.Errorf("page with nothing to mark has a marker:\n%s", p)
	}
	list := ps["rules/index.md"]
	if !strings.Contains(list, mark+"[retry/any-error](retry-any-error.md) (error): Retry on any error is wrong.\n") ||
		!strings.Contains(list, "\n[retry/no-logging](retry-no-logging.md) (warning): No logging.\n") {
		t.Errorf("rule list lacks a rule's one-line description or its marker:\n%s", list)
	}
	if strings.Contains(ps["index.md"], "retry/any-error") || strings.Contains(ps["index.md"], "rules/") {
		t.Errorf("the integrator Overview lists lint rules:\n%s", ps["index.md"])
	}
}

// TestEveryPageHasFrontMatter: title, description and sidebar_position on
// every page, positions unique within each sidebar section.
func TestEveryPageHasFrontMatter(t *testing.T) {
	c := load(t, "testdata/figures.yaml")
	r := rules.Rule{ID: "retry/no-logging", Severity: findings.Warning, Scope: rules.ScopeContract, Summary: "no logging", Rationale: "Because.", Fix: "log"}
	tmpl, err := LoadTemplates("")
	if err != nil {
		t.Fatal(err)
	}
	ps, _, err := Markdown(Inputs{Contract: c, Rules: []rules.Rule{r}, Changelog: "## 2026-11-01\n\n- change\n"}, tmpl)
	if err != nil {
		t.Fatal(err)
	}
	fm := regexp.MustCompile(`\A---\ntitle: "[^"\n]+"\ndescription: "[^"\n]+"\nsidebar_position: (\d+)\n---\n\n# `)
	seen := map[string]bool{}
	for _, p := range ps {
		m := fm.FindSubmatch(p.Markdown)
		if m == nil {
			t.Errorf("%s: no front matter with title, description and sidebar_position:\n%.300s", p.Path, p.Markdown)
			continue
		}
		key := p.Group + "/" + string(m[1])
		if seen[key] {
			t.Errorf("%s: sidebar_position %s used twice in its section", p.Path, m[1])
		}
		seen[key] = true
		if bytes.Contains(p.Markdown, []byte("<!--")) {
			t.Errorf("%s: an HTML comment, which MDX rejects", p.Path)
		}
	}
}

// TestRetryingPageOrder: the prose (timeouts and deadlines included) comes
// before the code; per language the short form comes first, then the full
// program, unchanged, inside a "Full program" disclosure, in the Markdown
// and in the HTML.
func TestRetryingPageOrder(t *testing.T) {
	c := load(t, "testdata/figures.yaml")
	snips := []Snippet{
		{Lang: "python", Title: "Python", FileName: "snippet.py", Library: "Use tenacity.", Short: []byte("retrying = Retrying()\n"), Code: []byte("import time\nprint('full')\n")},
		{Lang: "go", Title: "Go", FileName: "snippet.go", Library: "Standard library.", Short: []byte("const maxAttempts = 5\n"), Code: []byte("package main\n\nfunc main() {}\n")},
	}
	page := pages(t, Inputs{Contract: c, Snippets: snips})["retrying.md"]
	order := []string{"## Which failures to retry", "## Backoff with jitter", "## Stop on both bounds", "## Log every retry",
		"## Timeouts and deadlines", "## For fleet operators", "## Retry code for your language"}
	last := -1
	for _, h := range order {
		i := strings.Index(page, "\n"+h+"\n")
		if i < last {
			t.Errorf("%q is out of reading order (or missing)", h)
		}
		last = i
	}
	// The answer first (issue 28): the short forms open the page, before
	// the first section, then come again with each full program.
	if top, first := strings.Index(page, "[//]: # (retryspec:tabs)"), strings.Index(page, "\n## Which failures to retry\n"); top < 0 || top > first {
		t.Errorf("the page does not open with the short forms (tabs at %d, first section at %d)", top, first)
	}
	blocks := fencedBlocks(t, []byte(page), "json")
	if len(blocks) != 3*len(snips) {
		t.Fatalf("%d code blocks, want the short forms first, then a short form and a full program per language", len(blocks))
	}
	for i, s := range snips {
		if !bytes.Equal(blocks[i].code, s.Short) {
			t.Errorf("%s: opening block %q, want the short form", s.Lang, blocks[i].code)
		}
	}
	blocks = blocks[len(snips):]
	for i, s := range snips {
		if !bytes.Equal(blocks[2*i].code, s.Short) || !bytes.Equal(blocks[2*i+1].code, s.Code) {
			t.Errorf("%s: blocks %q, %q; want the short form, then the full program", s.Lang, blocks[2*i].code, blocks[2*i+1].code)
		}
		want := "<details>\n<summary>Full program: " + s.FileName + ", "
		if !strings.Contains(page, want) {
			t.Errorf("%s: no disclosure %q", s.Lang, want)
		}
	}
	body, err := HTMLBody([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	html := string(body)
	if n := strings.Count(html, `<details class="full-program">`); n != len(snips) {
		t.Errorf("%d disclosures in the HTML, want %d", n, len(snips))
	}
	if strings.Contains(html, "raw HTML omitted") {
		t.Error("the HTML dropped part of the disclosure as raw HTML")
	}
	d := regexp.MustCompile(`(?s)<details class="full-program">\n<summary>Full program: snippet.py, 2 lines, tested</summary>\n<div class="code" data-lang="python"><pre[^>]*><code>(.*?)</code></pre>`).FindStringSubmatch(html)
	if d == nil || unescapeHTML(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(d[1], "")) != string(snips[0].Code) {
		t.Errorf("the Python disclosure does not hold the full program:\n%s", html)
	}
}

// TestCopyMarksInHTML: a Markdown copy mark becomes the HTML comment form
// on the line right before the line holding the quoted text, for a
// paragraph and inside a block quote.
func TestCopyMarksInHTML(t *testing.T) {
	md := "# T\n\n" + CopyMarker([]string{"copy/exactly-once"}, "quoted as an example") + "\nWe deliver exactly once.\n\n" +
		CopyMarker([]string{"copy/exactly-once"}, "quoted (here)") + "\n> Every payout is processed exactly once.\n"
	body, err := HTMLBody([]byte(md))
	if err != nil {
		t.Fatal(err)
	}
	html := string(body)
	for _, want := range []string{
		"<!-- retryspec-disable-next-line copy/exactly-once -- quoted as an example -->\n<p>We deliver exactly once.</p>",
		"<blockquote>\n<!-- retryspec-disable-next-line copy/exactly-once -- quoted here -->\n<p>Every payout is processed exactly once.</p>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q:\n%s", want, html)
		}
	}
}
