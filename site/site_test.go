package site

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/diff"
	"github.com/retryspec/retryspec/copylint"
	"github.com/retryspec/retryspec/internal/golden"
	"github.com/retryspec/retryspec/internal/safeout"
	"github.com/retryspec/retryspec/internal/testenv"
	"github.com/retryspec/retryspec/render"
)

// noHistory stands in for git in golden tests: the contract has no history,
// so the golden files do not change with every commit to the examples.
type noHistory struct{}

func (noHistory) Run(context.Context, string, ...string) ([]byte, error) { return nil, diff.ErrNoGit }

// snapshot reads a folder into a map of slash paths to contents.
func snapshot(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		// The manifest lists the hashes of the other files: it changes
		// with every one of them and says nothing a golden file should.
		if d.Name() == safeout.ManifestName {
			return nil
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func examples(t testing.TB) map[string]string {
	t.Helper()
	root := testenv.RepoRoot(t)
	paths, err := filepath.Glob(filepath.Join(root, "examples", "*", "retryspec.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example contracts under %s/examples: %v", root, err)
	}
	out := map[string]string{}
	for _, p := range paths {
		out[filepath.Base(filepath.Dir(p))] = p
	}
	return out
}

// TestGolden compares every generated file of each example contract, the
// Markdown pages and the HTML site, with testdata/golden/<example>/.
// Run with -update to rewrite them after an intended change.
func TestGolden(t *testing.T) {
	for name, path := range examples(t) {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			if _, err := Build(context.Background(), Options{Contract: path, Out: out, git: noHistory{}}); err != nil {
				t.Fatal(err)
			}
			got := snapshot(t, out)
			golden.CheckDir(t, filepath.Join("testdata", "golden", name), got)
		})
	}
}

// TestBuildIsDeterministic builds the same inputs twice: byte-identical.
func TestBuildIsDeterministic(t *testing.T) {
	for name, path := range examples(t) {
		t.Run(name, func(t *testing.T) {
			a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
			for _, out := range []string{a, b} {
				if _, err := Build(context.Background(), Options{Contract: path, Out: out}); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(snapshot(t, a), snapshot(t, b)); diff != "" {
				t.Errorf("two builds differ:\n%s", diff)
			}
		})
	}
}

// TestFailedBuildKeepsPreviousSite makes a build fail midway, after some
// files were written, and finds the previous site as it was, with no
// temporary folder left behind.
func TestFailedBuildKeepsPreviousSite(t *testing.T) {
	path := examples(t)["payouts"]
	parent := t.TempDir()
	out := filepath.Join(parent, "docs.out")
	if _, err := Build(context.Background(), Options{Contract: path, Out: out}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, out)
	// A stale marker proves the folder is not rewritten in place.
	written := 0
	boom := errors.New("disk full (injected)")
	_, err := Build(context.Background(), Options{Contract: path, Out: out, MarkdownOnly: true, afterWrite: func(name string) error {
		written++
		if written == 3 {
			return boom
		}
		return nil
	}})
	if !errors.Is(err, boom) {
		t.Fatalf("build error = %v, want the injected fault", err)
	}
	if written != 3 {
		t.Fatalf("fault hook ran %d times, want 3", written)
	}
	if diff := cmp.Diff(before, snapshot(t, out)); diff != "" {
		t.Errorf("previous site changed by a failed build:\n%s", diff)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("parent folder holds %v, want only docs.out", names)
	}
}

// TestBuildRefusesBrokenContract: a contract that does not load writes
// nothing and reports where the problem is.
func TestBuildRefusesBrokenContract(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if _, err := Build(context.Background(), Options{Contract: examples(t)["payouts"], Out: out}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, out)
	bad := filepath.Join(dir, "retryspec.yaml")
	src, _ := os.ReadFile(examples(t)["payouts"])
	src = bytes.Replace(src, []byte("replay_window: 24h"), []byte("replay_window: 24"), 1)
	os.WriteFile(bad, src, 0o644)
	_, err := Build(context.Background(), Options{Contract: bad, Out: out})
	var le *contract.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error = %v, want a *contract.LoadError", err)
	}
	if !strings.Contains(err.Error(), "retryspec.yaml:") || !strings.Contains(err.Error(), "replay_window") {
		t.Errorf("error %q does not point at the bad value", err)
	}
	if diff := cmp.Diff(before, snapshot(t, out)); diff != "" {
		t.Errorf("refused build changed the output:\n%s", diff)
	}
}

