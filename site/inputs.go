package site

import (
	"path"
	"slices"
	"strings"

	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/copylint"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/render"
)

// The functions below are where the other domain packages join the build:
// the rule catalog and its checks (contract/rules), the copy linter
// (copylint), the tested snippets (snippets) and the changelog (diff).

// checkContract runs the contract's lint rules (waivers applied).
func checkContract(c *contract.Contract) []findings.Finding {
	return rules.Run(c)
}

// inputs gathers what the pages are made from.
func inputs(c *contract.Contract) (render.Inputs, error) {
	return render.Inputs{Contract: c, Rules: rules.Catalog(), CopyQuotes: copyQuotes(c)}, nil
}

// copyQuotes is the rule pages' quote detector: the copy rules that fire
// on one line of catalog text, linted as Markdown against the contract.
func copyQuotes(c *contract.Contract) func(string) []string {
	copyRules := map[string]bool{}
	for _, r := range rules.Catalog() {
		if r.Scope == rules.ScopeCopy {
			copyRules[r.ID] = true
		}
	}
	return func(line string) []string {
		var ids []string
		for _, f := range copylint.LintSource(c, "quote.md", []byte(line+"\n")) {
			if copyRules[f.Rule] && !f.Waived && !slices.Contains(ids, f.Rule) {
				ids = append(ids, f.Rule)
			}
		}
		return ids
	}
}

// lintOwnCopy runs the copy rules on the generated Markdown, as
// `retryspec copy` would on a docs folder: the build's pages must pass the
// checks it publishes.
func lintOwnCopy(c *contract.Contract, files []File) []findings.Finding {
	var fs []findings.Finding
	for _, f := range files {
		if strings.HasPrefix(f.Path, MarkdownDir+"/") && path.Ext(f.Path) == ".md" {
			fs = append(fs, copylint.LintSource(c, f.Path, f.Data)...)
		}
	}
	findings.Sort(fs)
	return fs
}
