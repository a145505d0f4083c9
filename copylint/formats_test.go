package copylint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retryspec/retryspec/findings"
)

// TestPositions checks that line:column point into the source as written,
// in each format, through front matter, entities, tags, JSX and CRLF.
func TestPositions(t *testing.T) {
	tests := []struct {
		name, src  string
		line, col  int
		wantNoneOf string // a rule that must not fire (non-prose claim)
	}{
		{"front.md", "---\ntitle: exactly-once delivery\n---\n\nWe offer exactly-once delivery.\n", 5, 10, ""},
		{"toml.md", "+++\ntitle = \"exactly-once delivery\"\n+++\nWe offer exactly-once delivery.\n", 4, 10, ""},
		{"crlf.md", "Intro.\r\n\r\nWe offer **exactly-once**\r\ndelivery.\r\n", 3, 12, ""},
		{"list.md", "- one\n- We offer exactly&#8209;once delivery.\n", 2, 12, ""},
		{"page.html", "<html><body>\n  <div class=\"exactly-once delivery\">\n    <p>Lumapay &amp; co: <em>exactly-once</em> delivery</p>\n</div></body></html>\n", 3, 30, ""},
		{"kafka.html", "<script id=\"x\" type=\"text/x-handlebars-template\">\n<p>Kafka offers exactly-once delivery.</p>\n</script>\n<script>var s = 'exactly-once delivery';</script>\n", 2, 17, ""},
		{"page.mdx", "import X from './x'\nexport const y = 'exactly-once delivery'\n\n<Note title=\"exactly-once delivery\">\n  We offer exactly-once delivery {props.z}.\n</Note>\n", 5, 12, ""},
		{"unicode.md", "Überall — we offer exactly-once delivery.\n", 1, 20, ""},
	}
	for _, tc := range tests {
		fs := LintSource(nil, tc.name, []byte(tc.src))
		if len(fs) != 1 {
			t.Errorf("%s: want one finding, got %+v", tc.name, fs)
			continue
		}
		if fs[0].Line != tc.line || fs[0].Column != tc.col {
			t.Errorf("%s: at %d:%d, want %d:%d", tc.name, fs[0].Line, fs[0].Column, tc.line, tc.col)
		}
	}
}

// TestNotProse lists places a claim may appear without being copy.
func TestNotProse(t *testing.T) {
	for name, src := range map[string]string{
		"code.md":    "```\nWe offer exactly-once delivery.\n```\n\n    We offer exactly-once delivery.\n\nSee `deliver(mode=\"exactly-once\")` in code.\n",
		"attr.html":  `<img alt="x" title="We offer exactly-once delivery"><a href="/exactly-once-delivery">link</a>`,
		"style.html": "<style>/* We offer exactly-once delivery */</style><script>// We offer exactly-once delivery\n</script><!-- We offer exactly-once delivery -->",
		"pre.html":   "<pre>We offer exactly-once delivery.</pre><p>Fine.</p>",
		"esm.mdx":    "export const meta = {\n  title: 'We offer exactly-once delivery',\n}\n\nHello {'We offer exactly-once delivery'}.\n",
		"link.md":    "<https://example.com/exactly-once-delivery-processing>\n",
	} {
		if fs := LintSource(nil, name, []byte(src)); len(fs) != 0 {
			t.Errorf("%s: non-prose claim flagged: %+v", name, fs)
		}
	}
	// With lint_code, code is copy.
	l := newLinter(nil, true)
	if fs := l.lintSource("code.md", []byte("```\nWe offer exactly-once delivery.\n```\n"), nil, nil); len(fs) != 1 {
		t.Errorf("lint_code: want the fenced claim, got %+v", fs)
	}
}

