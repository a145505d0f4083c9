package site

import (
	"github.com/retryspec/retryspec/contract"
	"github.com/retryspec/retryspec/findings"
	"github.com/retryspec/retryspec/render"
)

// The three functions below are where the other domain packages join the
// build: the rule catalog and its checks (contract/rules), the tested
// snippets (snippets) and the copy linter (copylint). Each package's owner
// lands it on main; until then the build runs with what exists: load
// errors stop it, and the Retrying page says it has no snippets.

// checkContract runs the contract's lint rules.
func checkContract(c *contract.Contract) []findings.Finding {
	return nil
}

// inputs gathers what the pages are made from.
func inputs(c *contract.Contract) (render.Inputs, error) {
	return render.Inputs{Contract: c}, nil
}

// lintOwnCopy runs the copy rules on the generated Markdown.
func lintOwnCopy(c *contract.Contract, files []File) []findings.Finding {
	return nil
}
