// Package site assembles the integrator docs from a contract and writes
// them: the Markdown tree, the HTML site, the pictures and a sitemap, all
// swapped into place at once (atomicwrite.Dir). It also serves the site
// for `retryspec serve`, rebuilding when the inputs change.
//
// site imports the contract, its rules and diff (the changelog), render,
// snippets (the code on the pages), openapi (the merged spec), copylint (it
// lints its own pages before writing them), findings and internal/safeout;
// only cli imports site. internal/layering's test keeps it so.
package site