func TestMarkdownOnly(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Build(context.Background(), Options{Contract: examples(t)["payouts"], Out: out, MarkdownOnly: true}); err != nil {
		t.Fatal(err)
	}
	for p := range snapshot(t, out) {
		if !strings.HasPrefix(p, MarkdownDir+"/") {
			t.Errorf("--markdown-only wrote %s", p)
		}
		if strings.HasSuffix(p, ".html") {
			t.Errorf("--markdown-only wrote HTML: %s", p)
		}
	}
}

// TestMarkdownIsPortable checks what docs platforms need: no raw HTML
// besides comments, fenced code with a language tag, pictures as SVG files
// that exist beside the pages, links to pages that exist.
func TestMarkdownIsPortable(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Build(context.Background(), Options{Contract: examples(t)["payouts"], Out: out, MarkdownOnly: true}); err != nil {
		t.Fatal(err)
	}
	files := snapshot(t, out)
	for p, b := range files {
		if !strings.HasSuffix(p, ".md") {
			continue
		}
		for _, issue := range portabilityIssues(p, b, files) {
			t.Errorf("%s: %s", p, issue)
		}
	}
}

func TestSitemapListsEveryPage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Build(context.Background(), Options{Contract: examples(t)["payouts"], Out: out, SiteURL: "https://docs.example.test/"}); err != nil {
		t.Fatal(err)
	}
	files := snapshot(t, out)
	sm := string(files["sitemap.xml"])
	for p := range files {
		if strings.HasSuffix(p, ".html") {
			want := fmt.Sprintf("<loc>https://docs.example.test/%s</loc>", p)
			if !strings.Contains(sm, want) {
				t.Errorf("sitemap lacks %s", want)
			}
		}
	}
}

func TestTemplateOverride(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "markdown"), 0o755)
	os.WriteFile(filepath.Join(dir, "markdown", "errors.md.tmpl"), []byte("# Our errors\n\nCodes of {{md .C.API.Name}}: {{code .C.Idempotency.Conflicts.InFlight.Code}}.\n"), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Build(context.Background(), Options{Contract: examples(t)["payouts"], Out: out, Templates: dir}); err != nil {
		t.Fatal(err)
	}
	got := snapshot(t, out)
	if want := "---\n\n# Our errors\n\nCodes of Lumapay: `concurrent_idempotent_requests`.\n"; !strings.HasSuffix(string(got["markdown/errors.md"]), want) {
		t.Errorf("errors.md = %q, want %q", got["markdown/errors.md"], want)
	}
	if !bytes.Contains(got["errors.html"], []byte("<h1 id=\"our-errors\">Our errors</h1>")) {
		t.Errorf("errors.html does not carry the override:\n%s", got["errors.html"])
	}
	if !bytes.Contains(got["markdown/retrying.md"], []byte("# Retrying requests")) {
		t.Error("pages without an override lost their built-in template")
	}
}

