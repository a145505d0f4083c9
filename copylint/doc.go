// Package copylint finds false or contract-contradicting claims in prose:
// marketing pages and docs in Markdown, MDX, HTML and plain text. It owns the
// copy/* rules of the catalog.
//
// The design keeps positions exact without a mapping table per format: each
// front-end (markdown.go, html.go, mdx.go) turns a file into a "mask", a copy
// of the source of the same length in which every byte that is not prose
// (markup, front matter, code, tags, attributes, scripts, JSX) is a space and
// newlines stay where they were, plus the list of prose blocks (paragraphs,
// headings, list items, cells). A match at byte offset i of the mask is at
// byte offset i of the file, so line and column come from the source as the
// user wrote it.
//
// Before matching, fold.go and normalize.go undo what hides a word from a
// reader's eye but not from a byte search (character references, format
// characters, look-alike letters, reversed text), keeping every offset in
// the source.
//
// Phrase sets are data (phrases.yaml): the same table drives the matcher, the
// corpus tests and the Vale style export. A form only proposes a candidate;
// clause.go judges it in its sentence (negation scope, definitions and
// attributions, modality, bounds), and a bounded exactly-once claim is
// reported as copy/exactly-once-bounded. The contract-aware rule
// copy/contradicts-contract lives in contradicts.go.
//
// It imports contract, contract/rules (each copy rule's facts come from the
// catalog), findings, internal/copyset (the labelled sets the learned reader
// trains on) and internal/safeout (the walk of --include trees stays
// inside them); never the CLI, never cobra. internal/layering's test keeps
// it so.
package copylint
