package site

import (
	"context"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/diff"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/copylint"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/render"
	"github.com/retryspec/retryspec/snippets"
)

// The functions below are where the other domain packages join the build:
// the rule catalog and its checks (contract/rules), the copy linter
// (copylint), the tested snippets (snippets) and the changelog (diff).

// checkContract runs the contract's lint rules (waivers applied).
func checkContract(c *contract.Contract) []findings.Finding {
	return rules.Run(c)
}

// inputs gathers what the pages are made from. g reads the contract's git
// history for the Changelog page. snippetsDone, when not nil, is handed the
// inputs as soon as the snippets are rendered, before the history is read.
func inputs(ctx context.Context, c *contract.Contract, g diff.Git, snippetsDone func(render.Inputs)) (render.Inputs, error) {
	in := render.Inputs{Contract: c, Rules: rules.Catalog(), CopyQuotes: copyQuotes(c)}
	in.Snippets, in.NoSnippets = renderSnippets(c)
	if snippetsDone != nil {
		snippetsDone(in)
	}
	revs, err := diff.History(ctx, g, c.File)
	if err != nil {
		return in, err
	}
	var b strings.Builder
	if err := diff.Changelog(&b, c, revs); err != nil {
		return in, err
	}
	in.Changelog = b.String()
	return in, nil
}

// renderSnippets renders the snippet of each language the contract names:
// the very bytes `retryspec snippets test` runs. A policy the snippets
// cannot express (no keyed endpoint, say) leaves the tabs out with the
// reason, rather than failing the whole build.
func renderSnippets(c *contract.Contract) ([]render.Snippet, string) {
	var out []render.Snippet
	for _, l := range snippets.LanguagesFor(c) {
		code, err := snippets.Render(c, l.Name)
		if err != nil {
			return nil, err.Error()
		}
		short, err := snippets.Short(c, l.Name)
		if err != nil {
			return nil, err.Error()
		}
		out = append(out, render.Snippet{Lang: l.Name, Title: l.Title, FileName: l.FileName, Library: l.Library, Short: short, Code: code})
	}
	return out, ""
}

// copyQuotes is the pages' quote detector: the copy rules that fire on
// each line of catalog text, linted as one Markdown document (a paragraph
// per line) against the contract. The rules alone decide, without the
// learned reader, which may veto a rule's finding: a quote it leaves
// unmarked would fail `copy --learned=false`, while a marked one passes
// both ways (the reader leaves a suppressed line as the rules read it).
func copyQuotes(c *contract.Contract) func([]string) [][]string {
	copyRules := map[string]bool{}
	for _, r := range rules.Catalog() {
		if r.Scope == rules.ScopeCopy {
			copyRules[r.ID] = true
		}
	}
	return func(lines []string) [][]string {
		out := make([][]string, len(lines))
		doc := strings.Join(lines, "\n\n") + "\n"
		for _, f := range copylint.LintSourceLearned(c, "quotes.md", []byte(doc), nil, 0, nil) {
			i := (f.Line - 1) / 2 // line i of the input is line 2i+1 of doc
			if (f.Line-1)%2 != 0 || i < 0 || i >= len(lines) || !copyRules[f.Rule] || f.Waived || slices.Contains(out[i], f.Rule) {
				continue
			}
			out[i] = append(out[i], f.Rule)
		}
		return out
	}
}

// lintOwnCopy runs the copy rules on the generated Markdown, as
// `retryspec copy` would on a docs folder: the build's pages must pass the
// checks it publishes. The Changelog quotes earlier revisions' figures by
// nature, so copy/contradicts-contract does not apply to it (see
// diff.Changelog).
func lintOwnCopy(c *contract.Contract, files []File) []findings.Finding {
	var pages []File
	for _, f := range files {
		if strings.HasPrefix(f.Path, MarkdownDir+"/") && path.Ext(f.Path) == ".md" {
			pages = append(pages, f)
		}
	}
	// Pages lint independently: spread them over the cores, then join
	// the findings in page order and sort them as before.
	per := make([][]findings.Finding, len(pages))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(pages)) {
		wg.Go(func() {
			for i := range next {
				f := pages[i]
				for _, x := range copylint.LintSource(c, f.Path, markerComments(f.Data)) {
					if f.Path == MarkdownDir+"/changelog.md" && x.Rule == "copy/contradicts-contract" {
						continue
					}
					per[i] = append(per[i], x)
				}
			}
		})
	}
	for i := range pages {
		next <- i
	}
	close(next)
	wg.Wait()
	var fs []findings.Finding
	for _, x := range per {
		fs = append(fs, x...)
	}
	findings.Sort(fs)
	return fs
}

// markdownMark is a copy-lint mark in the pages' Markdown form (see
// render.CopyMarker).
var markdownMark = regexp.MustCompile(`(?m)^\[//\]: # \((retryspec-disable-next-line [^()\n]*)\)$`)

// markerComments rewrites each Markdown-form mark as the HTML comment form
// before the pages' own copy check, line for line, so positions hold.
// Kept until copylint reads the Markdown form itself (agreed between the
// site and copylint engineers; both forms then lint the same); harmless
// afterwards, as copylint reads the comment form too.
func markerComments(md []byte) []byte {
	return render.ReplaceLines(md, "[//]: # (retryspec-disable-next-line ", markdownMark, []byte("<!-- $1 -->"))
}