func TestTemplateOverrideErrors(t *testing.T) {
	tests := []struct {
		name, file, src, want string
	}{
		{"unescaped value", "markdown/errors.md.tmpl", "# {{.C.API.Name}}\n", "prints a value without escaping it"},
		{"unknown file", "markdown/error.md.tmpl", "# x\n", "replaces no template"},
		{"syntax error", "markdown/index.md.tmpl", "# {{md .C.API.Name\n", "template"},
		{"html syntax", "html/layout.html", "<p>{{.Title</p>", "template"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, filepath.FromSlash(tt.file))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(tt.src), 0o644)
			_, err := render.LoadTemplates(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadTemplates = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestBuildRefusesContractWithErrors: a contract that loads but breaks an
// error rule is refused with the finding, and nothing is written.
func TestBuildRefusesContractWithErrors(t *testing.T) {
	dir := t.TempDir()
	src, _ := os.ReadFile(examples(t)["payouts"])
	bad := filepath.Join(dir, "retryspec.yaml")
	os.WriteFile(bad, bytes.Replace(src, []byte("jitter: full "), []byte("jitter: none "), 1), 0o644)
	out := filepath.Join(dir, "out")
	_, err := Build(context.Background(), Options{Contract: bad, Out: out})
	var fe *FindingsError
	if !errors.As(err, &fe) {
		t.Fatalf("error = %v, want *FindingsError", err)
	}
	found := false
	for _, f := range fe.Findings {
		found = found || f.Rule == "retry/no-jitter"
	}
	if !found {
		t.Errorf("findings %v lack retry/no-jitter", fe.Findings)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("refused build wrote %s", out)
	}
}

// TestRulePagesCoverCatalog: one page per rule of the catalog, each with
// the rule's summary and fix; copy rules mark their quotes for the linter.
func TestRulePagesCoverCatalog(t *testing.T) {
	c, err := contract.Load(examples(t)["payouts"])
	if err != nil {
		t.Fatal(err)
	}
	in, _ := inputs(context.Background(), c, noHistory{}, nil)
	if len(in.Rules) == 0 {
		t.Fatal("no rules in the catalog")
	}
	tm, _ := render.LoadTemplates("")
	files, err := Generate(in, tm, Options{MarkdownOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]string{}
	for _, f := range files {
		byPath[f.Path] = string(f.Data)
	}
	for _, r := range in.Rules {
		p := MarkdownDir + "/" + render.RulePath(r.ID)
		page, ok := byPath[p]
		if !ok {
			t.Errorf("%s: no page %s", r.ID, p)
			continue
		}
		if !strings.Contains(page, "\n# "+r.ID+"\n") && !strings.HasPrefix(page, "# "+r.ID+"\n") {
			t.Errorf("%s: page does not start with its ID", r.ID)
		}
		if !strings.Contains(byPath[MarkdownDir+"/"+render.RulesIndex], "("+path.Base(render.RulePath(r.ID))+")") {
			t.Errorf("%s: the rule list does not link its page", r.ID)
		}
		// copy/contradicts-contract fires only where its example's figures
		// differ from this contract's; TestOwnCopyPasses covers it anyway.
		// The suppression rules' examples are suppression comments, which
		// the page shows escaped as text: there is no claim to mark.
		isSuppressionRule := strings.HasPrefix(r.Bad, "<!--")
		if r.Scope == "copy" && r.Bad != "" && r.ID != "copy/contradicts-contract" && !isSuppressionRule {
			// The bad example fires its rule, and the finding is waived by
			// the page's marker: the quote is marked, not hidden.
			marked := false
			for _, f := range copylint.LintSource(c, p, markerComments([]byte(page))) {
				if f.Rule == r.ID && f.Waived && f.WaivedBecause == "quoted as an example" {
					marked = true
				}
			}
			if !marked {
				t.Errorf("%s: the page's bad example is not a marked quote:\n%s", r.ID, page)
			}
		}
	}
}

// TestDefaultOutIsContractDocsOut: without Out, the build writes to the
// contract's docs.out, beside the contract file.
func TestDefaultOutIsContractDocsOut(t *testing.T) {
	dir := t.TempDir()
	src, _ := os.ReadFile(examples(t)["payouts"])
	p := filepath.Join(dir, "retryspec.yaml")
	os.WriteFile(p, bytes.Replace(src, []byte("out: site"), []byte("out: public/docs"), 1), 0o644)
	res, err := Build(context.Background(), Options{Contract: p})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "public", "docs")
	if res.Out != want {
		t.Errorf("Out = %s, want %s", res.Out, want)
	}
	if _, err := os.Stat(filepath.Join(want, "markdown", "retrying.md")); err != nil {
		t.Error(err)
	}
}

// TestOwnCopyPasses lints every generated Markdown page of each example with
// the copy rules, strictly: no finding at all beyond the marked quotes, and
// no marker that waives nothing.
func TestOwnCopyPasses(t *testing.T) {
	for name, path := range examples(t) {
		t.Run(name, func(t *testing.T) {
			c, files := generatedExample(t, path, Options{MarkdownOnly: true})
			for _, f := range lintOwnCopy(c, files) {
				if !f.Waived {
					t.Errorf("%s:%d:%d: %s: %s [%s]", f.File, f.Line, f.Column, f.Severity, f.Message, f.Rule)
				}
			}
		})
	}
}

// TestOwnCopyPassesEitherWay: the pages, Markdown and HTML, pass `copy`
// with the learned reader as shipped and with the rules alone
// (--learned=false), whichever the default, so no team is failed by
// retryspec's own words. (The changelog is left out as lintOwnCopy
// leaves it: it quotes the contract's past values.)
func TestOwnCopyPassesEitherWay(t *testing.T) {
	m, err := copylint.ShippedLearnedModel()
	if err != nil {
		t.Fatal(err)
	}
	for name, file := range examples(t) {
		t.Run(name, func(t *testing.T) {
			c, files := generatedExample(t, file, Options{})
			for _, f := range files {
				if ext := path.Ext(f.Path); ext != ".md" && ext != ".html" || strings.HasSuffix(f.Path, "changelog.md") || strings.HasSuffix(f.Path, "changelog.html") {
					continue
				}
				for _, reader := range []*copylint.LearnedModel{nil, m} {
					for _, x := range copylint.LintSourceLearnedVeto(c, f.Path, markerComments(f.Data), reader, copylint.LearnedThreshold, copylint.LearnedFieldFamilies, copylint.LearnedVeto) {
						if !x.Waived {
							t.Errorf("%s (reader %v):%d:%d: %s: %s [%s]", x.File, reader != nil, x.Line, x.Column, x.Severity, x.Message, x.Rule)
						}
					}
				}
			}
		})
	}
}

// generatedExample loads the example contract at file and generates its
// pages with opts.
func generatedExample(t *testing.T, file string, opts Options) (*contract.Contract, []File) {
	t.Helper()
	c, err := contract.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := inputs(context.Background(), c, noHistory{}, nil)
	tm, _ := render.LoadTemplates("")
	files, err := Generate(in, tm, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, files
}

// TestBuildRefusesOwnCopyViolation: a template that makes a page promise
// exactly-once delivery fails the build, and nothing is written.
func TestBuildRefusesOwnCopyViolation(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "markdown"), 0o755)
	os.WriteFile(filepath.Join(dir, "markdown", "errors.md.tmpl"), []byte("# Errors\n\nEvery request to {{md .C.API.Name}} is processed exactly once.\n"), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	_, err := Build(context.Background(), Options{Contract: examples(t)["payouts"], Out: out, Templates: dir})
	var fe *FindingsError
	if !errors.As(err, &fe) || fe.What != "the generated pages" {
		t.Fatalf("error = %v, want the generated pages refused", err)
	}
	if len(fe.Findings) == 0 || fe.Findings[0].File != "markdown/errors.md" || fe.Findings[0].Rule != "copy/exactly-once" {
		t.Errorf("findings = %+v", fe.Findings)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a refused build wrote its output")
	}
}

// TestBuildRefusesToReplaceForeignFolder: --out pointing at a folder of
// other files (a source folder) is refused and the folder kept.
func TestBuildRefusesToReplaceForeignFolder(t *testing.T) {
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "main.go"), []byte("package main\n"), 0o644)
	_, err := Build(context.Background(), Options{Contract: examples(t)["payouts"], Out: out})
	if err == nil || !strings.Contains(err.Error(), "refusing to replace") {
		t.Fatalf("error = %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "main.go")); string(b) != "package main\n" {
		t.Error("the folder's file was lost")
	}
	// An empty folder, and a folder from an earlier build, are replaced.
	empty := t.TempDir()
	if _, err := Build(context.Background(), Options{Contract: examples(t)["payouts"], Out: empty}); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), Options{Contract: examples(t)["payouts"], Out: empty, MarkdownOnly: true}); err != nil {
		t.Fatal(err)
	}
}