// TestLintPaths covers folders, globs, odd names, .gitignore and binaries.
func TestLintPaths(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	claim := "We offer exactly-once delivery.\n"
	write("docs/a [draft], (v2).md", claim)
	write("docs/sub/b.mdx", claim)
	write("docs/c.html", "<p>"+claim+"</p>")
	write("docs/d.txt", claim)
	write("docs/e.go", claim) // not a copy format: skipped in folders
	write("docs/bin.md", "We offer exactly-once delivery.\x00\x01")
	write("docs/.gitignore", "ignored/\n*.tmp.md\n")
	write("docs/ignored/f.md", claim)
	write("docs/g.tmp.md", claim)
	write(".gitignore", "docs/sub/skip.md\n")
	write("docs/sub/skip.md", claim)

	files := func(fs []findings.Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, filepath.ToSlash(strings.TrimPrefix(f.File, dir+string(filepath.Separator))))
		}
		return out
	}
	fs, err := Lint(context.Background(), nil, []string{filepath.Join(dir, "docs")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(files(fs), "|")
	want := "docs/a [draft], (v2).md|docs/c.html|docs/d.txt|docs/sub/b.mdx"
	if got != want {
		t.Errorf("folder walk:\n got %s\nwant %s", got, want)
	}
	// A literal odd name is a file, not a glob; ** globs recurse.
	fs, err = Lint(context.Background(), nil, []string{filepath.Join(dir, "docs", "a [draft], (v2).md"), filepath.Join(dir, "docs", "**", "*.mdx")}, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(files(fs), "|"); got != "docs/a [draft], (v2).md|docs/sub/b.mdx" {
		t.Errorf("file + glob: got %s", got)
	}
	if _, err := Lint(context.Background(), nil, []string{filepath.Join(dir, "nope.md")}, Options{}); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: err = %v", err)
	}

	// A file too large to be copy: skipped and listed, whether a folder
	// walk or a glob finds it or it is named.
	huge := "docs/sub/huge reference.md"
	write(huge, claim+strings.Repeat("filler line\n", MaxFileSize/12+1))
	for _, arg := range []string{"docs", "docs/**/*.md"} {
		var stats Stats
		fs, err = Lint(context.Background(), nil, []string{filepath.Join(dir, filepath.FromSlash(arg))}, Options{Stats: &stats})
		if err != nil {
			t.Fatalf("%s: a large file found there failed the run: %v", arg, err)
		}
		// The binary bin.md is skipped too, and named: every skip is.
		if len(stats.Skipped) != 2 || filepath.ToSlash(stats.Skipped[0].Path) != filepath.ToSlash(filepath.Join(dir, "docs/bin.md")) ||
			filepath.ToSlash(stats.Skipped[1].Path) != filepath.ToSlash(filepath.Join(dir, huge)) {
			t.Errorf("%s: skipped %q, want the binary and the large file", arg, stats.Skipped)
		}
		if strings.Contains(strings.Join(files(fs), "|"), "huge") {
			t.Errorf("%s: the large file was linted", arg)
		}
	}
	var stats Stats
	if _, err := Lint(context.Background(), nil, []string{filepath.Join(dir, filepath.FromSlash(huge))}, Options{Stats: &stats}); err != nil || len(stats.Skipped) != 1 || !strings.Contains(stats.Skipped[0].Reason, "larger than 1 MiB") {
		t.Errorf("named large file: err = %v, skipped %v; want it skipped for its size", err, stats.Skipped)
	}
}

// FuzzLintSource: no input may panic or hang any front-end, and every
// position must lie inside the file.
func FuzzLintSource(f *testing.F) {
	for _, s := range []string{"We offer exactly-once delivery.", "<p>exactly-once <b>delivery</b>", "---\na: b\n---\n", "{/* x */}", "<script type=\"text/x-template\"><p>never charged twice</p>", "&#8209;&rsquo;&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, name := range []string{"f.md", "f.mdx", "f.html", "f.txt"} {
			for _, fd := range LintSource(nil, name, []byte(s)) {
				if fd.Line < 1 || fd.Column < 1 || fd.Line > strings.Count(s, "\n")+1 {
					t.Fatalf("%s: bad position %d:%d", name, fd.Line, fd.Column)
				}
			}
		}
	})
}
