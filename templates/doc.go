// Package templates holds the page templates and site assets, embedded in
// the binary. A team overrides any of them by putting a file with the same
// relative path under the folder given to --templates (`retryspec
// templates export DIR` writes them all there to start from); render loads
// both.
//
// markdown/*.md.tmpl are text/template files that write Markdown. Every
// output action must end in an escaping function (md, code, cellcode,
// fence, num, dur, human, slug, ident, marker, link, rulefile, url,
// markdown); render refuses a template that prints a value any other way.
// html/layout.html is the html/template page frame; assets/ are copied to
// the site as they are.
//
// It imports nothing of ours: it is data. render reads it, and the CLI
// reads it for `retryspec templates export`.
package templates

import "embed"

// FS is the embedded template tree.
//
//go:embed markdown/*.md.tmpl markdown/partials/*.md.tmpl html/*.html assets/*
var FS embed.FS
