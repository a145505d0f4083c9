// Package site assembles the integrator docs from a contract and writes
// them: the Markdown tree, the HTML site, the pictures and a sitemap, all
// swapped into place at once (atomicwrite.Dir). It also serves the site
// for `retryspec serve`, rebuilding when the inputs change.
//
// site imports render, the contract and its rules; only cli imports site.
package site
